// Quotas, the gateway's side: speech to text is counted per tenant (each transcription is
// one query of its organisation, taken before it is paid for, so concurrent uploads cannot pass the
// quota), and a usage table that cannot be reached refuses queries with 503 unless the deployment
// set QUOTA_STORE_UNREACHABLE=admit.
import { createDb, TenantUsage } from '@munim/db';
import { type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { type GatewayTestbed, gatewayTestbed, postQuery, readSse, startGateway } from './helpers.ts';

let bed: GatewayTestbed;
let stt: ScriptedLlm;
const unreachable = createDb('postgres://nobody@127.0.0.1:1/none');
const stopped: { stop(): Promise<void> }[] = [];

test.beforeAll(async ({ nats, db: fileDb }) => {
  bed = await gatewayTestbed({ nats, db: fileDb }, (message) => `Answered for ${message.orgId}.`);
  stt = await startScriptedLlm({ apiKey: 'sk-test' });
  stt.transcribeAs('show overdue invoices');
});

afterAll(async () => {
  for (const gateway of stopped) await gateway.stop();
  await unreachable.destroy();
  await stt?.close();
  await bed?.close();
});

const QUOTAS = {
  DATABASE_URL: 'postgres://testbed@127.0.0.1:5432/testbed',
  QUOTA_QUERIES_PER_WINDOW: '3',
  QUOTA_WINDOW_MS: '3600000',
};

function transcribe(url: string, fields: Record<string, string>) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set('file', new Blob([new Uint8Array(2048)], { type: 'audio/webm' }), 'question.webm');
  return fetch(`${url}/v1/transcribe`, { method: 'POST', body: form });
}

const queriesCounted = (tenant: { entityId: string; orgId: string }) =>
  new TenantUsage(bed.db, { windowMs: 3_600_000 }).count(tenant, 'queries');

describe('speech to text counted per tenant', () => {
  test('lets a tenant transcribe only as often as its quota allows, even all at once, and counts each', async () => {
    const { url } = await bed.startGateway({ ...QUOTAS, STT_BASE_URL: stt.baseURL, STT_API_KEY: 'sk-test' });
    for (const [round, burst] of [5, 9, 14].entries()) {
      stt.reset();
      const tenant = { entityId: 'ent-stt', orgId: `org-burst-${round}` };
      const answers = await Promise.all(Array.from({ length: burst }, () => transcribe(url, tenant)));
      // Only the refusals are asserted by status: whether the STT endpoint then answers is not this test's.
      expect(answers.filter((a) => a.status === 429)).toHaveLength(burst - 3);
      const refused = answers.find((a) => a.status === 429);
      expect(await refused?.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
      expect(stt.transcriptions.length).toBeLessThanOrEqual(3);
      expect(await queriesCounted(tenant)).toBe(3);
    }
    // Another organisation's quota is its own.
    const other = await transcribe(url, { entityId: 'ent-stt', orgId: 'org-other' });
    expect(other.status).not.toBe(429);
    expect(await queriesCounted({ entityId: 'ent-stt', orgId: 'org-other' })).toBe(1);
  });

  test('refuses a transcription that names no organisation while quotas are kept, before paying for it', async () => {
    const { url } = await bed.startGateway({ ...QUOTAS, STT_BASE_URL: stt.baseURL, STT_API_KEY: 'sk-test' });
    stt.reset();
    for (const fields of [{}, { entityId: 'ent-stt' }, { orgId: 'org-a' }]) {
      const answer = await transcribe(url, fields);
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({
        error: { code: 'BAD_REQUEST', message: /entityId, orgId/ },
      });
    }
    expect(stt.transcriptions).toHaveLength(0);
  });
});

describe('a usage table that cannot be reached', () => {
  test('refuses queries and transcriptions with 503 by default, naming why', async () => {
    const started = await startGateway(
      bed.testBus,
      { ...QUOTAS, STT_BASE_URL: stt.baseURL, STT_API_KEY: 'sk-test' },
      unreachable,
    );
    stopped.push(started.gateway);
    stt.reset();
    const tenant = { entityId: 'ent-down', orgId: 'org-down' };
    const res = await postQuery(started.url, { query: 'show overdue invoices', ...tenant });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(await res.json()).toEqual({
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/quotas cannot be checked/) },
    });
    expect((await transcribe(started.url, tenant)).status).toBe(503);
    const mcp = await fetch(`${started.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'query_cfo_agent', arguments: { query: 'show bills', ...tenant } },
      }),
    });
    expect(mcp.status).toBe(503);
    expect(await mcp.json()).toMatchObject({
      error: { message: expect.stringMatching(/quotas cannot be checked/) },
    });
    expect(stt.transcriptions).toHaveLength(0);
    expect(bed.backend.received.filter((r) => r.message.orgId === 'org-down')).toHaveLength(0);
  });

  test('admits queries uncounted when QUOTA_STORE_UNREACHABLE=admit', async () => {
    const started = await startGateway(
      bed.testBus,
      { ...QUOTAS, QUOTA_STORE_UNREACHABLE: 'admit' },
      unreachable,
    );
    stopped.push(started.gateway);
    const res = await postQuery(started.url, {
      query: 'show overdue invoices',
      entityId: 'ent-down',
      orgId: 'org-up',
    });
    expect(res.status).toBe(200);
    const { events } = await readSse(res);
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { response: 'Answered for org-up.' } });
  });

  test('is a configuration error when set to anything but refuse or admit', async () => {
    await expect(startGateway(bed.testBus, { ...QUOTAS, QUOTA_STORE_UNREACHABLE: 'ignore' })).rejects.toThrow(
      /QUOTA_STORE_UNREACHABLE/,
    );
  });
});
