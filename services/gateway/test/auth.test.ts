import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Bus } from '@munim/bus';
import { HttpErrorSchema } from '@munim/contracts';
import { ConfigError } from '@munim/kit';
import { type FixtureNats, test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { loadEnv } from '../src/env.ts';
import { completeEvent, connectedOf, fakeBackend, postQuery, readSse, startGateway } from './helpers.ts';

const KEY_A = 'key-a-3f9c1d7e5b-0123456789';
const KEY_B = 'key-b-8a2e6c4f0d-0123456789';
let testBus: FixtureNats;
let gateway: Gateway;
let url: string;
let bus: Bus;
let backend: Awaited<ReturnType<typeof fakeBackend>>;
let requestOfA: string;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const body = (entityId: string, orgId: string) => ({ query: 'show overdue invoices', entityId, orgId });

test.beforeAll(async ({ nats }) => {
  testBus = nats;
  ({ gateway, url, bus } = await startGateway(testBus, {
    GATEWAY_API_KEYS: `${KEY_A}:ent-a:org-a, ${KEY_B}:ent-b:org-b`,
  }));
  backend = await fakeBackend(testBus, (message) => [
    completeEvent(message.data.query, `books of ${message.entityId}`),
  ]);
  const response = await postQuery(url, body('ent-a', 'org-a'), bearer(KEY_A));
  expect(response.status).toBe(200);
  const { events } = await readSse(response);
  requestOfA = connectedOf(events).requestId;
  expect(events.at(-1)).toMatchObject({ event: 'complete', data: { response: 'books of ent-a' } });
});

afterAll(async () => {
  await backend?.stop();
  await gateway?.stop();
});

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(HttpErrorSchema.parse(await response.json()).error.code).toBe(code);
}

describe('API keys', () => {
  test('answers 401 without a key, with an unknown key or a malformed header, publishing nothing', async () => {
    const before = await testBus.lastSeq(bus, 'work');
    await expectError(await postQuery(url, body('ent-a', 'org-a')), 401, 'UNAUTHORIZED');
    await expectError(
      await postQuery(url, body('ent-a', 'org-a'), bearer('key-c-unknown')),
      401,
      'UNAUTHORIZED',
    );
    await expectError(await postQuery(url, body('ent-a', 'org-a'), bearer(`${KEY_A}x`)), 401, 'UNAUTHORIZED');
    await expectError(
      await postQuery(url, body('ent-a', 'org-a'), { authorization: KEY_A }),
      401,
      'UNAUTHORIZED',
    );
    await expectError(await fetch(`${url}/v1/requests/${requestOfA}/events`), 401, 'UNAUTHORIZED');
    expect(await testBus.lastSeq(bus, 'work')).toBe(before);
  });

  test('answers 403 when a key acts for another entity or organisation', async () => {
    const before = await testBus.lastSeq(bus, 'work');
    await expectError(await postQuery(url, body('ent-b', 'org-b'), bearer(KEY_A)), 403, 'FORBIDDEN');
    await expectError(await postQuery(url, body('ent-a', 'org-b'), bearer(KEY_A)), 403, 'FORBIDDEN');
    expect(await testBus.lastSeq(bus, 'work')).toBe(before);
  });

  test("serves a tenant's own replay and hides another tenant's request as 404", async () => {
    const own = await fetch(`${url}/v1/requests/${requestOfA}/events`, { headers: bearer(KEY_A) });
    expect(own.status).toBe(200);
    expect((await readSse(own)).events.map((e) => e.event)).toEqual(['connected', 'complete']);
    const other = await fetch(`${url}/v1/requests/${requestOfA}/events`, { headers: bearer(KEY_B) });
    await expectError(other, 404, 'NOT_FOUND');
  });

  test('leaves the health endpoints open', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  test('guards /mcp and takes entity and org from the key', async () => {
    await expectError(
      await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      }),
      401,
      'UNAUTHORIZED',
    );
    const client = new Client({ name: 'auth-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: bearer(KEY_B) } }),
    );
    try {
      const ok = await client.callTool({ name: 'query_cfo_agent', arguments: { query: 'cash position' } });
      expect(ok.isError).toBeFalsy();
      expect((ok.content as { text: string }[])[0]?.text).toBe('books of ent-b');
      const before = await testBus.lastSeq(bus, 'work');
      const denied = await client.callTool({
        name: 'query_cfo_agent',
        arguments: { query: 'cash position', entityId: 'ent-a' },
      });
      expect(denied.isError).toBe(true);
      expect((denied.content as { text: string }[])[0]?.text).toMatch(/entityId does not match/);
      expect(await testBus.lastSeq(bus, 'work')).toBe(before);
    } finally {
      await client.close();
    }
  });
});

describe('GATEWAY_API_KEYS parsing', () => {
  test('parses key:entityId:orgId triples, each its tenant’s owner', () => {
    const k1 = 'k1-0123456789abcdefghijklm';
    const k2 = 'k2-0123456789abcdefghijklm';
    expect(loadEnv({ GATEWAY_API_KEYS: `${k1}:e1:o1,${k2}:e2:o2` }).GATEWAY_API_KEYS).toEqual([
      { key: k1, entityId: 'e1', orgId: 'o1', roles: ['owner'] },
      { key: k2, entityId: 'e2', orgId: 'o2', roles: ['owner'] },
    ]);
    expect(loadEnv({}).GATEWAY_API_KEYS).toEqual([]);
  });

  test('parses the user a key acts as, and that user’s roles (none named: a viewer)', () => {
    const k1 = 'k1-0123456789abcdefghijklm';
    const k2 = 'k2-0123456789abcdefghijklm';
    const k3 = 'k3-0123456789abcdefghijklm';
    expect(
      loadEnv({
        GATEWAY_API_KEYS: `${k1}:e1:o1:priya:maker+approver, ${k2}:e1:o1:bot:automation,${k3}:e1:o1:ravi`,
      }).GATEWAY_API_KEYS,
    ).toEqual([
      { key: k1, entityId: 'e1', orgId: 'o1', userId: 'priya', roles: ['maker', 'approver'] },
      { key: k2, entityId: 'e1', orgId: 'o1', userId: 'bot', roles: ['automation'] },
      { key: k3, entityId: 'e1', orgId: 'o1', userId: 'ravi', roles: ['viewer'] },
    ]);
  });

  test.each([
    ['sekrit-1-0123456789abcdefgh:e1'],
    ['sekrit-1-0123456789abcdefgh:e1:o1:x:boss'],
    ['sekrit-1-0123456789abcdefgh:e1:o1:x:maker:more'],
    ['sekrit-1-0123456789abcdefgh:e1:o1::maker'],
    ['sekrit-1-0123456789abcdefgh:e1:o1:u 1:maker'],
    ['sekrit-1-0123456789abcdefgh::o1'],
    ['sekrit-1-0123456789abcdefgh:e 1:o1'],
    ['sekrit-1-0123456789abcdefgh:e1:o1,sekrit-1-0123456789abcdefgh:e2:o2'],
    ['sekrit-short:e1:o1'],
  ])('rejects %s with an error naming the variable but not the key', (value) => {
    let error: unknown;
    try {
      loadEnv({ GATEWAY_API_KEYS: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('GATEWAY_API_KEYS');
    expect((error as Error).message).not.toContain('sekrit');
  });

  test('rejects other bad numbers by name', () => {
    expect(() => loadEnv({ BODY_LIMIT_BYTES: 'lots' })).toThrow(/BODY_LIMIT_BYTES/);
    expect(() => loadEnv({ PORT: '70000' })).toThrow(/PORT/);
  });
});
