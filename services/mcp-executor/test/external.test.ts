// Against MCP servers nobody here wrote: the reference "everything" and "memory" servers,
// over Streamable HTTP and stdio, through the whole executor (NATS request → MCP call → reply).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Bus } from '@munim/bus';
import type { ExecutionResult } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type FixtureNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { buildMcpExecutor, type McpExecutor, type McpExecutorConfig, ToolPolicy } from '../src/app.ts';
import { approve, freePort, log, newScope, recordEvents, waitFor } from './helpers.ts';

let newNats: () => FixtureNats;
test.beforeAll(({ newNats: fixture }) => {
  newNats = fixture;
});

const require = createRequire(import.meta.url);
const binOf = (pkg: string) => join(dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js');
const EVERYTHING = binOf('@modelcontextprotocol/server-everything');
const MEMORY = binOf('@modelcontextprotocol/server-memory');

const cleanups: (() => Promise<void>)[] = [];
let db: Kysely<Database>;
let scratch: string;

test.beforeAll(async ({ db: fileDb }) => {
  db = fileDb;
  scratch = await mkdtemp(join(tmpdir(), 'munim-mcp-'));
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await rm(scratch, { recursive: true, force: true });
});

/** server-everything in Streamable HTTP mode on `port`; resolves once it listens. */
async function startEverythingHttp(port: number): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await waitFor(() => stderr.includes('listening') || child.exitCode !== null, 15_000);
  if (child.exitCode !== null) throw new Error(`server-everything did not start: ${stderr}`);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };
  cleanups.push(stop);
  return { url: `http://127.0.0.1:${port}/mcp`, stop };
}

async function startExecutor(config: Partial<McpExecutorConfig>): Promise<{ app: McpExecutor; bus: Bus }> {
  const nats = newNats();
  const app = await buildMcpExecutor({
    bus: await nats.bus('mcp-executor'),
    log,
    db,
    config: {
      readTimeoutMs: 10_000,
      writeTimeoutMs: 10_000,
      resultMaxChars: 50_000,
      reconnectBackoff: { initialMs: 50, maxMs: 250 },
      pingIntervalMs: 0,
      ...config,
    },
  });
  await app.start();
  cleanups.push(() => app.stop());
  return { app, bus: await nats.bus('agent') };
}

const run = (bus: Bus, tool: string, args: Record<string, unknown> = {}, scope = newScope()) =>
  bus.request(
    'toolExecute',
    scope,
    { tool, args, callId: `${scope.requestId}:1`, isWrite: false, argsHash: 'h' },
    { timeoutMs: 20_000 },
  );

/** The operator trusts the reference servers' annotations (server-everything marks echo readOnlyHint). */
const TRUST_ALL = ToolPolicy.parse(
  'servers: { "*": { trustAnnotations: true } }\ntools: [{ match: "*", tier: 0 }]',
);

/** What every server-everything session offers, whatever the client's capabilities. */
const EVERYTHING_TOOLS = ['echo', 'get-sum', 'get-structured-content', 'trigger-long-running-operation'];

