// The first command always works. A fresh clone of this repository, `npm start` with
// nothing configured (no DATABASE_URL, no MCP server, no model), from an empty .data/, five times
// in a row (stop, wipe, start), then warm starts (data kept): each reaches ready and answers the
// fast path. Ports and the subject prefix are set only so this test cannot collide with others.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isListening } from '@munim/devstack';
import { freePort, test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask } from '../support/sse.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const COLD = 5;
const WARM = 3;

let clone: string;
let env: NodeJS.ProcessEnv;
let gatewayUrl: string;
let pgPort: number;

test.beforeAll(async ({ nats }) => {
  clone = await mkdtemp(join(tmpdir(), 'munim-clone-'));
  // As a clone in any home directory: when this runs as root, PostgreSQL's own user must get in.
  await chmod(clone, 0o755);
  execFileSync('git', ['clone', '--quiet', ROOT, clone]);
  const [port, books, pg] = [await freePort(), await freePort(), await freePort()];
  gatewayUrl = `http://127.0.0.1:${port}`;
  pgPort = pg;
  const {
    DATABASE_URL: _d,
    MCP_SERVER_URL: _m,
    OPENAI_BASE_URL: _o,
    OPENAI_API_KEY: _k,
    LLM_MODEL: _l,
    ...rest
  } = process.env;
  env = {
    ...rest,
    PORT: String(port),
    DEMO_BOOKS_PORT: String(books),
    EMBEDDED_PG_PORT: String(pg),
    NATS_PREFIX: nats.prefix,
    LOG_LEVEL: 'warn',
  };
}, 120_000);

afterAll(async () => {
  await rm(clone, { recursive: true, force: true });
});

/** `npm start` in the clone until it says it is ready; the ms it took and the process. */
async function start(): Promise<{ ms: number; child: ChildProcess; output: string[] }> {
  const began = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: clone,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output: string[] = [];
  const ready = new Promise<void>((done, fail) => {
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.join('').includes('munim: ready')) done();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) =>
      fail(new Error(`npm start exited (${code}) before ready:\n${output.join('').slice(-3000)}`)),
    );
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
  try {
    await ready;
  } finally {
    clearTimeout(timer);
  }
  return { ms: performance.now() - began, child, output };
}

/** Ctrl-C, as a person stops it: the whole process group, and wait until every process is gone. */
async function stop(child: ChildProcess): Promise<void> {
  const group = -(child.pid as number);
  const exited = once(child, 'exit');
  process.kill(group, 'SIGINT');
  const deadline = Date.now() + 30_000;
  await exited;
  // npm may be gone before the processes under it (PostgreSQL finishing its shutdown, say): the
  // next start, or a wipe of .data, waits for the last of the group.
  while (inGroup(group)) {
    if (Date.now() > deadline) process.kill(group, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * What a Ctrl-C may not bring: the database stopping before the services have written their last
 * work to it (the logger's batch handed back, the executor's usage counts lost).
 */
const LOST_AT_STOP = /database system is shutting down|handed back|could not store/;

/** After a Ctrl-C: the services stopped before their database, and the database stopped too. */
async function stoppedInOrder(output: string[]): Promise<void> {
  const text = output.join('');
  expect(text).toContain('munim: stopping');
  expect(text).not.toMatch(LOST_AT_STOP);
  expect(await isListening('127.0.0.1', pgPort)).toBe(false);
}

/** Whether any process of the group is still there. */
function inGroup(group: number): boolean {
  try {
    process.kill(group, 0);
    return true;
  } catch {
    return false;
  }
}

/** Asks as a tenant of its own each time: a warm start's database holds the last one's cached answer. */
async function answersTheFastPath(): Promise<void> {
  const { status, events } = await ask(gatewayUrl, {
    query: 'show all invoices',
    entityId: `demo-${randomUUID().slice(0, 8)}`,
    orgId: 'demo',
  });
  expect(status).toBe(200);
  expect(events.find((e) => e.event === 'route_classified')?.data).toMatchObject({ path: 'fast' });
  expect(events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
}

describe('npm start on a fresh clone, nothing configured', () => {
  test(`starts cold ${COLD} times from an empty .data/, then warm ${WARM} times, answering each time`, async () => {
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < COLD; i += 1) {
      await rm(join(clone, '.data'), { recursive: true, force: true });
      const run = await start();
      cold.push(run.ms);
      try {
        expect(run.output.join('')).toContain('embedded PostgreSQL at 127.0.0.1');
        await answersTheFastPath();
      } finally {
        await stop(run.child);
      }
      await stoppedInOrder(run.output);
    }
    for (let i = 0; i < WARM; i += 1) {
      const run = await start();
      warm.push(run.ms);
      try {
        await answersTheFastPath();
      } finally {
        await stop(run.child);
      }
      await stoppedInOrder(run.output);
    }
    const secs = (ms: number[]) => ms.map((m) => (m / 1000).toFixed(1)).join(', ');
    // The first cold start includes installing dependencies into the clone.
    console.log(`cold starts (s): ${secs(cold)}; warm starts (s): ${secs(warm)}`);
  }, 1_500_000);
});
