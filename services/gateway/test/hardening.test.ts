// Hardening: failed authentications limited per address, keys long enough, JWT settings
// that cannot be used loosely, and signed links kept out of the request log.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '@munim/db';
import { ConfigError } from '@munim/kit';
import { type FixtureNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { pino } from 'pino';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { loadEnv } from '../src/env.ts';
import { AuthFailures } from '../src/limits.ts';
import { redactUrl } from '../src/request-log.ts';
import { completeEvent, fakeBackend, postQuery, readSse, startGateway } from './helpers.ts';

const KEY = 'key-hardening-0123456789abcdef';
let testBus: FixtureNats;
let limited: { gateway: Gateway; url: string };
let logged: { gateway: Gateway; url: string };
let backend: Awaited<ReturnType<typeof fakeBackend>>;
let db: Kysely<Database>;
let dir: string;
const logLines: string[] = [];

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const query = { query: 'cash position', entityId: 'ent-h', orgId: 'org-h' };

/** The message of the ConfigError this environment raises (it must raise one). */
function configError(env: Record<string, string>): string {
  try {
    loadEnv(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

test.beforeAll(async ({ nats, db: fileDb }) => {
  testBus = nats;
  db = fileDb;
  limited = await startGateway(testBus, {
    GATEWAY_API_KEYS: `${KEY}:ent-h:org-h`,
    AUTH_FAILURE_MAX: '3',
    AUTH_FAILURE_WINDOW_MS: '1500',
  });
  dir = mkdtempSync(join(tmpdir(), 'munim-gw-log-'));
  logged = await startGateway(
    testBus,
    { ATTACHMENTS_DIR: dir, ATTACHMENTS_SIGNING_KEY: 'k'.repeat(40) },
    db,
    pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) }),
  );
  backend = await fakeBackend(testBus, (message) => [completeEvent(message.data.query, 'ok')]);
});

afterAll(async () => {
  try {
    await backend?.stop();
    await limited?.gateway.stop();
    await logged?.gateway.stop();
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
});

describe('failed authentications per address', () => {
  test('counts only presented credentials, then answers 429 with Retry-After to everything, a valid key too, until the window passes', async () => {
    // Requests without a credential are anonymous, not guesses.
    for (let i = 0; i < 5; i += 1) expect((await postQuery(limited.url, query)).status).toBe(401);
    const ok = await postQuery(limited.url, query, bearer(KEY));
    expect(ok.status).toBe(200);
    await readSse(ok);

    for (const guess of ['guess-1-0123456789abcdefgh', `${KEY}x`, 'not even a bearer']) {
      const headers = guess.includes(' ') ? { authorization: guess } : bearer(guess);
      expect((await postQuery(limited.url, query, headers)).status).toBe(401);
    }
    for (const headers of [bearer(KEY), bearer('guess-4-0123456789abcdefgh'), {}]) {
      const blocked = await postQuery(limited.url, query, headers);
      expect(blocked.status).toBe(429);
      const retryAfter = Number(blocked.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(2);
      expect(await blocked.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    }
    // /mcp and the replay are behind the same fence.
    expect((await fetch(`${limited.url}/v1/conversations`, { headers: bearer(KEY) })).status).toBe(429);
    expect((await fetch(`${limited.url}/mcp`, { method: 'POST', headers: bearer(KEY) })).status).toBe(429);
    // Health stays open.
    expect((await fetch(`${limited.url}/healthz`)).status).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const after = await postQuery(limited.url, query, bearer(KEY));
    expect(after.status).toBe(200);
    await readSse(after);
  });

  test('forgets an address after its window, and the oldest first when full', () => {
    let now = 0;
    const failures = new AuthFailures(2, 1_000, { capacity: 2, now: () => now });
    failures.fail('a');
    failures.fail('a');
    expect(failures.blockedFor('a')).toBe(1);
    now = 999;
    expect(failures.blockedFor('a')).toBe(1);
    now = 1_000;
    expect(failures.blockedFor('a')).toBe(0);
    failures.fail('b');
    failures.fail('c');
    failures.fail('d');
    failures.fail('b');
    expect(failures.blockedFor('b')).toBe(0);
  });
});

describe('API keys and admin keys', () => {
  test.each([
    ['GATEWAY_API_KEYS', `${KEY}:ent-a:org-a,short-sekrit-123:ent-b:org-b`, 'entry 2'],
    ['GATEWAY_ADMIN_KEYS', `${KEY},short-sekrit-123`, 'entry 2'],
    ['GATEWAY_ADMIN_KEYS', 'short-sekrit-123', 'entry 1'],
  ])(
    'refuses a key shorter than 24 characters in %s, naming the entry but never the key',
    (name, value, entry) => {
      const message = configError({ [name]: value });
      expect(message).toContain(`${name}: ${entry}`);
      expect(message).toContain('24 characters');
      expect(message).not.toContain('sekrit');
      expect(message).not.toContain(KEY);
    },
  );

  test('accepts keys of 24 characters', () => {
    const key = 'k'.repeat(24);
    expect(
      loadEnv({ GATEWAY_API_KEYS: `${key}:e:o`, GATEWAY_ADMIN_KEYS: `a${key}` }).GATEWAY_ADMIN_KEYS,
    ).toEqual([`a${key}`]);
  });
});

describe('JWT settings', () => {
  test('needs GATEWAY_JWT_AUDIENCE with a JWKS', () => {
    expect(configError({ GATEWAY_JWKS_URL: 'https://issuer.example/jwks.json' })).toContain(
      'GATEWAY_JWT_AUDIENCE: is required with GATEWAY_JWKS_URL',
    );
  });

  test('needs an https JWKS URL; http only for a loopback host', () => {
    expect(
      configError({ GATEWAY_JWKS_URL: 'http://issuer.example/jwks.json', GATEWAY_JWT_AUDIENCE: 'munim' }),
    ).toContain('GATEWAY_JWKS_URL: must be an https URL');
    for (const url of ['http://127.0.0.1:8999/jwks.json', 'http://localhost:8999/jwks.json']) {
      expect(loadEnv({ GATEWAY_JWKS_URL: url, GATEWAY_JWT_AUDIENCE: 'munim' }).GATEWAY_JWKS_URL).toBe(url);
    }
  });
});

describe('request logs', () => {
  test('redacts signatures of download links (sig, signature, X-Amz-*) and keeps the rest', () => {
    expect(redactUrl('/v1/attachments/a1/content?exp=1700000000&sig=abc123')).toBe(
      '/v1/attachments/a1/content?exp=1700000000&sig=[redacted]',
    );
    expect(
      redactUrl('/f?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKIA%2F1&x-amz-signature=deadbeef&signature=s&a=1'),
    ).toBe(
      '/f?X-Amz-Algorithm=[redacted]&X-Amz-Credential=[redacted]&x-amz-signature=[redacted]&signature=[redacted]&a=1',
    );
    expect(redactUrl('/v1/conversations?entityId=e')).toBe('/v1/conversations?entityId=e');
    expect(redactUrl('/healthz')).toBe('/healthz');
  });

  test('never writes a signed link’s signature to the request log', async () => {
    const body = new FormData();
    body.set('entityId', 'ent-h');
    body.set('orgId', 'org-h');
    body.set('file', new Blob(['cash 1200'], { type: 'text/plain' }), 'note.txt');
    const uploaded = await fetch(`${logged.url}/v1/attachments`, { method: 'POST', body });
    expect(uploaded.status).toBe(201);
    const link = new URL(((await uploaded.json()) as { url: string }).url, logged.url);
    const sig = link.searchParams.get('sig') ?? '';
    expect(sig.length).toBeGreaterThan(10);
    const download = await fetch(link);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('cash 1200');
    await fetch(`${logged.url}/healthz?X-Amz-Signature=${sig}&X-Amz-Credential=AKIAEXAMPLE`);

    const urls = logLines
      .map((line) => JSON.parse(line))
      .flatMap((entry) => (entry.req?.url ? [entry.req.url] : []));
    expect(urls).toContain(`${link.pathname}?exp=${link.searchParams.get('exp')}&sig=[redacted]`);
    expect(urls).toContain('/healthz?X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]');
    const everything = logLines.join('\n');
    expect(everything).not.toContain(sig);
    expect(everything).not.toContain(encodeURIComponent(sig));
    expect(everything).not.toContain('AKIAEXAMPLE');
  });
});
