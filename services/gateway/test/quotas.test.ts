// Per-tenant quotas, kept in PostgreSQL so every gateway instance sees them:
// two gateways on one database share a tenant's query quota, the N+1th query across both gets 429
// with Retry-After naming the quota, over /v1/query, /mcp and /v1/query/audio alike; another org
// of the same entity is unaffected; a token quota the agents used up refuses queries too; and the
// window rolls over by the (injected) clock.
import { TenantUsage } from '@munim/db';
import { type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import { test } from '@munim/testkit';
import { pino } from 'pino';
import { afterAll, describe, expect } from 'vitest';
import { buildGateway, type Gateway } from '../src/app.ts';
import { loadEnv } from '../src/env.ts';
import { type GatewayTestbed, gatewayTestbed, postQuery, readSse } from './helpers.ts';

const WINDOW_MS = 60_000;
/** 10:00:15 UTC: 45 s before the minute's window ends. */
let now = Date.UTC(2026, 4, 1, 10, 0, 15);
const clock = () => now;
const orgA = { entityId: 'ent-quota', orgId: 'org-a' };
const orgB = { entityId: 'ent-quota', orgId: 'org-b' };
const QUERY_QUOTA_USED_UP =
  'The query quota of this organisation is used up (3 queries per minute); it resets in 45 seconds (at 10:01 UTC).';

let bed: GatewayTestbed;
let stt: ScriptedLlm;
const gateways: Gateway[] = [];
let urlA: string;
let urlB: string;

/** A gateway on the testbed's NATS slice and database, reading the test's clock. */
async function startGateway(): Promise<string> {
  const config = loadEnv({
    NATS_PREFIX: bed.testBus.prefix,
    // Quotas need a database; this one is handed to the gateway below instead of by URL.
    DATABASE_URL: 'postgres://testbed@127.0.0.1:5432/testbed',
    QUOTA_QUERIES_PER_WINDOW: '3',
    QUOTA_TOKENS_PER_WINDOW: '1000',
    QUOTA_WINDOW_MS: String(WINDOW_MS),
    STT_BASE_URL: stt.baseURL,
    STT_API_KEY: 'sk-test',
  });
  const bus = await bed.testBus.bus('gateway');
  const gateway = await buildGateway({ bus, log: pino({ level: 'silent' }), config, db: bed.db, clock });
  gateways.push(gateway);
  await gateway.start();
  return gateway.app.listen({ port: 0, host: '127.0.0.1' });
}

test.beforeAll(async ({ nats, db: fileDb }) => {
  bed = await gatewayTestbed({ nats, db: fileDb }, (message) => `Answered for ${message.orgId}.`);
  stt = await startScriptedLlm({ apiKey: 'sk-test' });
  urlA = await startGateway();
  urlB = await startGateway();
});

afterAll(async () => {
  for (const gateway of gateways) await gateway.stop();
  await stt?.close();
  await bed?.close();
});

async function ask(url: string, tenant: typeof orgA) {
  const res = await postQuery(url, { query: 'show overdue invoices', ...tenant });
  if (res.status !== 200)
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
  const { events } = await readSse(res);
  return { status: res.status, retryAfter: null, body: events.at(-1) };
}

const queriesCounted = async (tenant: typeof orgA) =>
  new TenantUsage(bed.db, { windowMs: WINDOW_MS, now: clock }).count(tenant, 'queries');

describe('quotas shared by two gateways', () => {
  test('refuse the tenant’s N+1th query across both with 429 and Retry-After; another org is unaffected', async () => {
    for (const url of [urlA, urlB, urlA]) {
      expect(await ask(url, orgA)).toMatchObject({
        status: 200,
        body: { event: 'complete', data: { response: 'Answered for org-a.' } },
      });
    }
    for (const url of [urlB, urlA]) {
      expect(await ask(url, orgA)).toEqual({
        status: 429,
        retryAfter: '45',
        body: { error: { code: 'RATE_LIMITED', message: QUERY_QUOTA_USED_UP } },
      });
    }
    expect(await ask(urlB, orgB)).toMatchObject({
      status: 200,
      body: { data: { response: 'Answered for org-b.' } },
    });
    // Refused queries were never submitted, nor counted.
    expect(bed.backend.received.filter((r) => r.message.orgId === 'org-a')).toHaveLength(3);
    expect(await queriesCounted(orgA)).toBe(3);
  });

  test('refuse an MCP tool call and a spoken query of that tenant over HTTP too, before any work', async () => {
    const mcp = await fetch(`${urlB}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'query_cfo_agent', arguments: { query: 'show bills', ...orgA } },
      }),
    });
    expect(mcp.status).toBe(429);
    expect(mcp.headers.get('retry-after')).toBe('45');
    expect(await mcp.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: QUERY_QUOTA_USED_UP },
      id: 7,
    });

    const form = new FormData();
    for (const [k, v] of Object.entries(orgA)) form.set(k, v);
    form.set('file', new Blob([new Uint8Array(2048)], { type: 'audio/webm' }), 'question.webm');
    const audio = await fetch(`${urlA}/v1/query/audio`, { method: 'POST', body: form });
    expect(audio.status).toBe(429);
    expect(audio.headers.get('retry-after')).toBe('45');
    expect(await audio.json()).toEqual({ error: { code: 'RATE_LIMITED', message: QUERY_QUOTA_USED_UP } });
    // Refused before the transcription was paid for.
    expect(stt.transcriptions).toHaveLength(0);

    // Another tenant's tool call is admitted, and counted like any query.
    const admitted = await fetch(`${urlA}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: {
          name: 'query_cfo_agent',
          arguments: { query: 'show bills', entityId: 'ent-quota', orgId: 'org-mcp' },
        },
      }),
    });
    expect(admitted.status).toBe(200);
    expect(await admitted.text()).toContain('Answered for org-mcp.');
    expect(await queriesCounted({ entityId: 'ent-quota', orgId: 'org-mcp' })).toBe(1);
  });

  test('refuse new queries while the tenant’s model tokens are used up, naming that quota', async () => {
    const orgT = { entityId: 'ent-quota', orgId: 'org-tokens' };
    // As the agents count them after each model call.
    await new TenantUsage(bed.db, { windowMs: WINDOW_MS, now: clock }).add(orgT, 'tokens', 1200);
    expect(await ask(urlA, orgT)).toEqual({
      status: 429,
      retryAfter: '45',
      body: {
        error: {
          code: 'RATE_LIMITED',
          message:
            'The model token quota of this organisation is used up (1,000 model tokens per minute); it resets in 45 seconds (at 10:01 UTC).',
        },
      },
    });
    expect(await queriesCounted(orgT)).toBe(0);
  });

  test('admit everyone again once the window rolls over', async () => {
    now += WINDOW_MS;
    expect(await ask(urlB, orgA)).toMatchObject({
      status: 200,
      body: { data: { response: 'Answered for org-a.' } },
    });
    expect(await ask(urlA, { entityId: 'ent-quota', orgId: 'org-tokens' })).toMatchObject({ status: 200 });
    expect(await queriesCounted(orgA)).toBe(1);
  });

  test('need the database: quotas set without DATABASE_URL are a configuration error', () => {
    expect(() => loadEnv({ QUOTA_QUERIES_PER_WINDOW: '3' })).toThrow(
      'QUOTA_QUERIES_PER_WINDOW: needs DATABASE_URL (quotas are counted there)',
    );
  });
});
