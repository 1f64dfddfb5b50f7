import { randomUUID } from 'node:crypto';
import type { HealthMetrics } from '@munim/contracts';
import type { Database, WriteToolResult } from '@munim/db';
import { type FixtureNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { startGateway } from './helpers.ts';

let testBus: FixtureNats;
let db: Kysely<Database>;
let gateway: Gateway;
let url: string;
let withAuth: { gateway: Gateway; url: string };
let withoutDb: { gateway: Gateway; url: string };
const T0 = Date.parse('2026-03-01T10:00:00Z');
const WINDOW = 'from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00Z';
const at = (ms: number) => new Date(T0 + ms);

async function request(
  row: {
    entityId?: string;
    orgId?: string;
    createdAt?: Date;
    path: string | null;
    status: string;
    writes?: WriteToolResult[];
    tokens?: [number, number];
    latency?: number;
  },
  events: [type: string, offsetMs: number, payload?: Record<string, unknown>][] = [],
) {
  const requestId = randomUUID();
  const createdAt = row.createdAt ?? at(0);
  const tenant = { entity_id: row.entityId ?? 'ent-h', org_id: row.orgId ?? 'org-h' };
  await db
    .insertInto('query_routing_logs')
    .values({
      request_id: requestId,
      ...tenant,
      conversation_id: 'conv-h',
      path: row.path,
      status: row.status,
      is_write_operation: (row.writes ?? []).length > 0,
      write_tool_results: JSON.stringify(row.writes ?? []),
      input_tokens: row.tokens?.[0] ?? null,
      output_tokens: row.tokens?.[1] ?? null,
      latency_ms: row.latency ?? null,
      created_at: createdAt,
    })
    .execute();
  let seq = 0;
  for (const [type, offset, payload] of events) {
    seq += 1;
    await db
      .insertInto('request_events')
      .values({
        id: randomUUID(),
        request_id: requestId,
        seq,
        type,
        service: 'agent',
        conversation_id: 'conv-h',
        ...tenant,
        payload: JSON.stringify(payload ?? {}),
        ts: new Date(createdAt.getTime() + offset),
      })
      .execute();
  }
}

const write = (
  tool: string,
  status: 'blocked' | 'passed',
  mcp: WriteToolResult['mcp_result'] = null,
): WriteToolResult => ({
  tool,
  validation_status: status,
  fields_checked: [],
  duration_ms: 1,
  mcp_result: mcp,
});

test.beforeAll(async ({ nats, db: fileDb }) => {
  testBus = nats;
  db = fileDb;
  ({ gateway, url } = await startGateway(testBus, {}, db));
  withAuth = await startGateway(
    testBus,
    { GATEWAY_API_KEYS: 'key-h-0123456789abcdefghij:ent-h:org-h,key-z-0123456789abcdefghij:ent-h:org-z' },
    db,
  );
  withoutDb = await startGateway(testBus, {});

  // Blocked, self-corrected, executed.
  await request(
    {
      path: 'llm',
      status: 'answered',
      writes: [write('create_payment', 'blocked'), write('create_payment', 'passed', { success: true })],
      tokens: [100, 20],
      latency: 1000,
    },
    [
      ['connected', 0],
      ['route_classified', 50],
      ['write_validation', 100, { duration_ms: 2 }],
      ['tool_result', 200, { duration_ms: 40 }],
      ['write_validation', 300, { duration_ms: 1 }],
      ['response_generating', 500],
      ['complete', 1000],
    ],
  );
  // Blocked, never corrected.
  await request({
    path: 'llm',
    status: 'needs_input',
    writes: [write('create_bill', 'blocked')],
    tokens: [50, 10],
    latency: 3000,
  });
  // Passed, then failed at the accounting system.
  await request(
    {
      path: 'fast',
      status: 'answered',
      writes: [write('create_invoice', 'passed', { success: false, error: 'down' })],
      latency: 200,
    },
    [
      ['connected', 0],
      ['route_classified', 10],
      ['write_validation', 20, { duration_ms: 3 }],
      ['complete', 200],
    ],
  );
  await request({ path: 'cached', status: 'answered', latency: 100 });
  await request({ path: null, status: 'running' });
  // Another organisation of the same entity, and the same tenant outside the window.
  await request({ orgId: 'org-z', path: 'fast', status: 'answered', latency: 5 });
  await request({
    createdAt: new Date('2026-03-05T00:00:00Z'),
    path: 'fast',
    status: 'answered',
    latency: 5,
  });
});

afterAll(async () => {
  await gateway?.stop();
  await withAuth?.gateway.stop();
  await withoutDb?.gateway.stop();
});

describe('GET /v1/metrics/health', () => {
  test('computes the health monitor figures of the tenant and window', async () => {
    const response = await fetch(`${url}/v1/metrics/health?${WINDOW}&entityId=ent-h&orgId=org-h`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as HealthMetrics;
    expect(body).toMatchObject({
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-03-02T00:00:00.000Z',
      entityId: 'ent-h',
      orgId: 'org-h',
      queries: 5,
      finished: 4,
      rates: {
        writeValidationBlock: { value: 0.5, numerator: 2, denominator: 4 },
        selfCorrectionSuccess: { value: 0.5, numerator: 1, denominator: 2 },
        writeFailureAfterValidation: { value: 0.5, numerator: 1, denominator: 2 },
        fastPathHit: { value: 0.25, numerator: 1, denominator: 4 },
        cacheHit: { value: 0.25, numerator: 1, denominator: 4 },
      },
      llmTokensPerQuery: { input: 37.5, output: 7.5, total: 45 },
    });
    const latency = body.latencyMs;
    expect(latency.total).toMatchObject({ p50: 600, count: 4 });
    expect(latency.total.p95).toBeCloseTo(2700, 6);
    expect(latency.routing).toMatchObject({ p50: 30, count: 2 });
    expect(latency.routing.p95).toBeCloseTo(48, 6);
    expect(latency.validation).toMatchObject({ p50: 2, count: 3 });
    expect(latency.validation.p95).toBeCloseTo(2.9, 6);
    expect(latency.tool).toEqual({ p50: 40, p95: 40, count: 1 });
    expect(latency.response).toEqual({ p50: 500, p95: 500, count: 1 });
  });

  test('answers an empty window with zero counts and null rates', async () => {
    const response = await fetch(
      `${url}/v1/metrics/health?from=2025-01-01T00:00:00Z&to=2025-01-02T00:00:00Z&entityId=ent-h&orgId=org-h`,
    );
    const body = (await response.json()) as HealthMetrics;
    expect(body.queries).toBe(0);
    expect(body.rates.fastPathHit).toEqual({ value: null, numerator: 0, denominator: 0 });
    expect(body.latencyMs.total).toEqual({ p50: null, p95: null, count: 0 });
    expect(body.llmTokensPerQuery).toEqual({ input: null, output: null, total: null });
  });

  test('scopes to the tenant of the API key and refuses another one', async () => {
    const own = await fetch(`${withAuth.url}/v1/metrics/health?${WINDOW}`, {
      headers: { authorization: 'Bearer key-z-0123456789abcdefghij' },
    });
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({
      orgId: 'org-z',
      queries: 1,
      rates: { fastPathHit: { value: 1 } },
    });
    const other = await fetch(`${withAuth.url}/v1/metrics/health?${WINDOW}&orgId=org-h`, {
      headers: { authorization: 'Bearer key-z-0123456789abcdefghij' },
    });
    expect(other.status).toBe(403);
    expect((await fetch(`${withAuth.url}/v1/metrics/health?${WINDOW}`)).status).toBe(401);
  });

  test('rejects a bad window and answers 503 without a database', async () => {
    const tenant = 'entityId=ent-h&orgId=org-h';
    const backwards = await fetch(
      `${url}/v1/metrics/health?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z&${tenant}`,
    );
    expect(backwards.status).toBe(400);
    expect(await backwards.json()).toMatchObject({ error: { field: 'from' } });
    const garbage = await fetch(`${url}/v1/metrics/health?from=yesterday&${tenant}`);
    expect(garbage.status).toBe(400);
    expect((await fetch(`${url}/v1/metrics/health?${WINDOW}`)).status).toBe(400);
    expect((await fetch(`${withoutDb.url}/v1/metrics/health?${WINDOW}&${tenant}`)).status).toBe(503);
  });
});
