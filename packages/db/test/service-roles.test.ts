import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_SERVICES, type DbService, SERVICE_GRANTS, SERVICE_ROLES, TABLE_NAMES } from '../src/index.ts';
import { createMigratedTestDatabase, serviceLoginUrls, type TestDatabase } from '../src/testing.ts';

/**
 * Least privilege on a real PostgreSQL: every service's role tries every statement of every kind
 * on every table, and each one its grants do not name is refused; the rules that matter most are
 * also written out by hand below, apart from the grant table.
 */

const INSUFFICIENT_PRIVILEGE = '42501';

let database: TestDatabase;
let owner: pg.Pool;
const as = {} as Record<DbService, pg.Pool>;

beforeAll(async () => {
  database = await createMigratedTestDatabase();
  const urls = await serviceLoginUrls(database);
  owner = new pg.Pool({ connectionString: database.url, max: 2 });
  for (const service of DB_SERVICES) as[service] = new pg.Pool({ connectionString: urls[service], max: 1 });
  // An idle session ended by the server (the database dropped with force at teardown) is no failure
  // of a statement under test: every statement's outcome is read from its own answer.
  for (const pool of [owner, ...Object.values(as)]) pool.on('error', () => undefined);
});

afterAll(async () => {
  await Promise.all(DB_SERVICES.map((s) => as[s]?.end()));
  await owner?.end();
  await database?.drop();
});

/** Runs `text` as `service` in a transaction that is rolled back; resolves to the error code, or 'ok'. */
async function attempt(service: DbService, text: string, values: unknown[] = []): Promise<string> {
  const client = await as[service].connect();
  // CREATE DATABASE cannot run in a transaction; refused, it changes nothing anyway.
  const alone = /^create database/i.test(text);
  try {
    if (!alone) await client.query('begin');
    await client.query(text, values);
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    if (!alone) await client.query('rollback').catch(() => undefined);
    client.release();
  }
}

async function columnsOf(table: string): Promise<string[]> {
  const { rows } = await owner.query<{ column_name: string }>(
    `select column_name from information_schema.columns where table_schema = 'public' and table_name = $1 and is_generated = 'NEVER'`,
    [table],
  );
  return rows.map((r) => r.column_name);
}

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

