/**
 * infra/postgres/grafana-ro.sh on a real PostgreSQL, as the postgres image runs it: before the
 * migrations. Every query of the shipped dashboards then runs as grafana_ro, and nothing else does.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createDb, migrateToLatest } from '@munim/db';
import { createTestDatabase, type TestDatabase } from '@munim/db/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const SCRIPT = root('infra/postgres/grafana-ro.sh');
const DASHBOARDS = root('infra/grafana/dashboards/health-monitor.json');

let database: TestDatabase;
let admin: pg.Client;
let grafana: pg.Client;

function runScript(password: string) {
  const url = new URL(database.url);
  execFileSync('sh', [SCRIPT], {
    env: {
      ...process.env,
      PGHOST: url.hostname,
      PGPORT: url.port || '5432',
      POSTGRES_USER: decodeURIComponent(url.username),
      // The test run's own PostgreSQL asks for one (the machine's may trust local connections).
      PGPASSWORD: decodeURIComponent(url.password),
      POSTGRES_DB: database.name,
      GRAFANA_DB_PASSWORD: password,
    },
    stdio: 'pipe',
  });
}

/** Every SQL query of the dashboards, with Grafana's macros and variables filled in as Grafana would. */
function dashboardQueries(): string[] {
  const found: string[] = [];
  const walk = (node: unknown, key = ''): void => {
    if (typeof node === 'string' && (key === 'rawSql' || (key === 'query' && /\bselect\b/i.test(node)))) {
      found.push(node);
    } else if (Array.isArray(node)) for (const item of node) walk(item);
    else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) walk(v, k);
  };
  walk(JSON.parse(readFileSync(DASHBOARDS, 'utf8')));
  return found.map((sql) =>
    sql
      .replace(/\$__timeFilter\(([^)]+)\)/g, "$1 between now() - interval '7 days' and now()")
      .replace(/\$__timeGroupAlias\(([^,]+),[^)]*\)/g, "date_trunc('minute', $1) as time")
      .replace(/\$\{\w+:regex\}/g, '.*'),
  );
}

beforeAll(async () => {
  database = await createTestDatabase();
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  // As on a fresh volume: the init script runs on an empty database, the services migrate later.
  runScript('first-password');
  const db = createDb(database.url, { max: 1 });
  await migrateToLatest(db);
  await db.destroy();
  const url = new URL(database.url);
  url.username = 'grafana_ro';
  url.password = 'first-password';
  grafana = new pg.Client({ connectionString: url.toString() });
  await grafana.connect();
});

afterAll(async () => {
  await grafana?.end().catch(() => undefined);
  await admin?.end().catch(() => undefined);
  await database?.drop();
  // The role is the cluster's: this test made it, so it removes it (unless another database uses it).
  const url = new URL(database.url);
  url.pathname = '/postgres';
  const cluster = new pg.Client({ connectionString: url.toString() });
  await cluster.connect();
  await cluster.query('drop role if exists grafana_ro').catch(() => undefined);
  await cluster.end();
});

describe('the grafana_ro role (infra/postgres/grafana-ro.sh)', () => {
  it('runs every dashboard query', async () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(5);
    for (const sql of queries) await expect(grafana.query(sql), sql).resolves.toBeDefined();
  });

  it('reads nothing else and writes nothing', async () => {
    for (const table of ['intents', 'llm_configs', 'unified_conversations', 'tool_registry']) {
      await expect(grafana.query(`select * from ${table} limit 1`)).rejects.toThrow(/permission denied/);
    }
    await expect(grafana.query("insert into query_routing_logs (request_id) values ('x')")).rejects.toThrow(
      /read-only transaction|permission denied/,
    );
    await expect(grafana.query('begin read write')).resolves.toBeDefined();
    await expect(grafana.query('delete from request_events')).rejects.toThrow(/permission denied/);
    await grafana.query('rollback');
    await expect(grafana.query('create table t (x int)')).rejects.toThrow(
      /read-only transaction|permission denied/,
    );
  });

  it('is a plain login role with the password given, and running the script again changes only that', async () => {
    const before = await admin.query(
      "select rolsuper, rolcreatedb, rolcreaterole, rolpassword from pg_authid where rolname = 'grafana_ro'",
    );
    expect(before.rows[0]).toMatchObject({ rolsuper: false, rolcreatedb: false, rolcreaterole: false });
    runScript('second-password');
    const after = await admin.query("select rolpassword from pg_authid where rolname = 'grafana_ro'");
    expect(after.rows[0].rolpassword).toBeTruthy();
    expect(after.rows[0].rolpassword).not.toBe(before.rows[0].rolpassword);
    await expect(grafana.query('select count(*) from query_routing_logs')).resolves.toBeDefined();
  });
});
