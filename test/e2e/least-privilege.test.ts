import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { DB_SERVICES, SERVICE_ROLES } from '@munim/db';
import { test } from '@munim/testkit';
import { natsUrl } from '@munim/testkit/addresses';
import { afterAll, describe, expect } from 'vitest';
import { ask } from '../support/sse.ts';
import { startSystem, TEST_SESSION, type TestSystem } from '../support/stack.ts';

/**
 * The running system, as deployed: each service's database sessions log in as that service's own
 * role, none as a superuser, and a question goes
 * through on those grants alone (every other end-to-end test runs on them too).
 */
let sys: TestSystem;

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats, llm: false });
}, 120_000);

afterAll(async () => {
  await sys?.stop();
});

async function sessions(): Promise<{ usename: string; superuser: boolean }[]> {
  const { rows } = await sys.db.query<{ usename: string; superuser: boolean }>(
    `select a.usename, r.rolsuper as superuser from pg_stat_activity a join pg_roles r on r.oid = a.usesysid
      where a.datname = current_database() and a.application_name <> $1`,
    [TEST_SESSION],
  );
  return rows;
}

describe('every service runs as its own database role', () => {
  test('answers a question, and every service session is a service role, never a superuser', async () => {
    const { events } = await ask(sys.gatewayUrl, {
      query: 'show all invoices',
      entityId: 'demo',
      orgId: 'demo',
    });
    expect(events.at(-1)?.event).toBe('complete');
    const roles = new Set<string>(Object.values(SERVICE_ROLES));
    // The executor, logger, router and agent keep sessions open while they work.
    const working = [
      SERVICE_ROLES['mcp-executor'],
      SERVICE_ROLES.logger,
      SERVICE_ROLES.router,
      SERVICE_ROLES.agent,
    ];
    await expect
      .poll(async () => {
        const seen = new Set((await sessions()).map((s) => s.usename));
        return working.filter((role) => !seen.has(role));
      })
      .toEqual([]);
    for (const session of await sessions()) {
      expect(roles.has(session.usename), session.usename).toBe(true);
      expect(session.superuser, session.usename).toBe(false);
    }
    const errors = sys.logs.filter((line) => /permission denied/i.test(line));
    expect(errors).toEqual([]);
  });
});

describe('a service given a superuser login does not start', () => {
  test.each(DB_SERVICES)(
    '%s stops at once, naming DATABASE_URL and the role it should use',
    async (service) => {
      const child = spawn(process.execPath, [join('services', service, 'src', 'main.ts')], {
        cwd: join(import.meta.dirname, '../..'),
        env: {
          ...process.env,
          DATABASE_URL: sys.databaseUrl,
          NATS_URL: natsUrl(),
          NATS_PREFIX: `${sys.prefix}x`,
          MCP_SERVER_URL: 'http://127.0.0.1:9/mcp',
          PORT: '0',
          HOST: '127.0.0.1',
          HEALTH_PORT: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d));
      child.stderr.on('data', (d: Buffer) => (output += d));
      const [code] = await once(child, 'exit');
      expect(code, output).not.toBe(0);
      expect(output).toMatch(/DATABASE_URL logs in as \w+, which has superuser/);
      expect(output).toContain(SERVICE_ROLES[service]);
    },
  );
});