describe('server-everything over Streamable HTTP', () => {
  test('is unavailable while down at start, then lists, echoes, sums, reports errors and times out', async () => {
    const port = await freePort();
    const { app, bus } = await startExecutor({
      serverUrl: `http://127.0.0.1:${port}/mcp`,
      readTimeoutMs: 1_500,
      policy: TRUST_ALL,
    });
    expect(await run(bus, 'echo', { message: 'early' })).toMatchObject({
      success: false,
      error: { code: 'MCP_UNAVAILABLE' },
    });

    await startEverythingHttp(port);
    await expect.poll(() => app.registry.loaded, { timeout: 10_000 }).toBe(true);
    const { tools } = await bus.request('toolsList', newScope(), {}, { timeoutMs: 5_000 });
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(EVERYTHING_TOOLS));
    expect(tools.find((t) => t.name === 'get-sum')).toMatchObject({
      isWrite: false,
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    });

    expect(await run(bus, 'echo', { message: 'hello munim' })).toMatchObject({
      success: true,
      result: 'Echo: hello munim',
    });
    expect(await run(bus, 'get-sum', { a: 2, b: 40 })).toMatchObject({
      success: true,
      result: 'The sum of 2 and 40 is 42.',
    });
    const structured = await run(bus, 'get-structured-content', { location: 'Chicago' });
    expect(structured.success).toBe(true);
    expect(structured.result).toEqual({
      temperature: expect.any(Number),
      conditions: expect.any(String),
      humidity: expect.any(Number),
    });

    const bad: ExecutionResult = await run(bus, 'get-sum', { a: 'two', b: 40 });
    expect(bad).toMatchObject({ success: false, error: { code: 'TOOL_FAILED' } });
    expect(bad.error?.message).toMatch(/a|number|invalid/i);
    expect(bad.error?.message).not.toMatch(/\bat\s+\S+\.js|127\.0\.0\.1/);

    const slow = await run(bus, 'trigger-long-running-operation', { duration: 4, steps: 2 });
    expect(slow).toMatchObject({ success: false, error: { code: 'TOOL_TIMEOUT' } });
    // The timed-out call did not cost the session.
    expect(await run(bus, 'echo', { message: 'after' })).toMatchObject({
      success: true,
      result: 'Echo: after',
    });
  });

  test('retries a read on a new session when the server restarted mid-session', async () => {
    const port = await freePort();
    let server = await startEverythingHttp(port);
    const { app, bus } = await startExecutor({ serverUrl: server.url, policy: TRUST_ALL });
    await expect.poll(() => app.registry.loaded, { timeout: 10_000 }).toBe(true);
    expect(await run(bus, 'echo', { message: 'one' })).toMatchObject({ success: true });

    await server.stop();
    server = await startEverythingHttp(port);
    const scope = newScope();
    const recorder = recordEvents(bus, scope.requestId);
    expect(await run(bus, 'echo', { message: 'two' }, scope)).toMatchObject({
      success: true,
      result: 'Echo: two',
    });
    await expect.poll(() => recorder.events.map((e) => e.type)).toContain('tool_result');
    recorder.stop();
    expect(recorder.events.map((e) => e.type)).toEqual(['executing_tool', 'tool_retry', 'tool_result']);
  });
});

describe('stdio servers', () => {
  test('runs server-everything and server-memory side by side: reads, writes once, and reads the writes back', async () => {
    const memoryFile = join(scratch, 'memory.jsonl');
    const { app, bus } = await startExecutor({
      servers: [
        { name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] },
        { name: 'memory', command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile } },
      ],
      policy: ToolPolicy.parse(
        '{"servers": {"everything": {"trustAnnotations": true}}, "tools": [{"match": "*", "tier": 0}]}',
      ),
    });
    await expect.poll(() => app.connections.every((c) => c.connected), { timeout: 15_000 }).toBe(true);
    await expect
      .poll(() => app.registry.list().map((t) => t.name), { timeout: 5_000 })
      .toEqual(
        expect.arrayContaining([...EVERYTHING_TOOLS, 'create_entities', 'read_graph', 'search_nodes']),
      );
    expect(app.registry.get('create_entities')?.isWrite).toBe(true);
    expect(app.registry.get('read_graph')?.isWrite).toBe(false);
    // No accounting group fits these tools: their rows say so with a null group.
    await expect
      .poll(async () => {
        const rows = await db
          .selectFrom('tool_registry')
          .select(['tool_name', 'tool_group', 'is_write'])
          .where('tool_name', 'in', ['echo', 'get-sum', 'create_entities', 'read_graph'])
          .orderBy('tool_name')
          .execute();
        return rows.map((r) => [r.tool_name, r.tool_group, r.is_write]);
      })
      .toEqual([
        ['create_entities', null, true],
        ['echo', null, false],
        ['get-sum', null, false],
        ['read_graph', null, false],
      ]);

    expect(await run(bus, 'get-sum', { a: 1.5, b: 2 })).toMatchObject({
      success: true,
      result: 'The sum of 1.5 and 2 is 3.5.',
    });

    const scope = newScope();
    const entities = [{ name: 'Acme Corp', entityType: 'customer', observations: ['pays late'] }];
    const write = {
      tool: 'create_entities',
      args: { entities },
      callId: `${scope.requestId}:1`,
      isWrite: true,
      argsHash: 'h',
    };
    const created = await bus.request('toolExecute', scope, write, { timeoutMs: 10_000 });
    expect(created).toMatchObject({ success: true, outcome: 'succeeded' });
    const repeated = await bus.request('toolExecute', scope, write, { timeoutMs: 10_000 });
    expect(repeated).toMatchObject({ success: true, replayed: true });
    expect(repeated.result).toEqual(created.result);

    const graph = await run(bus, 'read_graph');
    expect(graph.success).toBe(true);
    const names = JSON.stringify(graph.result).match(/Acme Corp/g) ?? [];
    expect(names).toHaveLength(1);
    const found = await run(bus, 'search_nodes', { query: 'late' });
    expect(JSON.stringify(found.result)).toContain('Acme Corp');
  });
});

