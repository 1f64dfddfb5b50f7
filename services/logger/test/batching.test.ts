import type { Bus } from '@munim/bus';
import type { ServiceName } from '@munim/contracts';
import type { Database } from '@munim/db';
import { createLogger } from '@munim/kit';
import { type TestNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterEach, expect } from 'vitest';
import { buildLogger, type LoggerApp } from '../src/app.ts';
import { countStored, publishFlow, scopeOf, storedIds, writeFlow } from './support/flows.ts';

let nats: TestNats;
const buses = new Map<ServiceName, Bus>();
const busOf = (service: ServiceName) => buses.get(service)!;
let db: Kysely<Database>;
let app: LoggerApp | undefined;
let batches: number[] = [];

test.beforeAll(async ({ nats: fileNats, db: fileDb }) => {
  nats = fileNats;
  db = fileDb;
  for (const service of ['gateway', 'router', 'agent', 'validator', 'mcp-executor'] as const)
    buses.set(service, await nats.bus(service));
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
});

async function startLogger(lingerMs: number) {
  batches = [];
  app = await buildLogger({
    bus: await nats.bus('logger'),
    log: createLogger('logger', 'silent'),
    db,
    config: { concurrency: 1, batchSize: 100, lingerMs, onBatch: (_, size) => batches.push(size) },
  });
  await app.start();
}

test('writes events that arrive one by one within the linger in one transaction, in order', async () => {
  // Long enough that a flow published one event at a time, each awaited, ends within it.
  await startLogger(1_500);
  const scope = scopeOf();
  const ids = await publishFlow(busOf, scope, writeFlow(scope));
  await expect.poll(() => countStored(db, [scope.requestId]), { timeout: 10_000 }).toBe(10);
  expect(batches).toEqual([10]);
  expect((await storedIds(db, [scope.requestId])).get(scope.requestId)).toEqual(ids);
});

test('writes a full batch at once, and what is left when it stops, without waiting out the linger', async () => {
  // A linger no test would wait out: only a full batch, or the stop, ends it.
  await startLogger(600_000);
  const scopes = Array.from({ length: 12 }, () => scopeOf());
  const requestIds = scopes.map((s) => s.requestId);
  await Promise.all(scopes.map((s) => publishFlow(busOf, s, writeFlow(s))));
  await expect.poll(() => countStored(db, requestIds), { timeout: 10_000 }).toBe(100);
  expect(batches).toEqual([100]);

  await app?.stop();
  app = undefined;
  expect(await countStored(db, requestIds)).toBe(120);
  expect(batches).toEqual([100, 20]);
});

test('stores each event of a message that carries several, in order, and nothing of a forged one', async () => {
  await startLogger(0);
  const scope = scopeOf();
  const flow = writeFlow(scope);
  const agent = busOf('agent');
  await agent.emit(scope, flow[0]!);
  const { messages } = await agent.emitAll(scope, flow.slice(1, 9));
  await agent.emit(scope, flow[9]!);
  await expect.poll(() => countStored(db, [scope.requestId]), { timeout: 10_000 }).toBe(10);
  const rows = await db
    .selectFrom('request_events')
    .select(['id', 'seq', 'type'])
    .where('request_id', '=', scope.requestId)
    .orderBy('seq')
    .execute();
  expect(rows.map((r) => r.type)).toEqual(flow.map((e) => e.type));
  expect(rows.slice(1, 9).map((r) => r.id)).toEqual(messages.map((m) => m.id));
  expect(new Set(rows.map((r) => Number(r.seq))).size).toBe(10);

  // Two requests in one message: refused whole, the second request's event included.
  const forged = scopeOf();
  const victim = scopeOf();
  const envelope = (s: typeof forged, data: unknown) => ({
    id: crypto.randomUUID(),
    ...s,
    service: 'agent',
    ts: new Date().toISOString(),
    data,
  });
  await agent.js.publish(
    agent.subject('requestEvents', { requestId: forged.requestId }),
    JSON.stringify([
      envelope(forged, { type: 'response_chunk', payload: { text: 'hi' } }),
      envelope(victim, { type: 'complete', payload: flow[9]!.payload }),
    ]),
  );
  await agent.emit(victim, flow[0]!);
  await expect.poll(() => countStored(db, [victim.requestId]), { timeout: 10_000 }).toBe(1);
  // The request the message named first is ended with an error saying why; nothing of it is stored.
  await expect.poll(() => countStored(db, [forged.requestId]), { timeout: 10_000 }).toBe(1);
  const ended = await db
    .selectFrom('request_events')
    .select(['type', 'payload'])
    .where('request_id', '=', forged.requestId)
    .executeTakeFirstOrThrow();
  expect(ended).toMatchObject({ type: 'error', payload: { code: 'MALFORMED_MESSAGE' } });
  expect(JSON.stringify(ended.payload)).toContain('event 2 of 2 is of another request');
  const victimRows = await db
    .selectFrom('request_events')
    .select('type')
    .where('request_id', '=', victim.requestId)
    .execute();
  expect(victimRows.map((r) => r.type)).toEqual(['connected']);
});
