import { Kysely, PostgresDialect, sql } from 'kysely';
import { Pool, types } from 'pg';
import type { Database } from './schema.ts';

/** Where pool-level connection problems are reported (pino fits). */
export interface DbLogger {
  warn(obj: object, msg: string): void;
}

export interface CreateDbOptions {
  /** Largest number of connections in the pool (default 10). */
  max?: number;
  /** How long to wait for a free or new connection before failing (default 5000 ms). */
  connectionTimeoutMs?: number;
  log?: DbLogger;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

// Sequences, counts and numeric(3,2) buckets fit a double exactly; reading them as numbers saves
// every caller a conversion. Per pool, so other users of `pg` in the process are unaffected.
const typeParsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return format === 'binary' ? types.getTypeParser(oid, 'binary') : types.getTypeParser(oid, 'text');
  }) as typeof types.getTypeParser,
};

/** A kysely instance over a `pg` pool for the given `postgres://` URL. Close it with `db.destroy()`. */
export function createDb(url: string, opts: CreateDbOptions = {}): Kysely<Database> {
  const pool = new Pool({
    connectionString: url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectionTimeoutMs ?? 5000,
    types: typeParsers,
  });
  // An idle client losing its connection (e.g. a database restart) must not crash the process;
  // the pool replaces it on the next checkout.
  pool.on('error', (err) => opts.log?.warn({ err }, 'idle database connection failed'));
  // The pool listens only on idle clients: a connection lost while checked out (between the
  // statements of a transaction) would otherwise be an uncaught 'error' that ends the process.
  // The statement in progress, or the next one, fails and its caller handles that.
  pool.on('connect', (client) => {
    client.on('error', (err) => opts.log?.warn({ err }, 'database connection failed'));
  });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** Whether the database answers `select 1`. Never throws. */
export async function pingDb<DB>(db: Kysely<DB>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
