import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Database } from '@munim/db';
import { test } from '@munim/testkit';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import {
  connectedOf,
  type GatewayTestbed,
  gatewayTestbed,
  insertConversation,
  postQuery,
  readSse,
} from './helpers.ts';

const KEY_A = 'key-a-tenant-7c1f0e9b2d-0123';
const SECRET = 'hs256-secret-for-tests-0123456789abcdef';
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'munim';
let bed: GatewayTestbed;
let db: Kysely<Database>;
let url: string;
let jwksServer: Server;
let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let tokenB: string;
let requestOfA: string;
let requestOfB: string;
const convA = randomUUID();
const convB = randomUUID();

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** An HS256 token; `exp: null` leaves the expiry out. */
function hsToken(
  claims: Record<string, unknown>,
  opts: { secret?: string; exp?: string | null; aud?: string } = {},
) {
  const token = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(ISSUER)
    .setAudience(opts.aud ?? AUDIENCE)
    .setSubject('user-b')
    .setIssuedAt();
  if (opts.exp !== null) token.setExpirationTime(opts.exp ?? '5m');
  return token.sign(new TextEncoder().encode(opts.secret ?? SECRET));
}

async function ask(headers: Record<string, string>, entityId: string, orgId: string) {
  const response = await postQuery(url, { query: 'show overdue invoices', entityId, orgId }, headers);
  expect(response.status).toBe(200);
  const { events } = await readSse(response);
  return { requestId: connectedOf(events).requestId, events };
}

test.beforeAll(async ({ nats, db: fileDb }) => {
  bed = await gatewayTestbed({ nats, db: fileDb }, (message) => `books of ${message.entityId}`);
  db = bed.db;
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  jwksServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const port = (jwksServer.address() as AddressInfo).port;
  ({ url } = await bed.startGateway({
    GATEWAY_API_KEYS: `${KEY_A}:ent-a:org-a`,
    GATEWAY_JWT_SECRET: SECRET,
    GATEWAY_JWKS_URL: `http://127.0.0.1:${port}/jwks.json`,
    GATEWAY_JWT_ISSUER: ISSUER,
    GATEWAY_JWT_AUDIENCE: AUDIENCE,
  }));
  tokenB = await hsToken({ entity_id: 'ent-b', org_id: 'org-b' });
  requestOfA = (await ask(bearer(KEY_A), 'ent-a', 'org-a')).requestId;
  requestOfB = (await ask(bearer(tokenB), 'ent-b', 'org-b')).requestId;
  await insertConversation(db, {
    id: convA,
    entityId: 'ent-a',
    orgId: 'org-a',
    chatNumber: 1,
    name: 'Secret plans of A',
    messages: [
      { role: 'user', content: 'show overdue invoices of A' },
      { role: 'assistant', content: 'A owes <b>nothing</b>' },
    ],
  });
  await insertConversation(db, {
    id: convB,
    entityId: 'ent-b',
    orgId: 'org-b',
    chatNumber: 1,
    name: 'Payroll of B',
    messages: [{ role: 'user', content: 'payroll of B' }],
  });
});

afterAll(async () => {
  try {
    await new Promise((resolve) => jwksServer?.close(resolve));
  } finally {
    await bed?.close();
  }
});

describe('JWT bearer tokens', () => {
  test('accepts an HS256 token whose claims name the tenant and acts only for that tenant', async () => {
    const { events } = await ask(bearer(tokenB), 'ent-b', 'org-b');
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { response: 'books of ent-b' } });
    const other = await postQuery(url, { query: 'x', entityId: 'ent-a', orgId: 'org-a' }, bearer(tokenB));
    expect(other.status).toBe(403);
  });

  test('accepts a token signed by a key of the JWKS', async () => {
    const token = await new SignJWT({ entity_id: 'ent-b', org_id: 'org-b' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(privateKey);
    const { events } = await ask(bearer(token), 'ent-b', 'org-b');
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { response: 'books of ent-b' } });
  });

  test.each([
    ['a wrong secret', () => hsToken({ entity_id: 'ent-b', org_id: 'org-b' }, { secret: `${SECRET}-other` })],
    ['an expired token', () => hsToken({ entity_id: 'ent-b', org_id: 'org-b' }, { exp: '-1m' })],
    ['a token without exp', () => hsToken({ entity_id: 'ent-b', org_id: 'org-b' }, { exp: null })],
    [
      'a JWKS token without exp',
      () =>
        new SignJWT({ entity_id: 'ent-b', org_id: 'org-b' })
          .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .sign(privateKey),
    ],
    ['another audience', () => hsToken({ entity_id: 'ent-b', org_id: 'org-b' }, { aud: 'someone-else' })],
    ['no org claim', () => hsToken({ entity_id: 'ent-b' })],
    [
      'an unsigned token',
      async () =>
        `${(await hsToken({ entity_id: 'ent-b', org_id: 'org-b' })).split('.').slice(0, 2).join('.')}.`,
    ],
  ])('refuses %s with 401', async (_name, make) => {
    const response = await postQuery(
      url,
      { query: 'x', entityId: 'ent-b', orgId: 'org-b' },
      bearer(await make()),
    );
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
  });
});

