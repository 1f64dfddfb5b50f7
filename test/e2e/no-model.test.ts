import { MORE_INTENTS, STARTER_INTENTS } from '@munim/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
const tenant = { entityId: 'ent-2', orgId: 'org-2' };

beforeAll(async () => {
  sys = await startSystem({ llm: false, scale: { validator: 2 } });
});

afterAll(async () => {
  await sys?.stop();
});

describe('without a model configured', () => {
  it('still answers a fast-path query, as a markdown table without internal ids', async () => {
    const { events } = await ask(sys.gatewayUrl, { query: 'show all customers', ...tenant });
    expect(events.find((e) => e.event === 'route_classified')?.data).toMatchObject({ path: 'fast' });
    const complete = events.at(-1);
    expect(complete?.event).toBe('complete');
    const response = String(complete?.data.response);
    expect(response).toContain('Acme Corp');
    expect(response).toMatch(/^\|.*\|$/m);
    expect(response).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i);
    expect(complete?.data.llmModel).toBe('');
  });

  it('enriches results by code: totals in lakhs, ranking and overdue alerts (seed 003 §7)', async () => {
    const { events } = await ask(sys.gatewayUrl, { query: 'show all invoices', ...tenant });
    const planned = events.find((e) => e.event === 'enrichments_planned')?.data.enrichments as {
      type: string;
    }[];
    expect(planned.map((e) => e.type)).toEqual(expect.arrayContaining(['currency', 'ranking', 'alert']));
    const order = events.map((e) => e.event);
    expect(order.indexOf('enrichments_planned')).toBeLessThan(order.indexOf('enrichments_applying'));
    expect(order.indexOf('enrichments_applying')).toBeLessThan(order.indexOf('complete'));
    const complete = events.at(-1)?.data;
    expect(String(complete?.response)).toMatch(/\*\*Highlights\*\*[\s\S]*⚠️ \d+ overdue item/);
    expect(complete?.enrichments).toEqual(planned.map((e) => expect.objectContaining({ type: e.type })));
  });

  it('ends an LLM-path query with an error that says no model is configured', async () => {
    const { events } = await ask(sys.gatewayUrl, { query: 'compare revenue trend this quarter', ...tenant });
    expect(events[0]?.event).toBe('connected');
    expect(events.find((e) => e.event === 'route_classified')?.data).toMatchObject({ path: 'llm' });
    const last = events.at(-1);
    expect(last?.event).toBe('error');
    expect(last?.data.code).toBe('NO_MODEL_CONFIGURED');
    expect(String(last?.data.message)).toMatch(/no language model is configured/i);
    await expect
      .poll(async () => {
        const r = await sys.db.query(
          'select status, error_code from query_routing_logs where request_id = $1',
          [events[0]?.data.requestId],
        );
        return r.rows[0];
      })
      .toEqual({ status: 'error', error_code: 'NO_MODEL_CONFIGURED' });
  });

  it('replays a finished request from the start and after a Last-Event-ID', async () => {
    const first = await ask(sys.gatewayUrl, { query: 'show all vendors', ...tenant });
    const requestId = String(first.events[0]?.data.requestId);
    const replay = await fetch(`${sys.gatewayUrl}/v1/requests/${requestId}/events`);
    const { readSse } = await import('../support/sse.ts');
    const all = await readSse(replay);
    expect(all.events.map((e) => e.id)).toEqual(first.events.map((e) => e.id));
    const cut = first.events[3]?.id ?? '';
    const resumed = await readSse(
      await fetch(`${sys.gatewayUrl}/v1/requests/${requestId}/events`, { headers: { 'last-event-id': cut } }),
    );
    expect(resumed.events.map((e) => e.id)).toEqual(first.events.slice(4).map((e) => e.id));
  });
});

describe('without a model, the first questions a newcomer asks (issue 18)', () => {
  it.each([
    'hi',
    'hello',
    'namaste',
    'नमस्ते',
    'help',
    'what can you do',
    'aap kya kar sakte ho',
    'thanks',
    'shukriya',
    'bye',
  ])('answers "%s" by itself, naming what to ask', async (query) => {
    const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
    expect(events.find((e) => e.event === 'route_classified')?.data).toMatchObject({
      category: 'general_chat',
    });
    const last = events.at(-1);
    expect(last).toMatchObject({ event: 'complete', data: { status: 'answered', llmModel: '' } });
    const response = String(last?.data.response);
    if (/bye/.test(query)) expect(response).toMatch(/goodbye/i);
    else expect(response).toMatch(/You can ask, for example:\n- \w/);
  });

  it.each([...STARTER_INTENTS, ...MORE_INTENTS].map((i) => [i.name, i.trainingPhrases[0] ?? i.name]))(
    'answers the seeded intent %s ("%s") on the fast path',
    async (name, phrase) => {
      // A tenant of its own: no cached answer of an earlier test stands in for the fast path.
      const { events } = await ask(sys.gatewayUrl, {
        query: phrase,
        entityId: `ent-${name}`,
        orgId: tenant.orgId,
      });
      expect(events.find((e) => e.event === 'route_classified')?.data, phrase).toMatchObject({
        path: 'fast',
      });
      expect(events.at(-1), phrase).toMatchObject({ event: 'complete', data: { status: 'answered' } });
    },
  );
});
