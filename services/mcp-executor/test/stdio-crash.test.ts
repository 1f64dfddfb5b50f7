// A stdio MCP server that dies is noticed when its process exits, not at the next call.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serveHealth } from '@munim/kit';
import { type TestNats, test } from '@munim/testkit';
import { pino } from 'pino';
import { afterAll, describe, expect } from 'vitest';
import { buildMcpExecutor, type McpExecutor } from '../src/app.ts';
import { newScope, recordEvents, WRITES_EXEMPT, waitFor } from './helpers.ts';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/**
 * Starts the server named in its arguments, counting its starts in a file; the second start (the
 * first respawn) is held back, so the time without a session is long enough to be seen.
 */
const WRAPPER = `
import { appendFileSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [countFile, holdMs, server, ...rest] = process.argv.slice(2);
let starts = 0;
try { starts = readFileSync(countFile, 'utf8').length; } catch {}
appendFileSync(countFile, 'x');
if (starts === 1) await new Promise((resolve) => setTimeout(resolve, Number(holdMs)));
process.argv = [process.argv[0], server, ...rest];
await import(pathToFileURL(server).href);
`;
const HOLD_MS = 1_500;
const SECRET = 'stdio-secret-value';

let scratch: string;
let nats: TestNats;
const cleanups: (() => Promise<void>)[] = [];

test.beforeAll(async ({ nats: fileNats }) => {
  nats = fileNats;
  scratch = await mkdtemp(join(tmpdir(), 'munim-stdio-'));
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await rm(scratch, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function childPid(app: McpExecutor): Promise<number> {
  const client = await app.connection.client(0);
  const pid = (client?.transport as StdioClientTransport | undefined)?.pid;
  if (!pid) throw new Error('no stdio child');
  return pid;
}

describe('a stdio server that exits', () => {
  test('turns health false at once, reconnects by itself, serves the next call, and stops without respawning', async () => {
    const wrapper = join(scratch, 'wrapper.mjs');
    const starts = join(scratch, 'starts');
    await writeFile(wrapper, WRAPPER);
    const startCount = async () => (await readFile(starts, 'utf8').catch(() => '')).length;
    const logs: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
    const bus = await nats.bus('mcp-executor');
    const app = await buildMcpExecutor({
      bus,
      log,
      config: {
        policy: WRITES_EXEMPT,
        servers: [
          {
            name: 'everything',
            command: process.execPath,
            args: [wrapper, starts, String(HOLD_MS), EVERYTHING, 'stdio'],
            env: { EVERYTHING_TOKEN: SECRET },
          },
        ],
        readTimeoutMs: 10_000,
        writeTimeoutMs: 10_000,
        resultMaxChars: 50_000,
        reconnectBackoff: { initialMs: 50, maxMs: 250 },
        // Neither a ping nor a refresh may be what notices the exit.
        pingIntervalMs: 0,
        registryRefreshMs: 3_600_000,
      },
    });
    await app.start();
    let stopped = false;
    cleanups.push(async () => {
      if (!stopped) await app.stop();
    });
    const health = serveHealth(bus, () => app.checks());
    cleanups.push(() => health.stop());
    const agent = await nats.bus('agent');
    const ping = () =>
      agent.request('healthPing', newScope(), {}, { timeoutMs: 2_000, params: { service: 'mcp-executor' } });

    await waitFor(() => app.connection.connected && app.registry.loaded, 15_000);
    expect(await ping()).toMatchObject({ ok: true, checks: { mcp: true } });
    const first = await childPid(app);
    const lost = () => logs.filter((l) => l.msg === 'MCP session lost; reconnecting');

    process.kill(first, 'SIGKILL');
    // (a) Within the held-back respawn, with no call made: health is already false.
    await expect
      .poll(async () => (await ping()).checks.mcp, { timeout: HOLD_MS - 500, interval: 20 })
      .toBe(false);
    expect(await app.checks()).toEqual({ mcp: false });
    expect(lost()).toHaveLength(1);
    expect(lost()[0]).toMatchObject({
      level: 40,
      server: `everything (stdio ${basename(process.execPath)})`,
      retryInMs: 0,
    });
    expect(String(lost()[0]?.reason)).toContain('McpTransportClosedError');

    // (b) A new session comes by itself, on a new process.
    await expect.poll(async () => (await ping()).ok, { timeout: 15_000, interval: 50 }).toBe(true);
    const second = await childPid(app);
    expect(second).not.toBe(first);
    expect(alive(second)).toBe(true);
    expect(await startCount()).toBe(2);

    // (c) The next call finds the fresh session: no failure, no retry.
    const scope = newScope();
    const recorder = recordEvents(agent, scope.requestId);
    const echoed = await agent.request(
      'toolExecute',
      scope,
      {
        tool: 'echo',
        args: { message: 'after the crash' },
        callId: `${scope.requestId}:1`,
        isWrite: false,
        argsHash: 'h',
      },
      { timeoutMs: 10_000 },
    );
    expect(echoed).toMatchObject({ success: true, result: 'Echo: after the crash' });
    await expect.poll(() => recorder.events.map((e) => e.type)).toEqual(['executing_tool', 'tool_result']);
    recorder.stop();

    // A server that keeps dying soon after it starts is respawned after growing pauses.
    process.kill(second, 'SIGKILL');
    await waitFor(async () => app.connection.connected && (await childPid(app)) !== second, 15_000);
    const third = await childPid(app);
    process.kill(third, 'SIGKILL');
    await waitFor(async () => app.connection.connected && (await childPid(app)) !== third, 15_000);
    expect(lost().map((l) => l.retryInMs)).toEqual([0, 50, 100]);
    const last = await childPid(app);
    expect(await startCount()).toBe(4);

    // A deliberate stop closes the child and starts no other.
    await app.stop();
    stopped = true;
    await waitFor(() => !alive(last), 5_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await startCount()).toBe(4);
    expect(app.connection.connected).toBe(false);
    expect(lost()).toHaveLength(3);
    expect(JSON.stringify(logs)).not.toContain(SECRET);
  });
});
