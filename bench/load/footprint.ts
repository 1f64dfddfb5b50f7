/**
 * What a run of the system cost NATS and PostgreSQL beyond CPU and the statements and messages
 * `counts.ts` counts, for sizing them: the bytes the EVENTS stream stored, the database's rows and
 * WAL, its connections per login, and what the NATS server wrote to storage (/proc/<pid>/io). Read
 * once before the load and once after the logger has stored every event; the difference is the run's.
 */
import { readFileSync } from 'node:fs';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';

export interface Footprint {
  /** Answers of the whole run (warm-up and drain included), which the figures are to be divided by. */
  answers: number;
  /** What the EVENTS stream stored (it keeps every event for its age limit): messages and bytes. */
  events: { messages: number; bytes: number };
  /** The system's database: transactions committed (one per statement outside a transaction) and rows. */
  database: { commits: number; inserted: number; updated: number; deleted: number; returned: number };
  /** The most connections to the system's database open at once during the run, by login (one per service role). */
  connections: Record<string, number>;
  /** The logger's tables at the end (the database is the run's own): rows, and bytes with indexes and TOAST. */
  tables: Record<(typeof TABLES)[number], { rows: number; bytes: number }>;
  /** The whole PostgreSQL server's WAL (other databases on it included). */
  wal: { records: number; bytes: number };
  /** Write calls and bytes sent to storage by the NATS server (its JetStream files). */
  io: { nats: Io | null };
}

type Io = { writeCalls: number; writeBytes: number };

type Counters = Omit<Footprint, 'answers' | 'connections' | 'tables'>;

const TABLES = ['request_events', 'query_routing_logs'] as const;

/** Write calls and storage bytes of a process (from /proc/<pid>/io: root or the same user). */
function ioOf(pid: number): Io | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/io`, 'utf8');
  } catch {
    return null;
  }
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { writeCalls: field('syscw'), writeBytes: field('write_bytes') };
}

const less = <T extends Record<string, number>>(a: T, b: T) =>
  Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v - (b[k] ?? 0)])) as T;

/** PostgreSQL's idle backends report their statistics within ten seconds: quiet longer than that, within a bound. */
const SETTLE_QUIET_MS = 11_000;
const SETTLE_MAX_MS = 40_000;

/** How often the connections are counted. */
const CONNECTIONS_POLL_MS = 250;

interface Where {
  natsUrl: string;
  prefix: string;
  databaseUrl: string;
  databaseName: string;
  /** The NATS server's process, when it runs on this machine. */
  natsPid: number | undefined;
}

/** The system's footprint between `start()` and `read()`. */
export class FootprintMeter {
  readonly #opts: Where;
  #before: Counters | undefined;
  readonly #peaks: Record<string, number> = {};
  #watch: { client: pg.Client; timer: NodeJS.Timeout; polling: Promise<void> } | undefined;

  constructor(opts: Where) {
    this.#opts = opts;
  }

  async start(): Promise<void> {
    this.#before = await this.#counters();
    const client = new pg.Client({ connectionString: this.#opts.databaseUrl });
    await client.connect();
    const watch = {
      client,
      timer: setInterval(() => poll(), CONNECTIONS_POLL_MS),
      polling: Promise.resolve(),
    };
    const poll = () => {
      watch.polling = watch.polling.then(() => this.#countConnections(client)).catch(() => {});
    };
    this.#watch = watch;
    poll();
  }

  /** Connections of the services' logins (not the bench's own) now, kept where they are the most yet. */
  async #countConnections(client: pg.Client): Promise<void> {
    const res = await client.query<{ usename: string; n: string }>(
      `select usename, count(*) as n from pg_stat_activity
        where datname = $1 and usename <> current_user group by usename`,
      [this.#opts.databaseName],
    );
    for (const { usename, n } of res.rows)
      this.#peaks[usename] = Math.max(this.#peaks[usename] ?? 0, Number(n));
  }

  /** The run's footprint, of its `answers`: the counters now (once the database's statistics settle) less those at `start()`. */
  async read(answers: number): Promise<Footprint> {
    const before = this.#before;
    if (!before) throw new Error('the footprint meter was never started');
    const watch = this.#watch;
    if (watch) {
      clearInterval(watch.timer);
      await watch.polling;
      await watch.client.end();
    }
    const after = await this.#settled();
    const tables = await this.#query(async (client) => {
      const out = {} as Footprint['tables'];
      for (const table of TABLES) {
        const res = await client.query<{ rows: string; bytes: string }>(
          `select count(*) as rows, pg_total_relation_size($1::regclass) as bytes from ${table}`,
          [table],
        );
        out[table] = { rows: Number(res.rows[0]?.rows), bytes: Number(res.rows[0]?.bytes) };
      }
      return out;
    });
    const { nats } = after.io;
    return {
      answers,
      events: less(after.events, before.events),
      database: less(after.database, before.database),
      connections: { ...this.#peaks },
      tables,
      wal: less(after.wal, before.wal),
      io: { nats: nats && before.io.nats ? less(nats, before.io.nats) : null },
    };
  }

  /**
   * The counters once the rows the run wrote are all counted. A backend that goes idle within a
   * second of reporting its statistics reports the rest up to ten seconds later, so the rows must
   * stay the same for longer than that. (Commits go on after the load: services poll the database.)
   */
  async #settled(): Promise<Counters> {
    const written = (c: Counters) => c.database.inserted + c.database.updated + c.database.deleted;
    let last = await this.#counters();
    let since = performance.now();
    const deadline = since + SETTLE_MAX_MS;
    while (performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1_000));
      const now = await this.#counters();
      if (written(now) !== written(last)) since = performance.now();
      else if (performance.now() - since > SETTLE_QUIET_MS) return now;
      last = now;
    }
    return last;
  }

  async #query<T>(body: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.#opts.databaseUrl });
    await client.connect();
    try {
      return await body(client);
    } finally {
      await client.end();
    }
  }

  async #counters(): Promise<Counters> {
    const { natsUrl, prefix, databaseName, natsPid } = this.#opts;
    const nc = await connect({ servers: natsUrl.split(',').map((s) => s.trim()) });
    const events = await jetstreamManager(nc)
      .then((jsm) => jsm.streams.info(`${prefix.toUpperCase()}_EVENTS`))
      .finally(() => nc.close());
    return this.#query(async (client) => {
      const db = await client.query<Record<string, string>>(
        `select xact_commit as commits, tup_inserted as inserted, tup_updated as updated,
                tup_deleted as deleted, tup_returned as returned
           from pg_stat_database where datname = $1`,
        [databaseName],
      );
      const wal = await client.query<{ records: string; bytes: string }>(
        'select wal_records as records, wal_bytes as bytes from pg_stat_wal',
      );
      const n = (v: string | undefined) => Number(v ?? 0);
      const row = db.rows[0] ?? {};
      return {
        events: { messages: events.state.last_seq, bytes: events.state.bytes },
        database: {
          commits: n(row.commits),
          inserted: n(row.inserted),
          updated: n(row.updated),
          deleted: n(row.deleted),
          returned: n(row.returned),
        },
        wal: { records: n(wal.rows[0]?.records), bytes: n(wal.rows[0]?.bytes) },
        io: { nats: natsPid ? ioOf(natsPid) : null },
      };
    });
  }
}
