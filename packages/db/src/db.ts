import { createHash } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Pool, type PoolClient, types } from 'pg';
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
  /**
   * Whether statements with parameters run as named (prepared) statements, each parsed and planned
   * once per connection (default true). Off for a pooler that does not keep them, such as PgBouncer
   * in transaction mode before 1.21 (`DB_PREPARED_STATEMENTS=off`).
   */
  preparedStatements?: boolean;
  /** Most statements one connection prepares; later distinct texts run unnamed (default 200). */
  preparedPerConnection?: number;
}

/** Longest statement text prepared: longer ones (long generated lists) run unnamed. */
const MAX_PREPARED_TEXT = 4_000;
/** Most distinct texts named in a process; later ones run unnamed. */
const MAX_NAMED_TEXTS = 2_000;
/** PostgreSQL's 0A000 "cached plan must not change result type": the schema changed under a statement. */
const STALE_PLAN = /cached plan must not change result type/;

const names = new Map<string, string>();

/** The name of a statement's text: a digest, so the same text has the same name on every connection. */
function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMED_TEXTS || text.length > MAX_PREPARED_TEXT) return undefined;
    name = `munim_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Makes a new connection run each `query(text, values)` with parameters as a named statement, so
 * PostgreSQL parses and plans it once per connection. Bounded per connection, so texts that vary
 * (lists of any length) cannot grow a backend's memory without end.
 * Statements without parameters (`begin`, `commit`, migrations' multi-statement scripts) stay
 * simple queries, which the extended protocol of named statements could not run.
 */
function prepareStatements(client: PoolClient, perConnection: number | false): void {
  const query = client.query.bind(client) as QueryFn;
  const prepared = new Set<string>();
  const unnamed = new Set<string>();
  const named = (text: string, values: unknown[]): string | undefined => {
    if (perConnection === false || values.length === 0 || unnamed.has(text)) return undefined;
    const name = statementName(text);
    if (name === undefined || prepared.has(name)) return name;
    if (prepared.size >= perConnection) return undefined;
    prepared.add(name);
    return name;
  };
  (client as unknown as { query: QueryFn }).query = (...args: unknown[]) => {
    const [text, values] = args;
    // Promise calls only (Kysely's): a callback's caller is left to `pg` as it is.
    if (args.length !== 2 || typeof text !== 'string' || !Array.isArray(values)) return query(...args);
    const name = named(text, values);
    if (name === undefined) return query(...args);
    return (query({ name, text, values }) as Promise<unknown>).catch((error: unknown) => {
      if (!(error instanceof Error && STALE_PLAN.test(error.message))) throw error;
      // Prepared before a migration changed its result's columns, it fails on this connection for
      // good: it runs unnamed here from now on (a new connection prepares it anew). Refused before
      // it ran, it runs again at once unless a transaction it was in is now aborted.
      unnamed.add(text);
      if (client.getTransactionStatus() !== 'I') throw error;
      return query(text, values);
    });
  };
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
  const perConnection = opts.preparedStatements === false ? false : (opts.preparedPerConnection ?? 200);
  pool.on('connect', (client) => {
    client.on('error', (err) => opts.log?.warn({ err }, 'database connection failed'));
    prepareStatements(client, perConnection);
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
