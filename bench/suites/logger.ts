import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { TestNats } from '../../packages/bus/src/testing.ts';
import { createDb } from '../../packages/db/src/db.ts';
import { migrateToLatest } from '../../packages/db/src/migrate.ts';
import { createTestDatabase } from '../../packages/db/src/testing.ts';
import { createLogger } from '../../packages/kit/src/index.ts';
import { buildLogger } from '../../services/logger/src/app.ts';
import { EnvSchema } from '../../services/logger/src/env.ts';
import { scopeOf, writeFlow } from '../../services/logger/test/support/flows.ts';
import type { Suite } from '../run.ts';
import { percentile } from '../stats.ts';

const REQUESTS = 2000;
const EVENTS_PER_REQUEST = 10;
const TOTAL = REQUESTS * EVENTS_PER_REQUEST;
const ROUNDS = 5;
const COPIES = 3;
/** The service's defaults unless BENCH_LOGGER_PARTITIONS / BENCH_LOGGER_BATCH say otherwise. */
const defaults = EnvSchema.pick({ LOGGER_CONCURRENCY: true, LOGGER_BATCH_SIZE: true }).parse({});
const PARTITIONS = Number(process.env.BENCH_LOGGER_PARTITIONS ?? defaults.LOGGER_CONCURRENCY);
const BATCH = Number(process.env.BENCH_LOGGER_BATCH ?? defaults.LOGGER_BATCH_SIZE);

/** COPY's text format: backslash, tab, newline and carriage return escaped. */
const copyText = (value: string) =>
  value.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c] ?? c);

/** One logger in this process: timed from its start to the commit that makes every request final. */
async function inProcess(
  nats: TestNats,
  db: ReturnType<typeof createDb>,
): Promise<{ ms: number; busy: number }> {
  // Counted from the logger's own commits: polling the database would compete with it.
  let finished = 0;
  let done: () => void = () => {};
  const allFinal = new Promise<void>((resolve) => {
    done = resolve;
  });
  const elu = performance.eventLoopUtilization();
  const started = performance.now();
  const app = await buildLogger({
    bus: await nats.bus('logger'),
    log: createLogger('logger', 'silent'),
    db,
    config: {
      concurrency: PARTITIONS,
      batchSize: BATCH,
      onBatch: (result) => {
        finished += result.stored.filter((e) => e.message.data.type === 'complete').length;
        if (finished >= REQUESTS) done();
      },
    },
  });
  await app.start();
  await allFinal;
  const ms = performance.now() - started;
  const busy = performance.eventLoopUtilization(elu).utilization;
  await app.stop();
  return { ms, busy };
}

/** Events per second of one logger ingest and of COPYs of the same rows (their median), in a fresh database. */
async function round(): Promise<{ logger: number; copy: number; busy: number }> {
  const nats = new TestNats();
  const database = await createTestDatabase();
  const db = createDb(database.url, { max: PARTITIONS + 2 });
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
    const ingest = await inProcess(nats, db);

    // The same rows, for tables exactly like request_events (columns, keys, every index).
    const rows = await db.selectFrom('request_events').selectAll().orderBy('seq').execute();
    if (rows.length !== TOTAL) throw new Error(`the logger stored ${rows.length} of ${TOTAL} events`);
    const text = rows
      .map((r) =>
        [r.id, r.request_id, r.seq, r.type, r.service, r.conversation_id, r.entity_id, r.org_id]
          .concat([JSON.stringify(r.payload), r.ts.toISOString(), r.stored_at.toISOString()])
          .map((v) => copyText(String(v)))
          .join('\t'),
      )
      .join('\n');
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const copies: number[] = [];
    try {
      // The median of three COPYs, each into a table of its own: one COPY takes a few hundred ms,
      // so a checkpoint or autovacuum landing in it would otherwise swing the anchor.
      for (let c = 1; c <= COPIES; c += 1) {
        const table = `request_events_raw_${c}`;
        await client.query(`create table ${table} (like request_events including all)`);
        const copyStarted = performance.now();
        await client.query('begin');
        await pipeline(Readable.from([`${text}\n`]), client.query(copyFrom(`copy ${table} from stdin`)));
        await client.query('commit');
        copies.push(performance.now() - copyStarted);
        const { rows: counted } = await client.query(`select count(*)::int as n from ${table}`);
        if (counted[0]?.n !== TOTAL) throw new Error(`COPY stored ${counted[0]?.n} of ${TOTAL} rows`);
      }
    } finally {
      await client.end();
    }
    const copyMs = percentile(copies, 50);
    return { logger: TOTAL / (ingest.ms / 1000), copy: TOTAL / (copyMs / 1000), busy: ingest.busy };
  } finally {
    await nats.cleanup();
    await db.destroy();
    await database.drop();
  }
}

/**
 * Ingest rate of the logger (a JetStream backlog of write flows into PostgreSQL: events stored,
 * folded into query_routing_logs until every request's row is final, acked after commit) against
 * a raw COPY of the same rows, in one transaction, into a table exactly like `request_events` —
 * no fold, no bus; the median of three COPYs per round. Rounds alternate the two, each in a fresh
 * database; the median ratio counts.
 */
export const loggerSuite: Suite = {
  name: 'logger-ingest',
  async run() {
    console.log(
      `events: ${TOTAL} (${REQUESTS} write flows) per round; logger: ${PARTITIONS} partitions, batches of up to ${BATCH}`,
    );
    // A first round warms up the JIT and PostgreSQL's caches; it is reported, not counted.
    const warm = await round();
    console.log(
      `warm-up: logger ${warm.logger.toFixed(0)} events/s, COPY ${warm.copy.toFixed(0)} events/s (not counted)`,
    );
    const ratios: number[] = [];
    for (let r = 1; r <= ROUNDS; r += 1) {
      const { logger, copy, busy } = await round();
      ratios.push(logger / copy);
      console.log(
        `round ${r}: logger ${logger.toFixed(0)} events/s (event loop ${(busy * 100).toFixed(0)} % busy), ` +
          `COPY ${copy.toFixed(0)} events/s: ${(logger / copy).toFixed(2)}×`,
      );
    }
    console.log(`ratio (median of ${ROUNDS} rounds): ${percentile(ratios, 50).toFixed(2)}× (goal ≥ 0.3×)`);
  },
};
