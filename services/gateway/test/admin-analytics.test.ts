import { randomUUID } from 'node:crypto';
import type { Database } from '@munim/db';
import { type FixtureNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { startGateway } from './helpers.ts';

let testBus: FixtureNats;
const ADMIN_KEY = 'admin-key-analytics-0001';
let db: Kysely<Database>;
let gateway: Gateway;
let url: string;
let intentId: string;
let intentName: string;

const T0 = new Date('2026-03-01T12:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

/** One request as the logger stores it: its routing-log row and its events. */
async function request(opts: {
  entityId?: string;
  orgId?: string;
  at: Date;
  intent?: string | null;
  path?: string;
  status?: string;
  latency?: number;
  events?: [string, Record<string, unknown>][];
}) {
  const requestId = randomUUID();
  const entityId = opts.entityId ?? 'ent-a';
  const orgId = opts.orgId ?? 'org-a';
  await db
    .insertInto('query_routing_logs')
    .values({
      request_id: requestId,
      entity_id: entityId,
      org_id: orgId,
      conversation_id: 'conv-1',
      intent_id: opts.intent ?? null,
      path: opts.path ?? 'llm',
      status: opts.status ?? 'answered',
      latency_ms: opts.latency ?? null,
      created_at: opts.at,
    })
    .execute();
  for (const [index, [type, payload]] of (opts.events ?? []).entries()) {
    await db
      .insertInto('request_events')
      .values({
        id: randomUUID(),
        request_id: requestId,
        seq: index + 1,
        type,
        service: type === 'write_validation' ? 'validator' : 'mcp-executor',
        conversation_id: 'conv-1',
        entity_id: entityId,
        org_id: orgId,
        payload: JSON.stringify(payload),
        ts: new Date(opts.at.getTime() + index),
      })
      .execute();
  }
}

const read = (tool: string, durationMs: number, success = true): [string, Record<string, unknown>][] => [
  ['executing_tool', { tool }],
  ['tool_result', { tool, success, duration_ms: durationMs }],
];
const write = (tool: string, blocked: boolean, durationMs = 0): [string, Record<string, unknown>][] =>
  blocked
    ? [['write_validation', { tool, status: 'blocked', duration_ms: 1 }]]
    : [['write_validation', { tool, status: 'passed', duration_ms: 1 }], ...read(tool, durationMs)];

test.beforeAll(async ({ nats, db: fileDb }) => {
  testBus = nats;
  db = fileDb;
  ({ gateway, url } = await startGateway(testBus, { GATEWAY_ADMIN_KEYS: ADMIN_KEY }, db));
  const intent = await db
    .selectFrom('intents')
    .select(['id', 'name'])
    .orderBy('id')
    .executeTakeFirstOrThrow();
  intentId = intent.id;
  intentName = intent.name;
  await request({
    at: at(1),
    intent: intentId,
    path: 'fast',
    latency: 100,
    events: read('get_invoices', 10),
  });
  await request({
    at: at(2),
    intent: intentId,
    path: 'fast',
    latency: 200,
    events: read('get_invoices', 20),
  });
  await request({
    at: at(3),
    intent: intentId,
    status: 'error',
    latency: 300,
    events: read('get_invoices', 30, false),
  });
  await request({ at: at(4), events: [...read('get_invoices', 40), ...write('create_payment', true)] });
  await request({
    at: at(5),
    events: [...write('create_payment', false, 100), ...write('create_payment', true)],
  });
  await request({ at: at(6), events: write('create_payment', false, 200) });
  // Outside the window, and another entity inside it.
  await request({ at: at(-120), intent: intentId, latency: 5, events: read('get_invoices', 9_999, false) });
  await request({ at: at(7), entityId: 'ent-b', intent: intentId, events: read('get_bills', 7) });
});

afterAll(async () => {
  await gateway?.stop();
});

const analytics = (query: string) =>
  fetch(`${url}/v1/admin/analytics?${query}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });

describe('GET /v1/admin/analytics', () => {
  test('reports usage, failure and block rates and p50/p95 latency per tool and per intent in the window', async () => {
    const from = at(0).toISOString();
    const to = at(60).toISOString();
    const response = await analytics(`from=${from}&to=${to}&entityId=ent-a`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({
      from,
      to,
      tools: [
        {
          tool: 'get_invoices',
          calls: 4,
          failures: 1,
          failureRate: 0.25,
          validations: 0,
          blocks: 0,
          blockRate: 0,
          latencyMs: { p50: 25, p95: 38.5 },
        },
        {
          tool: 'create_payment',
          calls: 2,
          failures: 0,
          failureRate: 0,
          validations: 4,
          blocks: 2,
          blockRate: 0.5,
          latencyMs: { p50: 150, p95: 195 },
        },
      ],
      intents: [
        {
          intentId,
          name: intentName,
          requests: 3,
          fastPath: 2,
          failures: 1,
          failureRate: 0.3333,
          latencyMs: { p50: 200, p95: 290 },
        },
      ],
    });
  });

  test('covers every entity without an entity filter', async () => {
    const response = await analytics(`from=${at(0).toISOString()}&to=${at(60).toISOString()}`);
    const body = (await response.json()) as { tools: { tool: string }[]; intents: { requests: number }[] };
    expect(body.tools.map((t) => t.tool)).toEqual(['get_invoices', 'create_payment', 'get_bills']);
    expect(body.intents[0]?.requests).toBe(4);
  });

  test('narrows to one tenant with the org: another org may share the entity id', async () => {
    await request({ at: at(500), events: read('get_bills', 5) });
    await request({ at: at(501), orgId: 'org-z', intent: intentId, events: read('get_vendors', 5) });
    const window = `from=${at(499).toISOString()}&to=${at(510).toISOString()}`;
    const tools = async (query: string) =>
      ((await (await analytics(`${window}&${query}`)).json()) as { tools: { tool: string }[] }).tools.map(
        (t) => t.tool,
      );
    expect(await tools('entityId=ent-a')).toEqual(['get_bills', 'get_vendors']);
    expect(await tools('entityId=ent-a&orgId=org-z')).toEqual(['get_vendors']);
    expect(await tools('orgId=org-a')).toEqual(['get_bills']);
  });

  test('is empty for a window with nothing in it', async () => {
    const response = await analytics(`from=${at(1000).toISOString()}&to=${at(2000).toISOString()}`);
    expect(await response.json()).toMatchObject({ tools: [], intents: [] });
  });

  test('refuses a bad window with 400 naming the field', async () => {
    for (const [query, field] of [
      ['from=yesterday', 'from'],
      [`from=${at(10).toISOString()}&to=${at(0).toISOString()}`, 'from'],
      ['to=2026-01-01T00:00:00Z&limit=3', 'limit'],
    ] as const) {
      const response = await analytics(query);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'BAD_REQUEST', field } });
    }
  });
});
