import { TestNats } from '../../packages/bus/src/testing.ts';
import { createDb } from '../../packages/db/src/db.ts';
import { migrateToLatest } from '../../packages/db/src/migrate.ts';
import { createTestDatabase } from '../../packages/db/src/testing.ts';
import { createLogger } from '../../packages/kit/src/index.ts';
import { buildLogger } from '../../services/logger/src/app.ts';
import { scopeOf, writeFlow } from '../../services/logger/test/support/flows.ts';
import type { Suite } from '../run.ts';

const REQUESTS = 2000;
const EVENTS_PER_REQUEST = 10;

/**
 * Ingest rate of the logger (a JetStream backlog of write flows into PostgreSQL: events stored and
 * folded into query_routing_logs, acked after commit) against the raw storage of the same rows
 * in the same run: multi-row inserts in one transaction into a copy of `request_events`, with
 * no fold and no bus (COPY would need pg-copy-streams, not a dependency here).
 */
export const loggerSuite: Suite = {
  name: 'logger-ingest',
  async run() {
    const nats = new TestNats();
    const database = await createTestDatabase();
    const db = createDb(database.url, { max: 8 });
    const log = createLogger('logger', 'silent');
    try {
      await migrateToLatest(db);
      const agent = await nats.bus('agent');
      const scopes = Array.from({ length: REQUESTS }, () => scopeOf());
      for (let i = 0; i < scopes.length; i += 100) {
        await Promise.all(
          scopes.slice(i, i + 100).map(async (s) => {
            for (const event of writeFlow(s)) await agent.emit(s, event);
          }),
        );
      }
      const total = REQUESTS * EVENTS_PER_REQUEST;

      const started = performance.now();
      const app = await buildLogger({
        bus: await nats.bus('logger'),
        log,
        db,
        config: { concurrency: 4, batchSize: 500 },
      });
      await app.start();
      for (;;) {
        const { n } = await db
          .selectFrom('request_events')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        if (Number(n) >= total) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const loggerMs = performance.now() - started;
      await app.stop();

      // The same columns, primary key and index as request_events (kysely is not a dependency of bench/).
      await db.schema
        .createTable('request_events_raw')
        .as(db.selectFrom('request_events').selectAll().where('id', '=', ''))
        .execute();
      await db.schema
        .alterTable('request_events_raw')
        .addPrimaryKeyConstraint('request_events_raw_pkey', ['id'])
        .execute();
      await db.schema
        .createIndex('request_events_raw_request_id_seq_idx')
        .on('request_events_raw')
        .columns(['request_id', 'seq'])
        .execute();
      const rows = await db.selectFrom('request_events').selectAll().execute();
      const rawStarted = performance.now();
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < rows.length; i += 2000) {
          await trx
            .insertInto('request_events_raw' as 'request_events')
            .values(
              rows
                .slice(i, i + 2000)
                .map(({ stored_at: _, ...r }) => ({ ...r, payload: JSON.stringify(r.payload) })),
            )
            .execute();
        }
      });
      const rawMs = performance.now() - rawStarted;

      const loggerRate = total / (loggerMs / 1000);
      const rawRate = total / (rawMs / 1000);
      console.log(`events: ${total} (${REQUESTS} write flows), logger: 4 partitions, batches of up to 500`);
      console.log(`logger ingest (JetStream → PostgreSQL, folded, acked): ${loggerRate.toFixed(0)} events/s`);
      console.log(`raw multi-row insert of the same rows:                ${rawRate.toFixed(0)} events/s`);
      console.log(`ratio: ${(loggerRate / rawRate).toFixed(2)}× (goal ≥ 0.3×)`);
    } finally {
      await nats.cleanup();
      await db.destroy();
      await database.drop();
    }
  },
};