describe('servers nobody here wrote, untrusted (their annotations are hints)', () => {
  test("classifies server-everything's and server-memory's tools by their verbs, ignoring an untrusted readOnlyHint", async () => {
    const memoryFile = join(scratch, 'memory-untrusted.jsonl');
    const { app, bus } = await startExecutor({
      servers: [
        { name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] },
        { name: 'memory', command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile } },
      ],
      policy: ToolPolicy.parse('tools:\n  - { match: "open_*", server: memory, access: read }\n'),
    });
    await expect
      .poll(() => app.registry.list().map((t) => t.name), { timeout: 15_000 })
      .toEqual(expect.arrayContaining([...EVERYTHING_TOOLS, 'create_entities', 'open_nodes']));
    const access = (name: string) => app.registry.get(name)?.access;
    // echo is annotated readOnlyHint: true, but nothing says to trust the server: no read verb, a write.
    expect(access('echo')).toMatchObject({ kind: 'write', reason: 'default', tier: 1, server: 'everything' });
    expect(access('echo')?.detail).toContain('readOnlyHint: true ignored');
    expect(access('trigger-long-running-operation')).toMatchObject({ kind: 'write', reason: 'default' });
    expect(access('get-sum')).toMatchObject({ kind: 'read', reason: 'verb', verb: 'get' });
    expect(access('read_graph')).toMatchObject({ kind: 'read', reason: 'verb' });
    expect(access('delete_entities')).toMatchObject({ kind: 'write', tier: 3, destructive: true });
    expect(access('add_observations')).toMatchObject({ kind: 'write', reason: 'verb', tier: 1 });
    expect(access('open_nodes')).toMatchObject({ kind: 'read', reason: 'policy' });

    // A write of an untrusted server is a write whatever the caller claims: not without the user's
    // approval of exactly this call, then exactly once.
    const scope = newScope();
    const call = {
      tool: 'echo',
      args: { message: 'once' },
      callId: `${scope.requestId}:1`,
      isWrite: false,
      argsHash: 'h',
    };
    expect(await bus.request('toolExecute', scope, call, { timeoutMs: 10_000 })).toMatchObject({
      success: false,
      error: { code: 'WRITE_NOT_APPROVED' },
    });
    const approvalId = await approve(db, { scope, ...call });
    const approved = { ...call, approvalId };
    expect(await bus.request('toolExecute', scope, approved, { timeoutMs: 10_000 })).toMatchObject({
      success: true,
      outcome: 'succeeded',
    });
    expect(await bus.request('toolExecute', scope, approved, { timeoutMs: 10_000 })).toMatchObject({
      success: true,
      replayed: true,
    });
    await expect
      .poll(async () =>
        (
          await db
            .selectFrom('tool_registry')
            .select(['tool_name', 'server_name', 'is_write', 'access_reason', 'confirm_tier'])
            .where('tool_name', 'in', ['echo', 'get-sum', 'open_nodes'])
            .orderBy('tool_name')
            .execute()
        ).map((r) => [r.tool_name, r.server_name, r.is_write, r.access_reason, r.confirm_tier]),
      )
      .toEqual([
        ['echo', 'everything', true, 'default', 1],
        ['get-sum', 'everything', false, 'verb', 0],
        ['open_nodes', 'memory', false, 'policy', 0],
      ]);
  });
});
