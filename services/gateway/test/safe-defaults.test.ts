// Safe defaults and the DNS-rebinding fence: the gateway binds loopback
// unless told otherwise, will not serve another address without credentials, keeps the admin
// endpoints closed to everyone but administrators, and, while auth is off, answers only requests
// that name a loopback (or configured) host and come from its own origin.
import { ConfigError } from '@munim/kit';
import { type FixtureNats, test } from '@munim/testkit';
import { pino } from 'pino';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { loadEnv } from '../src/env.ts';
import { completeEvent, fakeBackend, startGateway } from './helpers.ts';

const ADMIN_KEY = 'admin-key-safe-defaults-0123456789';
const TENANT_KEY = 'tenant-key-safe-defaults-0123456789';
let testBus: FixtureNats;
let open: { gateway: Gateway; url: string };
let keyed: { gateway: Gateway; url: string };
let backend: Awaited<ReturnType<typeof fakeBackend>>;
const warnings: string[] = [];

/** Whether loading this environment fails, and with what message. */
function configProblem(env: Record<string, string>): string | null {
  try {
    loadEnv(env);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
}

test.beforeAll(async ({ nats }) => {
  testBus = nats;
  const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
  // Configured for a LAN address with the explicit opt-out; the test still listens on loopback.
  open = await startGateway(
    testBus,
    { HOST: '192.0.2.10', GATEWAY_ALLOW_UNAUTHENTICATED: 'true', GATEWAY_ALLOWED_HOSTS: 'books.lan' },
    undefined,
    log,
  );
  keyed = await startGateway(testBus, {
    GATEWAY_API_KEYS: `${TENANT_KEY}:ent-a:org-a`,
    GATEWAY_ADMIN_KEYS: ADMIN_KEY,
  });
  backend = await fakeBackend(testBus, (message) => [completeEvent(message.data.query, 'ok')]);
});

afterAll(async () => {
  await backend?.stop();
  await open?.gateway.stop();
  await keyed?.gateway.stop();
});

describe('bind address', () => {
  test('binds 127.0.0.1 unless HOST is set', () => {
    expect(loadEnv({}).HOST).toBe('127.0.0.1');
  });

  test.each([['0.0.0.0'], ['::'], ['192.0.2.2'], ['gateway.internal']])(
    'stops at start on HOST=%s without credentials, naming GATEWAY_API_KEYS and the opt-out',
    (host) => {
      const problem = configProblem({ HOST: host });
      expect(problem).toContain('GATEWAY_API_KEYS');
      expect(problem).toContain('GATEWAY_ALLOW_UNAUTHENTICATED=true');
    },
  );

  test('serves another address with API keys, admin keys, JWT settings or the explicit opt-out', () => {
    const settings: Record<string, string>[] = [
      { GATEWAY_API_KEYS: `${TENANT_KEY}:ent-a:org-a` },
      { GATEWAY_ADMIN_KEYS: ADMIN_KEY },
      { GATEWAY_JWT_SECRET: 'a-shared-secret-of-at-least-32-characters' },
      { GATEWAY_JWKS_URL: 'https://issuer.example/jwks.json', GATEWAY_JWT_AUDIENCE: 'munim' },
      { GATEWAY_ALLOW_UNAUTHENTICATED: 'true' },
    ];
    for (const env of settings) {
      expect(configProblem({ HOST: '0.0.0.0', ...env })).toBeNull();
    }
    expect(configProblem({ HOST: '0.0.0.0', GATEWAY_ALLOW_UNAUTHENTICATED: 'false' })).toContain(
      'GATEWAY_API_KEYS',
    );
  });

  test.each([['127.0.0.1'], ['127.0.0.2'], ['localhost'], ['::1']])(
    'needs no credential on the loopback HOST %s',
    (host) => {
      expect(configProblem({ HOST: host })).toBeNull();
    },
  );

  test('warns when the opt-out serves a non-loopback address without credentials', () => {
    const warning = warnings.map((line) => JSON.parse(line)).find((entry) => entry.host === '192.0.2.10');
    expect(warning?.msg).toContain('GATEWAY_ALLOW_UNAUTHENTICATED');
  });
});

describe('admin endpoints need admin credentials, always', () => {
  test.each([
    ['GET', '/v1/admin/llm-configs'],
    ['GET', '/v1/admin/intents'],
    ['GET', '/v1/admin/analytics'],
    ['GET', '/v1/admin/tools'],
    ['POST', '/v1/admin/intents'],
  ])('refuses %s %s without auth with 403 saying how to configure admin access', async (method, path) => {
    const response = await fetch(`${open.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(method === 'POST' ? { body: JSON.stringify({ name: 'x' }) } : {}),
    });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('FORBIDDEN');
    expect(body.error.message).toContain('GATEWAY_ADMIN_KEYS');
    expect(body.error.message).toContain('Authorization: Bearer');
  });

  test('serves them to an admin key, and refuses a tenant key (403) and no key (401)', async () => {
    const path = `${keyed.url}/v1/admin/tools`;
    expect((await fetch(path, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).not.toBe(403);
    const tenant = await fetch(path, { headers: { authorization: `Bearer ${TENANT_KEY}` } });
    expect(tenant.status).toBe(403);
    expect(((await tenant.json()) as { error: { message: string } }).error.message).toContain(
      'GATEWAY_ADMIN_KEYS',
    );
    expect((await fetch(path)).status).toBe(401);
  });
});

describe('Host and Origin while auth is off (DNS rebinding)', () => {
  const inject = (
    gateway: Gateway,
    headers: Record<string, string>,
    url = '/v1/conversations?entityId=e&orgId=o',
  ) => gateway.app.inject({ method: 'GET', url, headers });

  test.each([['127.0.0.1:8080'], ['localhost:8080'], ['[::1]:8080'], ['192.0.2.10:8080'], ['Books.LAN']])(
    'serves Host %s (loopback, HOST or GATEWAY_ALLOWED_HOSTS)',
    async (host) => {
      const response = await inject(open.gateway, { host });
      expect(response.statusCode).not.toBe(403);
    },
  );

  test.each([['evil.example'], ['evil.example:8080'], ['127.0.0.1.evil.example'], ['192.0.2.11:8080']])(
    'refuses Host %j with 403, the console and the API alike',
    async (host) => {
      for (const url of [
        '/',
        '/app.js',
        '/v1/conversations?entityId=e&orgId=o',
        '/v1/suggestions?entityId=e&orgId=o',
      ]) {
        const response = await inject(open.gateway, { host }, url);
        expect(response.statusCode).toBe(403);
        expect(response.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
      }
    },
  );

  test('serves the console page to a loopback Host', async () => {
    const page = await inject(open.gateway, { host: 'localhost:8080' }, '/');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
  });

  test('refuses a request from another origin, and serves its own', async () => {
    const query = { query: 'show invoices', entityId: 'ent-a', orgId: 'org-a' };
    for (const origin of ['https://evil.example', 'http://localhost:3000', 'null']) {
      const response = await open.gateway.app.inject({
        method: 'POST',
        url: '/v1/query',
        headers: { host: 'localhost:8080', origin, 'content-type': 'application/json' },
        payload: query,
      });
      expect(response.statusCode).toBe(403);
    }
    const own = await fetch(`${open.url}/v1/conversations?entityId=e&orgId=o`, {
      headers: { origin: open.url },
    });
    expect(own.status).not.toBe(403);
  });

  test('leaves the health endpoints to any Host (probes), and does not check Host when auth is on', async () => {
    expect((await inject(open.gateway, { host: 'pod-10-0-0-7' }, '/healthz')).statusCode).toBe(200);
    const response = await keyed.gateway.app.inject({
      method: 'GET',
      url: '/v1/conversations',
      headers: { host: 'books.example.com', authorization: `Bearer ${TENANT_KEY}` },
    });
    expect(response.statusCode).not.toBe(403);
  });
});