describe('each service logs in as its own role, with no power beyond its grants', () => {
  it('no service role is a superuser, creates roles or databases, bypasses row security or belongs to another role', async () => {
    const { rows } = await owner.query(
      `select r.rolname, r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolbypassrls, r.rolreplication, r.rolcanlogin,
              (select count(*)::int from pg_auth_members m where m.member = r.oid) as memberships
         from pg_roles r where r.rolname = any($1)`,
      [Object.values(SERVICE_ROLES)],
    );
    expect(rows).toHaveLength(DB_SERVICES.length);
    for (const row of rows) {
      expect(row, row.rolname).toMatchObject({
        rolsuper: false,
        rolcreaterole: false,
        rolcreatedb: false,
        rolbypassrls: false,
        rolreplication: false,
        rolcanlogin: true,
        memberships: 0,
      });
    }
    for (const service of DB_SERVICES) {
      const { rows: who } = await as[service].query('select current_user as name');
      expect(who[0].name).toBe(SERVICE_ROLES[service]);
    }
  });

  it('every statement on every table that a role was not granted is refused', async () => {
    const checked: string[] = [];
    for (const table of TABLE_NAMES) {
      const columns = await columnsOf(table);
      expect(columns.length, table).toBeGreaterThan(0);
      for (const service of DB_SERVICES) {
        const access = SERVICE_GRANTS[service][table];
        const statements: [allowed: boolean, text: string][] = [
          [access?.select === true, `select * from ${q(table)} limit 0`],
          [access?.insert === true, `insert into ${q(table)} default values`],
          [access?.delete === true, `delete from ${q(table)} where false`],
          [false, `truncate ${q(table)}`],
          [false, `alter table ${q(table)} add column munim_probe int`],
          [false, `alter table ${q(table)} disable trigger all`],
          [false, `drop table ${q(table)}`],
          [false, `grant all on ${q(table)} to public`],
          ...columns.map((c): [boolean, string] => [
            access?.update === true || (Array.isArray(access?.update) && access.update.includes(c)),
            `update ${q(table)} set ${q(c)} = ${q(c)} where false`,
          ]),
        ];
        for (const [allowed, text] of statements) {
          const code = await attempt(service, text);
          checked.push(`${service}: ${text}`);
          if (allowed) {
            // Allowed statements fail, if at all, on the row (a NOT NULL column), never on privilege.
            expect(code, `${service} may: ${text}`).not.toBe(INSUFFICIENT_PRIVILEGE);
          } else if (text.startsWith('grant')) {
            // A grant by a non-owner is a warning, not an error: what matters is that nothing changed.
            const { rows } = await owner.query(
              `select count(*)::int as n from information_schema.role_table_grants where table_name = $1 and grantee = 'PUBLIC'`,
              [table],
            );
            expect(rows[0].n, `${service}: ${text}`).toBe(0);
          } else {
            expect(code, `${service} must not: ${text}`).toBe(INSUFFICIENT_PRIVILEGE);
          }
        }
      }
    }
    expect(checked.length).toBeGreaterThan(TABLE_NAMES.length * DB_SERVICES.length * 8);
  });

  it('no role defines objects, changes roles, reads files or escapes its role', async () => {
    const forbidden = [
      'create table munim_probe (id int)',
      'create function munim_probe() returns int language sql as $$ select 1 $$',
      'create view munim_probe as select 1',
      `create role munim_probe_${randomUUID().slice(0, 8)}`,
      'create database munim_probe',
      'create extension if not exists pg_stat_statements',
      'create schema munim_probe',
      'alter role current_user superuser',
      'alter role current_user createrole',
      // The superuser owning the test database (postgres, or the run's own PostgreSQL's).
      `set role ${pg.escapeIdentifier(decodeURIComponent(new URL(database.url).username))}`,
      "copy (select 1) to program 'true'",
      "select pg_read_file('/etc/passwd')",
      'alter function munim_delete_old_events(timestamptz, integer) owner to current_user',
    ];
    // A session of the owner's, held open to be the target.
    const target = await owner.connect();
    const { rows } = await target.query<{ pid: number }>('select pg_backend_pid() as pid');
    forbidden.push(
      `select pg_terminate_backend(${rows[0]?.pid})`,
      `select pg_cancel_backend(${rows[0]?.pid})`,
    );
    for (const service of DB_SERVICES) {
      for (const text of forbidden) {
        const code = await attempt(service, text);
        expect(['42501', '42704', '0LP01', '3D000'], `${service} must not: ${text} (${code})`).toContain(
          code,
        );
        expect(code, `${service}: ${text}`).not.toBe('ok');
      }
    }
    await target.query('select 1');
    target.release();
  });
});

