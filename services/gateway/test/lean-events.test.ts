/**
 * A tool's result travels to a client as its outcome (success, record count, duration),
 * not its data; the data goes only to a caller allowed to debug, who asks for it.
 */

import { type FixtureNats, test } from '@munim/testkit';
import { SignJWT } from 'jose';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { completeEvent, connectedOf, fakeBackend, postQuery, readSse, startGateway } from './helpers.ts';

const KEY = 'tenant-key-5b1d9e7c3a-0123456789';
const ADMIN = 'admin-key-0f2c8e6a4b-0123456789';
const SECRET = 'hs256-secret-lean-events-0123456789abcdef';
const RECORDS = [
  { InvoiceID: '0b8f1f9e-6a55-4c1c-9d7e-3f2a1b0c9d8e', InvoiceNumber: 'INV-0042', AmountDue: 1200 },
  { InvoiceID: '6c2d7a10-1b2e-4f3a-8c9d-0e1f2a3b4c5d', InvoiceNumber: 'INV-0043', AmountDue: 800 },
];

let testBus: FixtureNats;
const gateways: Gateway[] = [];
let open: string;
let guarded: string;
let backend: Awaited<ReturnType<typeof fakeBackend>>;

test.beforeAll(async ({ nats }) => {
  testBus = nats;
  const plain = await startGateway(testBus);
  const authed = await startGateway(testBus, {
    GATEWAY_API_KEYS: `${KEY}:ent-a:org-a`,
    GATEWAY_ADMIN_KEYS: ADMIN,
    GATEWAY_JWT_SECRET: SECRET,
  });
  gateways.push(plain.gateway, authed.gateway);
  open = plain.url;
  guarded = authed.url;
  backend = await fakeBackend(testBus, (message) => {
    const complete = completeEvent(message.data.query, 'You have 2 unpaid invoices.');
    if (complete.type !== 'complete') throw new Error('not a complete event');
    complete.payload.mcpToolResults = [
      { tool: 'list_invoices', input: { status: 'unpaid' }, result: RECORDS, success: true },
    ];
    return [
      { type: 'executing_tool', payload: { tool: 'list_invoices', args: { status: 'unpaid' } } },
      {
        type: 'tool_result',
        // An executor of an earlier version still sends the data: it is not passed on either.
        payload: { tool: 'list_invoices', success: true, recordCount: 2, result: RECORDS, duration_ms: 12 },
      },
      { type: 'response_chunk', payload: { text: 'You have 2 unpaid invoices.' } },
      complete,
    ];
  });
});

afterAll(async () => {
  await backend?.stop();
  for (const gateway of gateways) await gateway.stop();
});

const body = { query: 'unpaid invoices', entityId: 'ent-a', orgId: 'org-a' };
const of = (events: { event: string | undefined; data: unknown }[], type: string) =>
  events.find((e) => e.event === type)?.data as Record<string, unknown>;

describe('tool results on the stream', () => {
  test('are their outcome and record count, without the data, by default', async () => {
    const response = await postQuery(open, body);
    const raw = await response.clone().text();
    const { events } = await readSse(response);
    expect(of(events, 'tool_result')).toEqual({
      tool: 'list_invoices',
      success: true,
      recordCount: 2,
      duration_ms: 12,
    });
    expect(of(events, 'complete').mcpToolResults).toEqual([{ tool: 'list_invoices', success: true }]);
    expect(of(events, 'complete').response).toBe('You have 2 unpaid invoices.');
    // Not a byte of the records reached the client.
    expect(raw).not.toContain('INV-0042');
    expect(raw).not.toContain(RECORDS[0]?.InvoiceID);
  });

  test('carry the data with ?debug=true on a gateway without authentication', async () => {
    const response = await fetch(`${open}/v1/query?debug=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const { events } = await readSse(response);
    expect(of(events, 'tool_result').result).toEqual(RECORDS);
    expect(of(events, 'complete').mcpToolResults).toEqual([
      { tool: 'list_invoices', input: { status: 'unpaid' }, result: RECORDS, success: true },
    ]);
  });

  test('refuse the data to a tenant key, naming the parameter, and give it to an admin of the tenant', async () => {
    const refused = await fetch(`${guarded}/v1/query?debug=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify(body),
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'FORBIDDEN', field: 'debug' } });

    const lean = await readSse(await postQuery(guarded, body, { authorization: `Bearer ${KEY}` }));
    expect(of(lean.events, 'tool_result').result).toBeUndefined();

    const { requestId } = connectedOf(lean.events);
    const replay = (auth: string) =>
      fetch(`${guarded}/v1/requests/${requestId}/events?debug=1`, {
        headers: { authorization: `Bearer ${auth}` },
      });
    expect((await replay(KEY)).status).toBe(403);
    // An admin key names no tenant: it administers, and reads no tenant's data.
    expect((await replay(ADMIN)).status).toBe(403);
    const adminOfA = await new SignJWT({ role: 'admin', entity_id: 'ent-a', org_id: 'org-a' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('operator')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(SECRET));
    const full = await readSse(await replay(adminOfA));
    expect(of(full.events, 'tool_result').result).toEqual(RECORDS);
    expect(of(full.events, 'complete').mcpToolResults).toMatchObject([{ result: RECORDS }]);
  });

  test('refuse a debug value that is not a yes or a no', async () => {
    const response = await fetch(`${open}/v1/query?debug=maybe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain('debug');
  });
});

describe('a compact complete (?compact=true)', () => {
  const repeated = ['response', 'query', 'pipelineSteps', 'mcpToolResults'];

  test('leaves out what the stream carried before it, and keeps the rest', async () => {
    const full = of((await readSse(await postQuery(open, body))).events, 'complete');
    const response = await fetch(`${open}/v1/query?compact=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const raw = await response.clone().text();
    const { events } = await readSse(response);
    const compact = of(events, 'complete');
    for (const key of repeated) expect(compact).not.toHaveProperty(key);
    const kept = Object.fromEntries(Object.entries(full).filter(([key]) => !repeated.includes(key)));
    expect(compact).toEqual(kept);
    expect(compact.status).toBe('answered');
    // The answer went out once, in its chunk.
    expect(raw.split('You have 2 unpaid invoices.')).toHaveLength(2);
    expect(of(events, 'response_chunk').text).toBe('You have 2 unpaid invoices.');
  });

  test('is asked for on a replay too, and a value that is not a yes or a no is refused by name', async () => {
    const { events } = await readSse(await postQuery(open, body));
    const { requestId } = connectedOf(events);
    const replay = await readSse(await fetch(`${open}/v1/requests/${requestId}/events?compact=1`));
    expect(of(replay.events, 'complete')).not.toHaveProperty('response');

    for (const url of [
      `${open}/v1/query?compact=yes`,
      `${open}/v1/requests/${requestId}/events?compact=yes`,
    ]) {
      const refused = await fetch(url, {
        method: url.includes('/v1/query') ? 'POST' : 'GET',
        headers: { 'content-type': 'application/json' },
        ...(url.includes('/v1/query') ? { body: JSON.stringify(body) } : {}),
      });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(await refused.json())).toContain('compact');
    }
  });
});
