// Model failover end to end: the six services as processes on the real NATS and a fresh
// PostgreSQL, two scripted OpenAI-compatible servers as the default model configuration and its
// fallback, set through the gateway's admin API. The default fails each way a provider fails; the
// client, reading the gateway's SSE, gets the fallback's whole answer and never the half before it.
import { randomBytes } from 'node:crypto';
import { type ScriptedLlm, startScriptedLlm, type TurnAnswer } from '@munim/scripted-llm';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { bearerJson, jsonCaller } from '../support/http.ts';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

const ADMIN_KEY = `admin-${randomBytes(12).toString('hex')}`;
const TENANT_KEY = `tenant-${randomBytes(12).toString('hex')}`;
const tenant = { entityId: 'ent-failover', orgId: 'org-failover' };

let sys: TestSystem;
let primary: ScriptedLlm;
let fallback: ScriptedLlm;
const call = jsonCaller(() => sys.gatewayUrl, bearerJson(ADMIN_KEY));
const asTenant = bearerJson(TENANT_KEY);

let round = 0;
/** A new LLM-path question each time (a repeated one could come from the response cache). */
const question = () => {
  round += 1;
  return `which customer grew the most in quarter ${round} compared with last year`;
};

/** Asks through the gateway's SSE and returns the events. */
async function asked(query: string): Promise<SseEvent[]> {
  const { status, events } = await ask(sys.gatewayUrl, { query, ...tenant }, asTenant);
  expect(status).toBe(200);
  expect(events.find((e) => e.event === 'route_classified')?.data).toMatchObject({ path: 'llm' });
  return events;
}

/** What a client rendering the stream shows at its end: the chunks since the last replacement. */
function rendered(events: SseEvent[]): string {
  let shown = '';
  for (const e of events) {
    if (e.event === 'response_chunk') shown += String(e.data.text);
    if (e.event === 'response_replace') shown = String(e.data.text);
  }
  return shown;
}

const FALLBACK_ANSWER = 'Answered by the fallback: Acme Corp grew the most.';

