/**
 * An admin credential administers (`/v1/admin/*`). It does not ask questions,
 * confirm writes, replay a tenant's request or read a tenant's full tool results, unless it is also
 * that tenant's user (a token whose claims name the tenant). Real NATS and PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { test } from '@munim/testkit';
import { SignJWT } from 'jose';
import { afterAll, describe, expect } from 'vitest';
import { connectedOf, type GatewayTestbed, gatewayTestbed, postQuery, readSse } from './helpers.ts';

const KEY_A = 'tenant-key-a-9d3e1c7b5a-0123456789';
const ADMIN_KEY = 'admin-key-7e2a4c9d1b-0123456789';
const SECRET = 'hs256-secret-admin-not-tenant-0123456789';
const REFUSAL = /admin credential administers .* does not act for a tenant/;

let bed: GatewayTestbed;
let url: string;
let requestOfA: string;
let conversationOfA: string;
const tokens: Record<'admin' | 'adminOfA', string> = { admin: '', adminOfA: '' };

const token = (claims: Record<string, unknown>) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('operator')
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));
const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });
const json = (credential: string) => ({ ...bearer(credential), 'content-type': 'application/json' });

test.beforeAll(async ({ nats, db: fileDb }) => {
  bed = await gatewayTestbed({ nats, db: fileDb }, (message) => `books of ${message.entityId}`);
  ({ url } = await bed.startGateway({
    GATEWAY_API_KEYS: `${KEY_A}:ent-a:org-a`,
    GATEWAY_ADMIN_KEYS: ADMIN_KEY,
    GATEWAY_JWT_SECRET: SECRET,
  }));
  tokens.admin = await token({ roles: ['admin'] });
  tokens.adminOfA = await token({ role: 'admin', entity_id: 'ent-a', org_id: 'org-a' });
  const asked = await postQuery(
    url,
    { query: 'show bills', entityId: 'ent-a', orgId: 'org-a' },
    bearer(KEY_A),
  );
  ({ requestId: requestOfA, conversationId: conversationOfA } = connectedOf((await readSse(asked)).events));
});

afterAll(async () => {
  await bed?.close();
});

/** Every way to act for a tenant, as the given credential, for the tenant `entityId`/`orgId`. */
function tenantCalls(
  credential: string,
  entityId: string,
  orgId: string,
): [string, () => Promise<Response>][] {
  const scope = `entityId=${entityId}&orgId=${orgId}`;
  const get = (path: string) => () => fetch(`${url}${path}`, { headers: bearer(credential) });
  const post = (path: string, body: unknown) => () =>
    fetch(`${url}${path}`, { method: 'POST', headers: json(credential), body: JSON.stringify(body) });
  const upload = new FormData();
  upload.set('entityId', entityId);
  upload.set('orgId', orgId);
  upload.set('file', new Blob(['cash 1200'], { type: 'text/plain' }), 'note.txt');
  const speech = () => {
    const form = new FormData();
    form.set('entityId', entityId);
    form.set('orgId', orgId);
    form.set('file', new Blob([new Uint8Array(64)], { type: 'audio/wav' }), 'question.wav');
    return form;
  };
  const spoken = (path: string) => () =>
    fetch(`${url}${path}`, { method: 'POST', headers: bearer(credential), body: speech() });
  return [
    ['transcribe speech', spoken('/v1/transcribe')],
    ['ask by voice', spoken('/v1/query/audio')],
    ['ask a question', post('/v1/query', { query: 'show bills', entityId, orgId })],
    [
      'confirm a write',
      post('/v1/query', { query: 'yes', entityId, orgId, conversationId: conversationOfA }),
    ],
    ['read full tool results', post('/v1/query?debug=true', { query: 'show bills', entityId, orgId })],
    ['replay a request', get(`/v1/requests/${requestOfA}/events?debug=true`)],
    ['replay an unknown request', get(`/v1/requests/${randomUUID()}/events`)],
    ['list conversations', get(`/v1/conversations?${scope}`)],
    ['read a conversation', get(`/v1/conversations/${conversationOfA}?${scope}`)],
    ['export a conversation', get(`/v1/conversations/${conversationOfA}/export?${scope}`)],
    ['give feedback', post('/v1/feedback', { requestId: requestOfA, signal: 'thumbs_up', entityId, orgId })],
    ['read suggestions', get(`/v1/suggestions?${scope}`)],
    ['read the health metrics', get(`/v1/metrics/health?${scope}`)],
    [
      'upload an attachment',
      () => fetch(`${url}/v1/attachments`, { method: 'POST', headers: bearer(credential), body: upload }),
    ],
    ['read an attachment', get(`/v1/attachments/${randomUUID()}?${scope}`)],
    [
      'ask over MCP',
      () =>
        fetch(`${url}/mcp`, {
          method: 'POST',
          headers: { ...json(credential), accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'query_cfo_agent', arguments: { query: 'show bills', entityId, orgId } },
          }),
        }),
    ],
  ];
}

/** A tenant id as a client might send one: the known tenant, and generated ones. */
const tenants = [
  ['ent-a', 'org-a'],
  ...Array.from({ length: 3 }, () => [`ent-${randomUUID().slice(0, 8)}`, `org-${randomUUID().slice(0, 8)}`]),
] as const;

describe('an admin credential that names no tenant', () => {
  test.each(['admin key', 'admin token'] as const)(
    'is refused with 403 naming why, as the %s, on every way to act for a tenant, and nothing is submitted',
    async (which) => {
      const credential = which === 'admin key' ? ADMIN_KEY : tokens.admin;
      const submitted = bed.backend.received.length;
      for (const [entityId, orgId] of tenants) {
        for (const [what, call] of tenantCalls(credential, entityId, orgId)) {
          const response = await call();
          const body = await response.text();
          expect({ what, status: response.status }).toEqual({ what, status: 403 });
          expect(body, what).toMatch(REFUSAL);
          expect(body, what).not.toContain('books of');
        }
      }
      expect(bed.backend.received.length).toBe(submitted);
    },
  );

  test('still administers', async () => {
    for (const credential of [ADMIN_KEY, tokens.admin]) {
      const response = await fetch(`${url}/v1/admin/tools`, { headers: bearer(credential) });
      expect(response.status).toBe(200);
    }
  });
});

describe('an admin credential that is also a tenant’s user', () => {
  test('asks, replays and reads full tool results for its own tenant', async () => {
    const asked = await fetch(`${url}/v1/query?debug=true`, {
      method: 'POST',
      headers: json(tokens.adminOfA),
      body: JSON.stringify({ query: 'show bills', entityId: 'ent-a', orgId: 'org-a' }),
    });
    expect(asked.status).toBe(200);
    expect(JSON.stringify((await readSse(asked)).events)).toContain('books of ent-a');
    const replay = await fetch(`${url}/v1/requests/${requestOfA}/events?debug=true`, {
      headers: bearer(tokens.adminOfA),
    });
    expect((await readSse(replay)).events.map((e) => e.event)).toEqual(['connected', 'complete']);
  });

  test('is refused for any other tenant', async () => {
    const refused = await postQuery(
      url,
      { query: 'show bills', entityId: 'ent-b', orgId: 'org-b' },
      bearer(tokens.adminOfA),
    );
    expect(refused.status).toBe(403);
  });
});
