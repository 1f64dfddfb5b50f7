import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  createDb,
  DB_SERVICES,
  localServiceLogins,
  passwordVariable,
  SERVICE_ROLES,
  serviceUrl,
} from '@munim/db';
import { type Embedded, startPostgres } from '@munim/devstack';
import { freePort } from '@munim/testkit/ports';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Logging in as a service role where passwords count: an embedded PostgreSQL (SCRAM, as deployed),
 * migrated by the deployment's own step (`npm run migrate`'s file) with `<SERVICE>_DB_PASSWORD`
 * set, as compose and Kubernetes run it; and by the launcher's derived passwords, as `npm start` does.
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');

let dir: string;
let server: Embedded;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'munim-db-roles-'));
  // As root the embedded PostgreSQL runs as the postgres user, who must be able to enter it.
  await chmod(dir, 0o755);
  server = await startPostgres(join(dir, 'pg'), await freePort());
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The login's error code, or 'ok' with the role it became. */
async function login(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query('select current_user as name');
    return `ok ${rows[0].name}`;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('service roles log in with their own passwords, and nothing else does', () => {
  it('the migrate step sets each role’s password from <SERVICE>_DB_PASSWORD', async () => {
    const passwords = Object.fromEntries(DB_SERVICES.map((s) => [s, randomBytes(16).toString('hex')]));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: server.url,
      ...Object.fromEntries(DB_SERVICES.map((s) => [passwordVariable(s), passwords[s]])),
    };
    delete env.NATS_URL;
    const { stdout } = await run(process.execPath, ['packages/db/src/migrate-main.ts'], { cwd: ROOT, env });
    expect(stdout).toContain('the database schema is current');
    for (const service of DB_SERVICES) {
      expect(await login(serviceUrl(server.url, service, passwords[service]))).toBe(
        `ok ${SERVICE_ROLES[service]}`,
      );
      // Not another service's password, and not none.
      const other = DB_SERVICES.find((s) => s !== service) as (typeof DB_SERVICES)[number];
      expect(await login(serviceUrl(server.url, service, passwords[other]))).toBe('28P01');
      expect(await login(serviceUrl(server.url, service, undefined))).not.toMatch(/^ok/);
    }
    // The password never travels as text: the server keeps a SCRAM verifier of it.
    const owner = new pg.Client({ connectionString: server.url });
    await owner.connect();
    const { rows } = await owner.query(`select rolname, rolpassword from pg_authid where rolname = any($1)`, [
      Object.values(SERVICE_ROLES),
    ]);
    await owner.end();
    expect(rows).toHaveLength(DB_SERVICES.length);
    for (const row of rows) expect(row.rolpassword, row.rolname).toMatch(/^SCRAM-SHA-256\$4096:/);
  });

  it('the launcher derives each role’s password from the owner’s, the same on every start', async () => {
    const db = createDb(server.url, { max: 1 });
    try {
      const first = await localServiceLogins(db, server.url);
      const again = await localServiceLogins(db, server.url);
      expect(again).toEqual(first);
      expect(new Set(Object.values(first)).size).toBe(DB_SERVICES.length);
      for (const service of DB_SERVICES) {
        expect(await login(first[service])).toBe(`ok ${SERVICE_ROLES[service]}`);
        expect(new URL(first[service]).password).not.toBe(new URL(server.url).password);
      }
    } finally {
      await db.destroy();
    }
  });
});
