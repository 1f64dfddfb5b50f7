import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Bus } from '@munim/bus';
import type { RequestScope, ServiceName } from '@munim/contracts';
import { createDb, type Database } from '@munim/db';
import { serviceLoginUrl } from '@munim/db/testing';
import { createLogger } from '@munim/kit';
import { type TestDatabase, type TestNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { buildLogger, LOGGER_DURABLE, type LoggerApp } from '../src/app.ts';
import { countStored, publishFlow, scopeOf, storedIds, writeFlow } from './support/flows.ts';
import { startProxy, type TcpProxy } from './support/proxy.ts';

let nats: TestNats;
const log = createLogger('logger', 'silent');
const buses = new Map<ServiceName, Bus>();
const bus = (service: ServiceName) => buses.get(service)!;
let testDb: TestDatabase;
let db: Kysely<Database>;
let proxy: TcpProxy;
const children: ChildProcess[] = [];

test.beforeAll(async ({ nats: fileNats, database, db: fileDb }) => {
  nats = fileNats;
  testDb = database;
  db = fileDb;
  for (const service of ['gateway', 'router', 'agent', 'validator', 'mcp-executor'] as const) {
    buses.set(service, await nats.bus(service));
  }
  proxy = await startProxy('127.0.0.1', Number(new URL(testDb.url).port || 5432));
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await proxy?.close();
});

async function consumerInfo() {
  return bus('gateway').jsm.consumers.info(bus('gateway').streamName('events'), LOGGER_DURABLE);
}

/** Publishes `count` write flows, `parallel` requests at a time; resolves to each request's ids. */
async function load(count: number, parallel: number) {
  const published = new Map<string, string[]>();
  const scopes: RequestScope[] = Array.from({ length: count }, () => scopeOf());
  for (let i = 0; i < scopes.length; i += parallel) {
    await Promise.all(
      scopes.slice(i, i + parallel).map(async (s) => {
        published.set(s.requestId, await publishFlow(bus, s, writeFlow(s)));
      }),
    );
  }
  return published;
}

/** Every published event is stored exactly once, in stream order per request, and folded. */
async function expectAllStored(published: Map<string, string[]>) {
  const ids = [...published.keys()];
  const total = [...published.values()].reduce((n, list) => n + list.length, 0);
  await expect.poll(() => countStored(db, ids), { timeout: 20_000, interval: 100 }).toBe(total);
  await expect
    .poll(
      async () => {
        const info = await consumerInfo();
        return info.num_pending + info.num_ack_pending;
      },
      { timeout: 15_000, interval: 100 },
    )
    .toBe(0);
  expect(await countStored(db, ids)).toBe(total);
  const stored = await storedIds(db, ids);
  for (const [requestId, list] of published) expect(stored.get(requestId)).toEqual(list);
  const rows = await db.selectFrom('query_routing_logs').selectAll().where('request_id', 'in', ids).execute();
  expect(rows).toHaveLength(published.size);
  for (const row of rows) {
    expect(row.status).toBe('answered');
    expect(row.write_tool_results.map((w) => [w.validation_status, w.mcp_result])).toEqual([
      ['blocked', null],
      ['passed', { success: true }],
    ]);
    expect(row.tools_used).toEqual(['get_all_invoices', 'create_payment']);
  }
}

describe('logger outages', () => {
  test('holds every event while PostgreSQL is unreachable and stores them all when it is back', async () => {
    const url = new URL(testDb.url);
    url.port = String(proxy.port);
    const viaProxy = createDb(url.toString(), { max: 6, connectionTimeoutMs: 1000 });
    let app: LoggerApp | undefined;
    try {
      app = await buildLogger({
        bus: await nats.bus('logger'),
        log,
        db: viaProxy,
        config: { concurrency: 4, batchSize: 100, ackWaitMs: 1500 },
      });
      await app.start();

      const before = await load(30, 10);
      const during = load(60, 10);
      // Cut while the load is running, so batches are in flight.
      await expect
        .poll(() => countStored(db, [...before.keys()]), { timeout: 10_000, interval: 20 })
        .toBeGreaterThan(0);
      proxy.cut();
      const duringIds = await during;
      await new Promise((r) => setTimeout(r, 500));
      const ackFloorAtCut = (await consumerInfo()).ack_floor.stream_seq;
      const storedAtCut = await countStored(db, [...before.keys(), ...duringIds.keys()]);
      // Longer than the ack wait: the logger must keep the events it holds alive, not lose or re-fetch them.
      await new Promise((r) => setTimeout(r, 4000));
      const held = await consumerInfo();
      expect(held.ack_floor.stream_seq).toBe(ackFloorAtCut);
      expect(held.num_ack_pending + held.num_pending).toBeGreaterThan(0);
      expect(await countStored(db, [...before.keys(), ...duringIds.keys()])).toBe(storedAtCut);
      expect(storedAtCut).toBeLessThan(900);

      proxy.restore();
      const after = await load(20, 10);
      await expectAllStored(new Map([...before, ...duringIds, ...after]));
    } finally {
      await app?.stop();
      await viaProxy.destroy();
    }
  }, 60_000);

  test('loses nothing when the logger process is killed with kill -9 under load', async () => {
    const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
    // As deployed: the logger's own role (it refuses a superuser login).
    const loggerUrl = await serviceLoginUrl(testDb, 'logger');
    const startChild = async () => {
      const child = spawn(process.execPath, [main], {
        env: {
          ...process.env,
          DATABASE_URL: loggerUrl,
          NATS_PREFIX: nats.prefix,
          LOGGER_ACK_WAIT_MS: '1500',
          LOGGER_BATCH_SIZE: '50',
          LOGGER_CONCURRENCY: '2',
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let output = '';
      await new Promise<void>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('"msg":"ready"')) resolve();
        };
        child.stdout?.on('data', onData);
        child.stderr?.on('data', onData);
        child.on('exit', (code) => reject(new Error(`logger exited with ${code}: ${output}`)));
      });
      return child;
    };

    const first = await startChild();
    const published = new Map<string, string[]>();
    let publishing = true;
    const producer = (async () => {
      while (publishing) for (const [k, v] of await load(10, 10)) published.set(k, v);
    })();
    await expect
      .poll(() => countStored(db, [...published.keys()]), { timeout: 15_000, interval: 10 })
      .toBeGreaterThan(300);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    expect(first.signalCode).toBe('SIGKILL');
    // Events published while no logger runs wait in JetStream.
    for (const [k, v] of await load(20, 10)) published.set(k, v);
    publishing = false;
    await producer;

    const second = await startChild();
    await expectAllStored(published);
    second.kill('SIGTERM');
    await new Promise((resolve) => second.once('exit', resolve));
  }, 60_000);
});