describe('two tenants', () => {
  test('lists only the caller’s conversations', async () => {
    const a = await fetch(`${url}/v1/conversations`, { headers: bearer(KEY_A) });
    expect(a.status).toBe(200);
    const listA = (await a.json()) as { conversations: { id: string; displayId: string; name: string }[] };
    expect(listA.conversations.map((c) => c.id)).toEqual([convA]);
    expect(listA.conversations[0]).toMatchObject({ displayId: '#MJ-0001', name: 'Secret plans of A' });
    const b = await fetch(`${url}/v1/conversations`, { headers: bearer(tokenB) });
    const listB = (await b.json()) as { conversations: { id: string }[] };
    expect(listB.conversations.map((c) => c.id)).toEqual([convB]);
  });

  test('refuses to list for another tenant named in the query with 403', async () => {
    const response = await fetch(`${url}/v1/conversations?entityId=ent-b&orgId=org-b`, {
      headers: bearer(KEY_A),
    });
    expect(response.status).toBe(403);
    expect(await response.text()).not.toContain('Payroll');
  });

  test('hides another tenant’s conversation, its export and its deletion as 404', async () => {
    for (const path of [`/v1/conversations/${convB}`, `/v1/conversations/${convB}/export`]) {
      const response = await fetch(`${url}${path}`, { headers: bearer(KEY_A) });
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain('Payroll');
    }
    const deleted = await fetch(`${url}/v1/conversations/${convB}`, {
      method: 'DELETE',
      headers: bearer(KEY_A),
    });
    expect(deleted.status).toBe(404);
    const row = await db
      .selectFrom('unified_conversations')
      .select('is_deleted')
      .where('id', '=', convB)
      .executeTakeFirstOrThrow();
    expect(row.is_deleted).toBe(false);
    const own = await fetch(`${url}/v1/conversations/${convB}`, { headers: bearer(tokenB) });
    expect(own.status).toBe(200);
    expect(((await own.json()) as { name: string }).name).toBe('Payroll of B');
  });

  test('hides another tenant’s request events as 404', async () => {
    const response = await fetch(`${url}/v1/requests/${requestOfB}/events`, { headers: bearer(KEY_A) });
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('ent-b');
    const own = await fetch(`${url}/v1/requests/${requestOfA}/events`, { headers: bearer(KEY_A) });
    expect((await readSse(own)).events.map((e) => e.event)).toEqual(['connected', 'complete']);
  });

  test('takes feedback only on the caller’s own requests', async () => {
    const foreign = await fetch(`${url}/v1/feedback`, {
      method: 'POST',
      headers: { ...bearer(KEY_A), 'content-type': 'application/json' },
      body: JSON.stringify({ requestId: requestOfB, signal: 'thumbs_down' }),
    });
    expect(foreign.status).toBe(404);
    const none = await db
      .selectFrom('feedback_log')
      .selectAll()
      .where('request_id', '=', requestOfB)
      .execute();
    expect(none).toEqual([]);
    const own = await fetch(`${url}/v1/feedback`, {
      method: 'POST',
      headers: { ...bearer(KEY_A), 'content-type': 'application/json' },
      body: JSON.stringify({ requestId: requestOfA, signal: 'thumbs_up', comment: 'spot on' }),
    });
    expect(own.status).toBe(201);
    const rows = await db
      .selectFrom('feedback_log')
      .selectAll()
      .where('request_id', '=', requestOfA)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      entity_id: 'ent-a',
      org_id: 'org-a',
      kind: 'explicit',
      signal: 'thumbs_up',
      score: 1,
      comment: 'spot on',
      response: 'books of ent-a',
    });
  });
});