test.beforeAll(async ({ database, nats }) => {
  primary = await startScriptedLlm({ apiKey: 'key-primary' });
  fallback = await startScriptedLlm({ apiKey: 'key-fallback' });
  sys = await startSystem({
    database,
    nats,
    env: {
      GATEWAY_ADMIN_KEYS: ADMIN_KEY,
      GATEWAY_API_KEYS: `${TENANT_KEY}:${tenant.entityId}:${tenant.orgId}`,
      LLM_CONFIG_KEY: randomBytes(32).toString('base64'),
      LLM_ENDPOINT_ALLOWLIST: '127.0.0.1',
      // LLM_CHUNK_TIMEOUT_MS is left at its default, 5 s. The default fails in every test here, on
      // purpose: its circuit must not open between them (the breaker is tested in the agent's tests).
      LLM_BREAKER_FAILURES: '50',
    },
  });
  const made = async (body: object) => {
    const res = await call('POST', '/v1/admin/llm-configs', body);
    expect(res.status).toBe(201);
    return (await res.json()) as { id: number; fallbacks: number[] };
  };
  const second = await made({
    name: 'fallback',
    provider: 'openai',
    model: 'fallback-model',
    endpoint: fallback.baseURL,
    apiKey: 'key-fallback',
  });
  const first = await made({
    name: 'primary',
    provider: 'openai',
    model: 'primary-model',
    endpoint: primary.baseURL,
    apiKey: 'key-primary',
    isDefault: true,
    fallbacks: [second.id],
  });
  expect(first.fallbacks).toEqual([second.id]);
  // The agent reloads on the change notice: wait until the primary answers.
  const until = Date.now() + 15_000;
  for (;;) {
    const query = question();
    primary.script({ match: query, turns: [{ content: 'Answered by the primary.' }] });
    if (rendered(await asked(query)) === 'Answered by the primary.') break;
    if (Date.now() > until) throw new Error('the agent never took the primary configuration');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

afterAll(async () => {
  await sys?.stop();
  await Promise.all([primary?.close(), fallback?.close()]);
});

describe('model failover through the gateway', () => {
  test('a stream that stalls mid-answer is replaced, with the reason, by the fallback’s whole answer', async () => {
    const query = question();
    primary.script({
      match: query,
      turns: [{ content: 'Acme Corp grew the most. Its sales rose by half', stallAfterDeltas: 6 }],
    });
    fallback.script({ match: query, turns: [{ content: FALLBACK_ANSWER }] });
    const started = Date.now();
    const events = await asked(query);
    const types = events.map((e) => e.event);
    const replace = events.findIndex((e) => e.event === 'response_replace');
    // The half-answer went out, then was withdrawn, saying why, before the fallback's answer.
    expect(events.slice(0, replace).some((e) => e.event === 'response_chunk')).toBe(true);
    expect(events[replace]?.data).toEqual({
      text: '',
      reason: 'The model stopped answering; answered by openai/fallback-model instead.',
    });
    expect(types.indexOf('response_chunk', replace)).toBeGreaterThan(replace);
    expect(rendered(events)).toBe(FALLBACK_ANSWER);
    const complete = events.at(-1);
    expect(complete?.event).toBe('complete');
    expect(complete?.data).toMatchObject({
      status: 'answered',
      response: FALLBACK_ANSWER,
      llmModel: 'openai/fallback-model',
    });
    // The default chunk timeout (5 s) ended the stalled stream; the fallback got the same question.
    expect(Date.now() - started).toBeGreaterThanOrEqual(5_000);
    expect(fallback.requestsFor(query)).toHaveLength(1);
    expect(fallback.requestsFor(query)[0]?.body.messages).toEqual(
      primary.requestsFor(query)[0]?.body.messages,
    );
    await expect
      .poll(() => sys.logs.some((l) => l.includes('model failed over') && l.includes('"reason":"stalled"')))
      .toBe(true);
    // The logger records the model that answered.
    await expect
      .poll(async () => {
        const { rows } = await sys.db.query('select llm_model from query_routing_logs where query = $1', [
          query,
        ]);
        return rows[0]?.llm_model;
      })
      .toBe('openai/fallback-model');
  });

  const quick: [string, TurnAnswer][] = [
    ['429', { error: { status: 429, headers: { 'retry-after': '30' } } }],
    ['503', { error: { status: 503 } }],
    [
      'a connection dropped mid-stream',
      { content: 'Acme Corp grew the most. Its sales', dropAfterDeltas: 5 },
    ],
  ];
  test.for(quick)('on %s the answer comes from the fallback', async ([, fault]) => {
    const query = question();
    primary.script({ match: query, turns: [fault] });
    fallback.script({ match: query, turns: [{ content: FALLBACK_ANSWER }] });
    const events = await asked(query);
    expect(rendered(events)).toBe(FALLBACK_ANSWER);
    expect(events.at(-1)).toMatchObject({
      event: 'complete',
      data: { response: FALLBACK_ANSWER, llmModel: 'openai/fallback-model' },
    });
    expect(primary.requestsFor(query)).toHaveLength(1);
    // Text the primary streamed before it failed was taken back, saying why.
    const replaced = events.filter((e) => e.event === 'response_replace');
    expect(replaced.map((e) => e.data)).toEqual(
      'content' in fault
        ? [{ text: '', reason: 'The model stopped answering; answered by openai/fallback-model instead.' }]
        : [],
    );
  });

  test('with every configuration failing, the question ends with a clear error and no half-answer', async () => {
    const query = question();
    primary.script({ match: query, turns: [{ error: { status: 500 } }] });
    fallback.script({
      match: query,
      repeat: true,
      turns: [{ content: 'Acme Corp grew the most. Its sales', dropAfterDeltas: 5 }],
    });
    const events = await asked(query);
    expect(events.at(-1)).toMatchObject({
      event: 'error',
      data: { code: 'LLM_UNAVAILABLE', message: expect.stringContaining('not reachable') },
    });
    expect(events.some((e) => e.event === 'complete')).toBe(false);
    // What the fallback had streamed is withdrawn: the client is left showing nothing of it.
    expect(events.some((e) => e.event === 'response_chunk')).toBe(true);
    expect(events.filter((e) => e.event === 'response_replace').at(-1)?.data).toEqual({
      text: '',
      reason: 'The model stopped answering.',
    });
    expect(rendered(events)).toBe('');
  });
});
