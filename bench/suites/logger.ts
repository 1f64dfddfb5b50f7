import type { EventLoopUtilization } from 'node:perf_hooks';
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
/** Flows the logger works through before the clock starts, in the same run and database. */
const WARM_UP_REQUESTS = 200;
const COPIES = 3;
/** The service's defaults unless BENCH_LOGGER_PARTITIONS / BENCH_LOGGER_BATCH say otherwise. */
// (From the fields: the schema's cross-field checks forbid pick().)
const defaults = {
  LOGGER_CONCURRENCY: EnvSchema.shape.LOGGER_CONCURRENCY.parse(undefined),
  LOGGER_BATCH_SIZE: EnvSchema.shape.LOGGER_BATCH_SIZE.parse(undefined),
};
const PARTITIONS = Number(process.env.BENCH_LOGGER_PARTITIONS ?? defaults.LOGGER_CONCURRENCY);
const BATCH = Number(process.env.BENCH_LOGGER_BATCH ?? defaults.LOGGER_BATCH_SIZE);

/** COPY's text format: backslash, tab, newline and carriage return escaped. */
const copyText = (value: string) =>
  value.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c] ?? c);

/**
 * One logger in this process working through the backlog: timed from the commit that makes the
 * last warm-up request final (its connections open, its plans and PostgreSQL's caches warm, as in
 * a running service) to the commit that makes every request final; the events committed in
 * between count.
 */
async function inProcess(
  nats: TestNats,
  db: ReturnType<typeof createDb>,
  warmUp: ReadonlySet<string>,
): Promise<{ events: number; ms: number; busy: number }> {
  // Counted from the logger's own commits: polling the database would compete with it.
  let finished = 0;
  let warmFinished = 0;
  let committed = 0;
  let clock: { at: number; committed: number; elu: EventLoopUtilization } | undefined;
  let done: () => void = () => {};
  const allFinal = new Promise<void>((resolve) => {
    done = resolve;
  });
  const app = await buildLogger({
    bus: await nats.bus('logger'),
    log: createLogger('logger', 'silent'),
    db,
    config: {
      concurrency: PARTITIONS,
      batchSize: BATCH,
      onBatch: (result, size) => {
        committed += size;
        for (const e of result.stored) {
          if (e.message.data.type !== 'complete') continue;
          finished += 1;
          if (warmUp.has(e.message.requestId)) warmFinished += 1;
        }
        if (!clock && warmFinished >= warmUp.size) {
          clock = { at: performance.now(), committed, elu: performance.eventLoopUtilization() };
        }
        if (finished >= warmUp.size + REQUESTS) done();
      },
    },
  });
  await app.start();
  await allFinal;
  const end = performance.now();
  if (!clock) throw new Error('the warm-up never finished');
  const busy = performance.eventLoopUtilization(clock.elu).utilization;
  await app.stop();
  return { events: committed - clock.committed, ms: end - clock.at, busy };
}

/** Events per second of one logger ingest and of COPYs of the same rows (their median), in a fresh database. */
async function round(): Promise<{ logger: number; copy: number; busy: number }> {
  const nats = new TestNats();
  const database = await createTestDatabase();
  const db = createDb(database.url, { max: PARTITIONS + 2 });
  try {
    await migrateToLatest(db);
    const agent = await nats.bus('agent');
    const warmScopes = Array.from({ length: WARM_UP_REQUESTS }, () => scopeOf());
    const scopes = Array.from({ length: REQUESTS }, () => scopeOf());
    // The warm-up's flows first in the stream, then the backlog.
    for (const batch of [warmScopes, scopes]) {
      for (let i = 0; i < batch.length; i += 100) {
        await Promise.all(
          batch.slice(i, i + 100).map(async (s) => {
            for (const event of writeFlow(s)) await agent.emit(s, event);
          }),
        );
      }
    }
    const warmUp = new Set(warmScopes.map((s) => s.requestId));
    const ingest = await inProcess(nats, db, warmUp);

    // The same rows, for tables exactly like request_events (columns, keys, every index).
    const stored = await db.selectFrom('request_events').selectAll().orderBy('seq').execute();
    const expected = TOTAL + WARM_UP_REQUESTS * EVENTS_PER_REQUEST;
    if (stored.length !== expected)
      throw new Error(`the logger stored ${stored.length} of ${expected} events`);
    const rows = stored.filter((r) => !warmUp.has(r.request_id));
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
    return {
      logger: ingest.events / (ingest.ms / 1000),
      copy: TOTAL / (copyMs / 1000),
      busy: ingest.busy,
    };
  } finally {
    await nats.cleanup();
    await db.destroy();
    await database.drop();
  }
}

/**
 * Ingest rate of a running logger (a JetStream backlog of write flows into PostgreSQL: events
 * stored, folded into query_routing_logs until every request's row is final, acked after commit),
 * after a warm-up backlog in the same database, against a raw COPY of the same rows over a
 * connection that is open and has created its table, in one transaction, into a table exactly
 * like `request_events` — no fold, no bus; the median of three COPYs per round. Rounds alternate
 * the two, each in a fresh database; the median ratio counts.
 */
export const loggerSuite: Suite = {
  name: 'logger-ingest',
  async run() {
    console.log(
      `events: ${TOTAL} (${REQUESTS} write flows) per round after a warm-up of ${WARM_UP_REQUESTS} flows; ` +
        `logger: ${PARTITIONS} partitions, batches of up to ${BATCH}`,
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
