import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { Client } from 'pg';
import { createDb } from './db.ts';
import { migrateToLatest } from './migrate.ts';

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

async function canConnect(url: string): Promise<boolean> {
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

/** `TEST_DATABASE_ADMIN_URL`, else the local `postgres` role, else the local `root` role. */
function adminUrl(): Promise<string> {
  resolvedAdminUrl ??= (async () => {
    const configured = process.env.TEST_DATABASE_ADMIN_URL;
    if (configured) return configured;
    for (const user of LOCAL_ADMIN_USERS) {
      const url = `postgres://${user}@127.0.0.1:5432/postgres`;
      if (await canConnect(url)) return url;
    }
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

/** Creates an empty database `munim_t_<random hex>` for a test file; call `drop()` in `afterAll`. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `munim_t_${randomBytes(6).toString('hex')}`;
  await asAdmin(async (admin) => {
    await sql`create database ${sql.id(name)}`.execute(admin);
  });
  const url = new URL(await adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      asAdmin(async (admin) => {
        await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
      }),
  };
}

/**
 * A throwaway database migrated to the latest schema, as `npm run migrate` leaves one: for tests
 * that start services, which only check the schema.
 */
export async function createMigratedTestDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  const db = createDb(database.url, { max: 1 });
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    await database.drop();
    throw error;
  }
  await db.destroy();
  return database;
}