describe('the rules that matter most, written out apart from the grant table', () => {
  const proposal = (id: string) => ({
    text: `insert into pending_actions (action_id, request_id, conversation_id, entity_id, org_id, tool, args, args_hash,
             tier, question, call_id, tool_call_id, state, expires_at)
           values ($1, 'r', 'c', 'e', 'o', 'void_invoice', '{}', 'h', 2, 'q', 'call', 'tc', '{}', now() + interval '1 hour')`,
    values: [id],
  });

  it('only the agent proposes a pending action', async () => {
    for (const service of DB_SERVICES) {
      const { text, values } = proposal(`a-${service}`);
      expect(await attempt(service, text, values), service).toBe(
        service === 'agent' ? 'ok' : INSUFFICIENT_PRIVILEGE,
      );
    }
  });

  it('only the executor records using an approval, and only then does a pending action settle as a success', async () => {
    const id = `a-${randomUUID()}`;
    const { text, values } = proposal(id);
    await as.agent.query(text, values);
    await as.agent.query(
      `update pending_actions set status = 'executing', approved_at = now(), decided_at = now() where action_id = $1`,
      [id],
    );
    for (const service of DB_SERVICES.filter((s) => s !== 'mcp-executor')) {
      for (const column of ['executed_at', 'executed_call_id', 'executed_request_id']) {
        expect(
          await attempt(service, `update pending_actions set ${column} = ${column} where action_id = $1`, [
            id,
          ]),
          `${service} sets ${column}`,
        ).toBe(INSUFFICIENT_PRIVILEGE);
      }
    }
    // The agent cannot record a success the executor never saw.
    const early = await attempt(
      'agent',
      `update pending_actions set status = 'executed', result = '{"success": true}' where action_id = $1`,
      [id],
    );
    expect(early).toBe('23514');
    // A failure it may record (the executor refused, say).
    expect(
      await attempt(
        'agent',
        `update pending_actions set status = 'executed', result = '{"success": false}' where action_id = $1`,
        [id],
      ),
    ).toBe('ok');
    await as['mcp-executor'].query(
      `update pending_actions set executed_at = now(), executed_call_id = 'call', executed_request_id = 'r' where action_id = $1`,
      [id],
    );
    await as.agent.query(
      `update pending_actions set status = 'executed', result = '{"success": true}' where action_id = $1`,
      [id],
    );
    const { rows } = await owner.query(
      'select status, executed_call_id from pending_actions where action_id = $1',
      [id],
    );
    expect(rows[0]).toEqual({ status: 'executed', executed_call_id: 'call' });
  });

  it('no service deletes a pending action, an event, a usage row or feedback', async () => {
    for (const service of DB_SERVICES) {
      for (const table of [
        'pending_actions',
        'request_events',
        'llm_usage_logs',
        'feedback_log',
        'query_routing_logs',
      ]) {
        expect(await attempt(service, `delete from ${table}`), `${service} deletes ${table}`).toBe(
          INSUFFICIENT_PRIVILEGE,
        );
      }
    }
  });

  it('an event is never rewritten: the logger may only move it earlier, and old ones go by age alone', async () => {
    const insert = `insert into request_events (id, request_id, seq, type, service, conversation_id, entity_id, org_id, payload, ts)
      values ($1, 'r', $2, 'tool_result', 'agent', 'c', 'e', 'o', '{"text":"paid"}', $3)`;
    await as.logger.query(insert, ['old', 5, new Date(Date.now() - 40 * 86_400_000)]);
    await as.logger.query(insert, ['new', 6, new Date()]);
    for (const service of DB_SERVICES) {
      for (const set of ['payload = \'{"text":"unpaid"}\'', "type = 'error'", 'ts = now()', "org_id = 'x'"]) {
        const code = await attempt(service, `update request_events set ${set} where id = 'old'`);
        expect(code, `${service}: ${set}`).toBe(INSUFFICIENT_PRIVILEGE);
      }
    }
    expect(await attempt('logger', `update request_events set seq = 9 where id = 'old'`)).toBe(
      INSUFFICIENT_PRIVILEGE,
    );
    expect(await attempt('logger', `update request_events set seq = 2 where id = 'old'`)).toBe('ok');
    for (const service of DB_SERVICES.filter((s) => s !== 'logger')) {
      expect(await attempt(service, 'select munim_delete_old_events(now(), 10)'), service).toBe(
        INSUFFICIENT_PRIVILEGE,
      );
    }
    const { rows } = await as.logger.query(
      `select munim_delete_old_events(now() - interval '30 days', 10) as deleted`,
    );
    expect(rows[0].deleted).toBe(1);
    const left = await owner.query('select id from request_events order by id');
    expect(left.rows.map((r) => r.id)).toEqual(['new']);
  });
});
