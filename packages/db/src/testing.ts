import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { Client } from 'pg';
import { createDb } from './db.ts';
import { MIGRATIONS, migrateToLatest } from './migrate.ts';
import { type DbService, localServiceLogins } from './roles.ts';

/** A throwaway database for one test file. */
export interface TestDatabase {
  /** `postgres://` URL of the new database. */
  url: string;
  name: string;
  /** Ends every connection to the database and drops it. */
  drop(): Promise<void>;
}

/** No PostgreSQL role could administer test databases. */
export class TestDatabaseError extends Error {
  override name = 'TestDatabaseError';
}

const LOCAL_ADMIN_USERS = ['postgres', 'root'];
let resolvedAdminUrl: Promise<string> | undefined;

/** Whether a PostgreSQL login at `url` succeeds (within 5 s). Never throws. */
export async function canConnect(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** An admin URL of the local PostgreSQL (127.0.0.1:5432): its `postgres` role, else its `root` role. */
export async function localAdminUrl(): Promise<string | undefined> {
  for (const user of LOCAL_ADMIN_USERS) {
    const url = `postgres://${user}@127.0.0.1:5432/postgres`;
    if (await canConnect(url)) return url;
  }
  return undefined;
}

/**
 * `TEST_DATABASE_ADMIN_URL` (the test run's global setup sets it, to the local PostgreSQL or to
 * one of the run's own), else the local PostgreSQL's.
 */
function adminUrl(): Promise<string> {
  resolvedAdminUrl ??= (async () => {
    const url = process.env.TEST_DATABASE_ADMIN_URL || (await localAdminUrl());
    if (url) return url;
    throw new TestDatabaseError(
      `no PostgreSQL admin role at 127.0.0.1:5432 (tried ${LOCAL_ADMIN_USERS.join(', ')}); set TEST_DATABASE_ADMIN_URL`,
    );
  })();
  return resolvedAdminUrl;
}

async function asAdmin(run: (admin: ReturnType<typeof createDb>) => Promise<void>): Promise<void> {
  const admin = createDb(await adminUrl(), { max: 1 });
  try {
    await run(admin);
  } finally {
    await admin.destroy();
  }
}

/** The database `name` as a test's: its URL, and a `drop()` that ends its connections first. */
async function testDatabaseNamed(name: string): Promise<TestDatabase> {
  const url = new URL(await adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      asAdmin(async (admin) => {
        // A pool's end() resolves before its connections have closed (pg-pool ends them without
        // waiting): they are given a moment to close on their own, since a forced drop turns each
        // into an error event on a client whose pool no longer listens. What is left is ended.
        for (let tries = 0; tries < 40; tries += 1) {
          const { rows } = await sql<{ open: number }>`
            select count(*)::int as open from pg_stat_activity where datname = ${name}`.execute(admin);
          if (rows[0]?.open === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
      }),
  };
}

/** Creates an empty database `munim_t_<random hex>` for a test file; call `drop()` in `afterAll`. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `munim_t_${randomBytes(6).toString('hex')}`;
  await asAdmin(async (admin) => {
    await sql`create database ${sql.id(name)}`.execute(admin);
  });
  return testDatabaseNamed(name);
}

/** Advisory lock key held while the template database is made (any constant unique to munim). */
const TEMPLATE_LOCK_ID = 4_242_002;

/** PostgreSQL's "object in use": a template still has a session (a pool's last one closing). */
const OBJECT_IN_USE = '55006';

/**
 * The name of the migrated template for the migrations as they are now: a digest of their
 * names and code, so a changed or added migration makes a new template and never a stale clone.
 */
function templateName(): string {
  const digest = createHash('sha256');
  for (const [name, migration] of Object.entries(MIGRATIONS).sort(([a], [b]) => a.localeCompare(b)))
    digest.update(`${name}\0${String(migration.up)}\0${String(migration.down)}\0`);
  return `munim_tpl_${digest.digest('hex').slice(0, 16)}`;
}

let template: Promise<string> | undefined;

/** How long an unused template of another schema is kept (another checkout may still use it). */
const STALE_TEMPLATE_MS = 24 * 3600 * 1000;

/**
 * The migrated template database, made once per machine and schema under an advisory lock (every
 * test worker asks at once). Templates of other schemas belong to other checkouts or older
 * commits: each is dropped once it has not been made or used for a day (its comment says when).
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = templateName();
    const client = new Client({ connectionString: await adminUrl() });
    await client.connect();
    try {
      await client.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK_ID]);
      const found = await client.query<{ datname: string; datistemplate: boolean; used: string | null }>(
        `select datname, datistemplate, shobj_description(oid, 'pg_database') as used
           from pg_database where datname like 'munim\\_tpl\\_%'`,
      );
      for (const row of found.rows) {
        if (row.datname === name) continue;
        const used = Date.parse(row.used ?? '');
        if (row.datistemplate && Date.now() - used < STALE_TEMPLATE_MS) continue;
        await client.query(`alter database ${ident(row.datname)} with is_template false`);
        await client.query(`drop database if exists ${ident(row.datname)} with (force)`);
      }
      const current = found.rows.find((row) => row.datname === name);
      if (current && !current.datistemplate) {
        // Its making was cut short.
        await client.query(`drop database if exists ${ident(name)} with (force)`);
      }
      if (!current?.datistemplate) {
        await client.query(`create database ${ident(name)}`);
        const url = new URL(await adminUrl());
        url.pathname = `/${name}`;
        const db = createDb(url.toString(), { max: 1 });
        try {
          await migrateToLatest(db);
        } finally {
          await db.destroy();
        }
        await client.query(`alter database ${ident(name)} with is_template true allow_connections false`);
      }
      await client.query(`comment on database ${ident(name)} is '${new Date().toISOString()}'`);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK_ID]).catch(() => undefined);
      await client.end();
    }
    return name;
  })();
  template.catch(() => {
    template = undefined;
  });
  return template;
}

/** A quoted identifier (names here are made by this module, never by a user). */
function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * A throwaway database migrated to the latest schema, as `npm run migrate` leaves one: for tests
 * that start services, which only check the schema. It is a copy of a template migrated once, so
 * a test file pays for a file copy instead of every migration.
 */
export async function createMigratedTestDatabase(): Promise<TestDatabase> {
  const source = await migratedTemplate();
  const name = `munim_t_${randomBytes(6).toString('hex')}`;
  await asAdmin(async (admin) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await sql`create database ${sql.id(name)} template ${sql.id(source)}`.execute(admin);
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== OBJECT_IN_USE || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  });
  return testDatabaseNamed(name);
}

/** Each service's own login on a migrated test database, as deployed: its role, with its password set. */
export async function serviceLoginUrls(
  database: Pick<TestDatabase, 'url'>,
): Promise<Record<DbService, string>> {
  const owner = createDb(database.url, { max: 1 });
  try {
    return await localServiceLogins(owner, database.url);
  } finally {
    await owner.destroy();
  }
}

/** `service`'s own login on a migrated test database. */
export async function serviceLoginUrl(
  database: Pick<TestDatabase, 'url'>,
  service: DbService,
): Promise<string> {
  return (await serviceLoginUrls(database))[service];
}
