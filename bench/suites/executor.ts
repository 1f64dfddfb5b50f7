import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createDb, migrateToLatest } from '@munim/db';
import { createTestDatabase } from '@munim/db/testing';
import { freePort } from '@munim/testkit/ports';
import { newScope, TestNats } from '../../packages/bus/src/testing.ts';
import { createLogger } from '../../packages/kit/src/index.ts';
import { buildMcpExecutor, McpConnection, ToolPolicy } from '../../services/mcp-executor/src/app.ts';
import type { Suite } from '../run.ts';
import { percentile, report, sample } from '../stats.ts';

const RUNS = 500;
const WARMUP = 500;
const ROUNDS = 7;
const BLOCK = 200;

const fromExecutor = createRequire(new URL('../../services/mcp-executor/package.json', import.meta.url));
const EVERYTHING = join(
  dirname(fromExecutor.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** The reference server, in its own process so its memory is not counted as ours. */
async function startEverything(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const deadline = Date.now() + 15_000;
  while (!stderr.includes('listening')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server-everything: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return child;
}

function heapAfterGc(): number {
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/**
 * MCP executor overhead: a read through NATS → executor → MCP `tools/call` → reply, against a
 * bare SDK client call of the same tool on the same server in the same run; the same for a write
 * (idempotency store in PostgreSQL); and the heap after 10,000 calls against after 1,000.
 */
export const executorSuite: Suite = {
  name: 'executor',
  async run() {
    setFlagsFromString('--expose-gc');
    const port = await freePort();
    const server = await startEverything(port);
    const url = `http://127.0.0.1:${port}/mcp`;
    const database = await createTestDatabase();
    const db = createDb(database.url, { max: 4 });
    await migrateToLatest(db);
    const nats = new TestNats();
    const log = createLogger('bench', 'silent');
    const bare = new McpConnection({ url, log, pingIntervalMs: 0 });
    bare.start();
    const app = await buildMcpExecutor({
      bus: await nats.bus('mcp-executor'),
      log,
      db,
      config: {
        serverUrl: url,
        readTimeoutMs: 10_000,
        writeTimeoutMs: 10_000,
        resultMaxChars: 50_000,
        pingIntervalMs: 0,
        // server-everything annotates echo readOnlyHint: true; trusted here, so echo is a read.
        policy: ToolPolicy.parse('servers: { mcp: { trustAnnotations: true } }'),
      },
    });
    try {
      await app.start();
      const bus = await nats.bus('agent');
      const client = await bare.client(10_000);
      if (!client) throw new Error('bare client did not connect');
      while (!app.registry.loaded) await new Promise((resolve) => setTimeout(resolve, 20));
      // server-everything's echo is a read; marking the call a write sends it through the idempotency store.
      const args = { message: 'bench' };
      const scope = newScope();
      let n = 0;
      const viaExecutor = async (isWrite: boolean) => {
        n += 1;
        const reply = await bus.request(
          'toolExecute',
          scope,
          { tool: 'echo', args, callId: `${scope.requestId}:${n}`, isWrite, argsHash: 'h' },
          { timeoutMs: 10_000 },
        );
        if (!reply.success) throw new Error(`echo failed: ${reply.error?.message}`);
      };
      const bareCall = async () => {
        await client.callTool({ name: 'echo', arguments: args }, undefined, { timeout: 10_000 });
      };

      // Where the overhead goes: one NATS request/reply round trip and one JetStream event (both per call).
      const echoSubject = `${nats.prefix}.bench.echo`;
      const echo = bus.nc.subscribe(echoSubject, { callback: (_e, m) => void m.respond(m.data) });
      const natsMs = await sample(
        RUNS,
        async () => void (await bus.nc.request(echoSubject, 'x', { timeout: 5_000 })),
        50,
      );
      echo.unsubscribe();
      const eventScope = newScope();
      const emitMs = await sample(
        RUNS,
        async () => void (await bus.emit(eventScope, { type: 'response_chunk', payload: { text: 'x' } })),
        50,
      );

      // Warm-up to steady state (a long-running service's JIT-compiled paths), then rounds of a
      // bare block and an executor block back to back, in alternating order, so drift of this
      // shared machine falls on both alike. Calls are not interleaved one by one: two clients
      // alternating on one server make each call cost both sides more than either costs alone.
      for (let i = 0; i < WARMUP; i++) {
        await bareCall();
        await viaExecutor(false);
      }
      const bareMs: number[] = [];
      const readMs: number[] = [];
      const roundOverheads: number[] = [];
      const block = async (fn: () => Promise<void>, into: number[]) => {
        const ms = await sample(BLOCK, fn, 0);
        into.push(...ms);
        return percentile(ms, 50);
      };
      for (let round = 0; round < ROUNDS; round++) {
        let bareP50: number;
        let readP50: number;
        if (round % 2 === 0) {
          bareP50 = await block(bareCall, bareMs);
          readP50 = await block(() => viaExecutor(false), readMs);
        } else {
          readP50 = await block(() => viaExecutor(false), readMs);
          bareP50 = await block(bareCall, bareMs);
        }
        roundOverheads.push(readP50 - bareP50);
      }
      const writeMs = await sample(RUNS, () => viaExecutor(true), 100);
      const anchorMs = percentile(bareMs, 50);
      report([
        { name: 'bare SDK client tools/call (echo)', ms: bareMs },
        { name: 'executor read (NATS → MCP → reply)', ms: readMs, anchorMs },
        { name: 'executor write (+ idempotency store)', ms: writeMs, anchorMs },
        { name: 'part: bare NATS request/reply', ms: natsMs, anchorMs },
        { name: 'part: one JetStream event (bus.emit)', ms: emitMs, anchorMs },
      ]);
      const readOverhead = percentile(roundOverheads, 50);
      const writeOverhead = percentile(writeMs, 50) - anchorMs;
      console.log(
        `overhead p50 (median of ${ROUNDS} rounds' executor p50 − bare p50; rounds: ` +
          `${roundOverheads.map((ms) => ms.toFixed(2)).join(', ')}): ` +
          `read ${readOverhead.toFixed(3)} ms (goal ≤ 1 ms: ${readOverhead <= 1 ? 'met' : 'NOT met'}), ` +
          `write ${writeOverhead.toFixed(3)} ms (against the pooled bare p50)`,
      );

      // Heap: the calls above were the warm-up; count from here.
      for (let i = 0; i < 1_000; i++) await viaExecutor(false);
      const at1k = heapAfterGc();
      for (let i = 0; i < 9_000; i++) await viaExecutor(false);
      const at10k = heapAfterGc();
      const growth = ((at10k - at1k) / at1k) * 100;
      console.log(
        `heap after 1,000 calls ${(at1k / 1e6).toFixed(1)} MB, after 10,000 ${(at10k / 1e6).toFixed(1)} MB: ` +
          `${growth >= 0 ? '+' : ''}${growth.toFixed(1)} % (goal ≤ 10 %: ${growth <= 10 ? 'met' : 'NOT met'})`,
      );
    } finally {
      await app.stop();
      await bare.stop();
      await nats.cleanup();
      await db.destroy();
      await database.drop();
      const exited = once(server, 'exit');
      server.kill('SIGKILL');
      await exited;
    }
  },
};
