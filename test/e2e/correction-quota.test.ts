// The validator's LLM corrections are counted against the tenant's model token
// quota. The validator keeps no quota (it has no database): the agent holds tokens for the
// corrections before it asks, the validator reports what they spent, and the agent settles that.
// The six services run as processes on the real NATS and PostgreSQL; the validator reaches the
// scripted model through a proxy here that records the usage the model reported, or drops it, as
// some OpenAI-compatible endpoints report none.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatRequest } from '@munim/scripted-llm';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

interface Proxied {
  body: ChatRequest;
  /** The usage the model reported (undefined: none). */
  usage: { total_tokens: number } | undefined;
  content: string;
}

/** An HTTP proxy in front of the scripted model that records each completion and can drop its usage. */
async function usageProxy() {
  const state = { target: '', dropUsage: false, seen: [] as Proxied[] };
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', async () => {
      const text = Buffer.concat(parts).toString('utf8');
      const upstream = await fetch(`${state.target}${req.url ?? ''}`, {
        method: req.method ?? 'POST',
        headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
        body: text,
      });
      const reply = (await upstream.json()) as {
        usage?: { total_tokens: number };
        choices?: { message?: { content?: string } }[];
      };
      state.seen.push({
        body: JSON.parse(text) as ChatRequest,
        usage: reply.usage,
        content: reply.choices?.[0]?.message?.content ?? '',
      });
      if (state.dropUsage) delete reply.usage;
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    state,
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Big enough that nothing here is refused for lack of room, until a test uses the quota up. */
const QUOTA = 1_000_000;
let sys: TestSystem;
let proxy: Awaited<ReturnType<typeof usageProxy>>;

test.beforeAll(async ({ database, nats }) => {
  proxy = await usageProxy();
  sys = await startSystem({
    database,
    nats,
    // A day's window, aligned to midnight UTC: a test's counts do not straddle two windows.
    env: { QUOTA_TOKENS_PER_WINDOW: String(QUOTA), QUOTA_WINDOW_MS: String(86_400_000) },
    instanceEnv: (service) => (service === 'validator' ? { OPENAI_BASE_URL: proxy.baseURL } : undefined),
  });
  proxy.state.target = new URL(sys.llm?.baseURL ?? '').origin;
}, 120_000);

afterAll(async () => {
  await sys?.stop();
  await proxy?.close();
});

/**
 * A unique question the model answers with a `clarification` block that breaks its schema (one
 * option, no values), which the validator has the model correct; the corrections it made.
 */
async function askWithBrokenBlock(tenant: { entityId: string; orgId: string }) {
  const marker = randomUUID();
  const query = `which customer is meant ${marker.slice(0, 8)}`;
  const question = `Which customer do you mean (${marker})?`;
  sys.llm?.script({
    match: query,
    turns: [
      {
        content: `I need one detail.\n\n\`\`\`clarification\n${JSON.stringify({ question, options: [{ label: 'Acme' }] })}\n\`\`\``,
      },
    ],
  });
  sys.llm?.script({
    match: marker,
    turns: [
      {
        content: JSON.stringify({
          question,
          type: 'radio',
          options: [
            { label: 'Acme Corp', value: 'acme' },
            { label: 'Globex', value: 'globex' },
          ],
        }),
      },
    ],
  });
  const before = proxy.state.seen.length;
  const { status, events } = await ask(sys.gatewayUrl, { query, ...tenant });
  expect(status).toBe(200);
  const done = events.at(-1);
  expect(done?.event).toBe('complete');
  expect(JSON.stringify(done?.data)).toContain('Acme Corp');
  const corrections = proxy.state.seen.slice(before);
  expect(corrections).toHaveLength(1);
  return corrections[0] as Proxied;
}

const sum = async (sql: string, tenant: { entityId: string; orgId: string }) =>
  Number((await sys.db.query(sql, [tenant.entityId, tenant.orgId])).rows[0]?.n ?? 0);
const counted = (tenant: { entityId: string; orgId: string }) =>
  sum("select count as n from tenant_usage where entity_id = $1 and org_id = $2 and kind = 'tokens'", tenant);
/** What the agent's own model calls spent, as it logged them (written after the answer). */
const agentSpent = (tenant: { entityId: string; orgId: string }) =>
  sum('select sum(total_tokens) as n from llm_usage_logs where entity_id = $1 and org_id = $2', tenant);

describe('the LLM corrections of the validator against the token quota', () => {
  test('counts a correction as the model reported it, so a tenant it uses the quota up for is refused its next query', async () => {
    const tenant = { entityId: 'ent-correct', orgId: 'org-reported' };
    proxy.state.dropUsage = false;
    const correction = await askWithBrokenBlock(tenant);
    expect(correction.body.max_tokens).toBe(2048);
    const reported = correction.usage?.total_tokens ?? 0;
    expect(reported).toBeGreaterThan(0);
    await expect.poll(() => agentSpent(tenant)).toBeGreaterThan(0);
    const agent = await agentSpent(tenant);
    expect(await counted(tenant)).toBe(agent + reported);

    // The tenant's other spending this window leaves exactly what the correction spent; with it
    // counted, the quota is used up and the next query is refused at the gateway.
    await sys.db.query(
      "update tenant_usage set count = count + $3 where entity_id = $1 and org_id = $2 and kind = 'tokens'",
      [tenant.entityId, tenant.orgId, QUOTA - agent - reported],
    );
    const next = `who is my biggest customer ${randomUUID().slice(0, 8)}`;
    sys.llm?.script({ match: next, turns: [{ content: 'Acme Corp is your biggest customer.' }] });
    const refused = await ask(sys.gatewayUrl, { query: next, ...tenant });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expect(sys.llm?.requestsFor(next)).toHaveLength(0);
  });

  test('counts a correction whose endpoint reported no usage by the tokenizer estimate', async () => {
    const tenant = { entityId: 'ent-correct', orgId: 'org-no-usage' };
    proxy.state.dropUsage = true;
    try {
      const correction = await askWithBrokenBlock(tenant);
      const prompt = JSON.stringify(correction.body.messages);
      // The tokenizer estimate (kit's estimateTokens) of ASCII text: a token per four characters.
      expect([...prompt, ...correction.content].every((ch) => ch.charCodeAt(0) < 0x80)).toBe(true);
      const estimate = Math.ceil(prompt.length / 4) + Math.ceil(correction.content.length / 4);
      await expect.poll(() => agentSpent(tenant)).toBeGreaterThan(0);
      expect(await counted(tenant)).toBe((await agentSpent(tenant)) + estimate);
    } finally {
      proxy.state.dropUsage = false;
    }
  });
});
