import type { Bus } from '@munim/bus';
import type { ServiceName } from '@munim/contracts';
import type { Database } from '@munim/db';
import { createLogger } from '@munim/kit';
import { type TestNats, test } from '@munim/testkit';
import { type Kysely, sql } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { type BatchResult, buildLogger, deleteOldEvents, type LoggerApp } from '../src/app.ts';
import { countStored, publishFlow, scopeOf, storedIds, writeFlow } from './support/flows.ts';

let nats: TestNats;
const log = createLogger('logger', 'silent');
const buses = new Map<ServiceName, Bus>();
const bus = (service: ServiceName) => buses.get(service)!;
let db: Kysely<Database>;
const batches: { size: number; requests: number; inserted: number }[] = [];
let app: LoggerApp | undefined;

test.beforeAll(async ({ nats: fileNats, db: fileDb }) => {
  nats = fileNats;
  db = fileDb;
  for (const service of ['gateway', 'router', 'agent', 'validator', 'mcp-executor'] as const) {
    buses.set(service, await nats.bus(service));
  }
});

afterAll(async () => {
  await app?.stop();
});

async function startLogger() {
  app = await buildLogger({
    bus: await nats.bus('logger'),
    log,
    db,
    config: {
      concurrency: 1,
      batchSize: 64,
      onBatch: (result: BatchResult, size: number) =>
        batches.push({
          size,
          requests: new Set(result.stored.map((e) => e.message.requestId)).size,
          inserted: result.inserted,
        }),
    },
  });
  await app.start();
}

describe('batched ingest', () => {
  test('writes a backlog in batches that span requests, each request in stream order', async () => {
    const published = new Map<string, string[]>();
    await Promise.all(
      Array.from({ length: 30 }, async () => {
        const s = scopeOf();
        published.set(s.requestId, await publishFlow(bus, s, writeFlow(s)));
      }),
    );
    await startLogger();
    const ids = [...published.keys()];
    await expect.poll(() => countStored(db, ids), { timeout: 10_000 }).toBe(300);

    expect(batches.reduce((n, b) => n + b.inserted, 0)).toBe(300);
    expect(Math.max(...batches.map((b) => b.size))).toBe(64);
    expect(batches.every((b) => b.size <= 64)).toBe(true);
    expect(Math.max(...batches.map((b) => b.requests))).toBeGreaterThan(1);
    const stored = await storedIds(db, ids);
    for (const [requestId, list] of published) expect(stored.get(requestId)).toEqual(list);
    const statuses = await db
      .selectFrom('query_routing_logs')
      .select('status')
      .where('request_id', 'in', ids)
      .execute();
    expect(statuses.map((s) => s.status)).toEqual(Array(30).fill('answered'));
  });

  test('records implicit feedback on the previous answer of the conversation, once', async () => {
    const conversation = `conv-fb-${Date.now()}`;
    const first = scopeOf(conversation);
    await publishFlow(bus, first, writeFlow(first, 'show overdue invoices for Acme Corp').slice(0, 2));
    await bus('agent').emit(first, writeFlow(first, 'show overdue invoices for Acme Corp').at(-1)!);
    await expect
      .poll(
        async () =>
          (
            await db
              .selectFrom('query_routing_logs')
              .select('status')
              .where('request_id', '=', first.requestId)
              .executeTakeFirst()
          )?.status,
      )
      .toBe('answered');

    const second = scopeOf(conversation);
    const { message } = await bus('router').emit(second, {
      type: 'understanding_started',
      payload: { query: 'record ₹5000 payment from Acme Corp' },
    });
    // The same event again, as a redelivery would bring it.
    await bus('router').js.publish(
      bus('router').subject('requestEvents', { requestId: second.requestId }),
      JSON.stringify(message),
      { msgID: `again-${message.id}` },
    );
    await expect.poll(() => countStored(db, [second.requestId])).toBe(1);
    const feedback = await db
      .selectFrom('feedback_log')
      .selectAll()
      .where('conversation_id', '=', conversation)
      .execute();
    expect(feedback).toHaveLength(1);
    expect(feedback[0]).toMatchObject({
      request_id: first.requestId,
      kind: 'implicit',
      signal: 'action_taken',
      score: 2,
      query: 'show overdue invoices for Acme Corp',
      response: 'Recorded.',
      llm_model: 'gpt-4o-mini',
    });
  });

  test('deletes events older than the retention and keeps the newer ones', async () => {
    const s = scopeOf();
    const ids = await publishFlow(bus, s, writeFlow(s).slice(0, 3));
    await expect.poll(() => countStored(db, [s.requestId])).toBe(3);
    // Ages one stored event. Stored events are immutable (a trigger refuses any change but an
    // earlier seq), so the owner lifts that trigger for this one update, in its own transaction.
    await db.transaction().execute(async (trx) => {
      await sql`alter table request_events disable trigger request_event_guard`.execute(trx);
      await trx
        .updateTable('request_events')
        .set({ ts: new Date(Date.now() - 40 * 86_400_000) })
        .where('id', '=', ids[0]!)
        .execute();
      await sql`alter table request_events enable trigger request_event_guard`.execute(trx);
    });
    expect(await deleteOldEvents(db, 30)).toBe(1);
    expect((await storedIds(db, [s.requestId])).get(s.requestId)).toEqual(ids.slice(1));
    expect(await deleteOldEvents(db, 30)).toBe(0);
  });
});
