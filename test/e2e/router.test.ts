import { randomUUID } from 'node:crypto';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats });
});

afterAll(async () => {
  await sys?.stop();
});

/** The events the router emits for a routed (not cached) query, in the order it emits them. */
const ROUTER_EVENTS = [
  'understanding_started',
  'route_started',
  'mode_switch',
  'intent_detecting',
  'intent_detected',
  'entities_extracted',
  'route_classified',
  'tools_filtered',
];

const routerTypes = (events: SseEvent[]) =>
  events.map((e) => e.event).filter((t) => ROUTER_EVENTS.includes(t));
const payloadOf = (events: SseEvent[], type: string) => events.find((e) => e.event === type)?.data;
const calls = (tool: string) => sys.books.calls().filter((c) => c.tool === tool).length;
const llmRequests = (text: string) => sys.llm?.requestsFor(text).length ?? 0;
const tenant = () => ({ entityId: `ent-${randomUUID().slice(0, 8)}`, orgId: 'org-router' });

async function cachedRows(entityId: string): Promise<number> {
  const { rows } = await sys.db.query(
    "select count(*)::int as n from response_cache where entity_id = $1 and cache_key <> 'invalidated'",
    [entityId],
  );
  return rows[0].n;
}

describe('routing events end to end', () => {
  test('emits the routing events in order for a fast-path query', async () => {
    sys.llm?.script({ match: 'show all invoices', turns: [{ content: 'Here are your invoices.' }] });
    const { events } = await ask(sys.gatewayUrl, { query: 'show all invoices', ...tenant() });
    expect(routerTypes(events)).toEqual(ROUTER_EVENTS.filter((t) => t !== 'mode_switch'));
    expect(payloadOf(events, 'route_started')).toMatchObject({ intentCount: expect.any(Number) });
    expect(Number(payloadOf(events, 'route_started')?.toolCount)).toBeGreaterThan(20);
    expect(payloadOf(events, 'route_classified')).toMatchObject({ path: 'fast', category: 'unified' });
    expect(payloadOf(events, 'tools_filtered')).toMatchObject({
      strategy: 'intent_pipeline',
      tools: ['get_all_invoices'],
    });
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { path: 'fast', status: 'answered' } });
  });

  test('emits them for an LLM-path query, with the tools it selected', async () => {
    const query = 'which customer grew the most this quarter';
    sys.llm?.script({ match: query, turns: [{ content: 'Acme Corp grew the most.' }] });
    const { events } = await ask(sys.gatewayUrl, { query, ...tenant() });
    expect(routerTypes(events)).toEqual(ROUTER_EVENTS.filter((t) => t !== 'mode_switch'));
    expect(payloadOf(events, 'route_classified')).toMatchObject({ path: 'llm', category: 'unified' });
    const filtered = payloadOf(events, 'tools_filtered');
    expect(filtered?.groups).toContain('customers');
    expect(filtered?.tools).toContain('get_all_customers');
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { path: 'llm', status: 'answered' } });
  });

  test('emits mode_switch for a greeting together with a financial question', async () => {
    const query = 'hi, show my overdue invoices';
    sys.llm?.script({ match: query, turns: [{ content: 'Two invoices are overdue.' }] });
    sys.llm?.script({ match: 'overdue invoices', turns: [{ content: 'Two invoices are overdue.' }] });
    const { events } = await ask(sys.gatewayUrl, { query, ...tenant() });
    expect(routerTypes(events)).toEqual(ROUTER_EVENTS);
    expect(payloadOf(events, 'mode_switch')).toEqual({
      from: 'general_chat',
      to: 'unified',
      reason: expect.any(String),
    });
    expect(payloadOf(events, 'route_classified')).toMatchObject({ category: 'unified' });
    expect(events.at(-1)?.event).toBe('complete');
  });
});

describe('response cache end to end', () => {
  test('answers a repeated read from the cache with no tool and no LLM call; a write in between invalidates it', async () => {
    const who = tenant();
    const query = 'show all bills';
    sys.llm?.script({ match: query, turns: [{ content: 'Here are your bills.' }] });

    const first = await ask(sys.gatewayUrl, { query, ...who });
    expect(payloadOf(first.events, 'route_classified')).toMatchObject({ path: 'fast' });
    await expect.poll(() => cachedRows(who.entityId), { timeout: 10_000 }).toBe(1);

    const [billCalls, llmCalls] = [calls('get_bills'), llmRequests(query)];
    const second = await ask(sys.gatewayUrl, { query: 'Show all bills!', ...who });
    expect(second.events.map((e) => e.event)).toEqual([
      'connected',
      'understanding_started',
      'route_started',
      'route_classified',
      'response_generating',
      'response_chunk',
      'complete',
    ]);
    expect(payloadOf(second.events, 'route_classified')).toMatchObject({ path: 'cached' });
    expect(second.events.at(-1)?.data).toMatchObject({
      path: 'cached',
      status: 'answered',
      response: first.events.at(-1)?.data.response,
      mcpToolResults: [],
    });
    expect(calls('get_bills')).toBe(billCalls);
    expect(llmRequests(query)).toBe(llmCalls);
    const cachedRequest = String(second.events[0]?.data.requestId);
    await expect
      .poll(
        async () =>
          (
            await sys.db.query('select path, status from query_routing_logs where request_id = $1', [
              cachedRequest,
            ])
          ).rows[0],
        { timeout: 10_000 },
      )
      .toEqual({ path: 'cached', status: 'answered' });

    // A write in another conversation of the same entity: proposed, then confirmed with a plain "haan".
    const contact = sys.books.store.contacts.find((c) => c.Name === 'Acme Corp');
    const write = `please create invoice ${randomUUID().slice(0, 8)}`;
    sys.llm?.script({
      match: write,
      turns: [
        {
          toolCalls: [
            {
              name: 'create_invoice',
              arguments: {
                ContactId: contact?.ContactId,
                Lines: [{ Description: 'Consulting', Quantity: 1, UnitPrice: 1000, TaxRate: 18 }],
              },
            },
          ],
        },
        { content: 'The invoice is created.' },
      ],
    });
    const conversationId = `conv-${randomUUID()}`;
    const proposed = await ask(sys.gatewayUrl, { query: write, conversationId, ...who });
    expect(proposed.events.at(-1)?.data).toMatchObject({ status: 'awaiting_confirmation' });
    const invoicesBefore = calls('create_invoice');
    const yes = await ask(sys.gatewayUrl, { query: 'haan', conversationId, ...who });
    // The router hands the plain yes to the agent (which confirms the tier-1 action), never a cache or pipeline.
    expect(payloadOf(yes.events, 'route_classified')).toMatchObject({ path: 'llm', category: 'unified' });
    expect(payloadOf(yes.events, 'tools_filtered')).toMatchObject({ strategy: 'confirmation' });
    expect(yes.events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
    expect(calls('create_invoice')).toBe(invoicesBefore + 1);
    await expect.poll(() => cachedRows(who.entityId), { timeout: 10_000 }).toBe(0);

    const third = await ask(sys.gatewayUrl, { query, ...who });
    expect(payloadOf(third.events, 'route_classified')).toMatchObject({ path: 'fast' });
    expect(calls('get_bills')).toBe(billCalls + 1);
  });
});

describe('conversation-aware routing end to end', () => {
  test('reuses the previous tool groups for a short follow-up', async () => {
    const who = tenant();
    const conversationId = `conv-${randomUUID()}`;
    sys.llm?.script({ match: 'show all vendors', turns: [{ content: 'Here are your vendors.' }] });
    const first = await ask(sys.gatewayUrl, { query: 'show all vendors', conversationId, ...who });
    expect(first.events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'answered' } });

    const followUp = 'and the top one?';
    sys.llm?.script({ match: followUp, turns: [{ content: 'Sharma Traders.' }] });
    const { events } = await ask(sys.gatewayUrl, { query: followUp, conversationId, ...who });
    expect(payloadOf(events, 'route_classified')).toMatchObject({ path: 'llm', category: 'unified' });
    expect(payloadOf(events, 'tools_filtered')).toMatchObject({
      strategy: 'follow_up_reuse',
      groups: ['vendors'],
    });
    const offered = (
      (sys.llm?.requestsFor(followUp).at(-1)?.body.tools ?? []) as { function: { name: string } }[]
    ).map((t) => t.function.name);
    expect(offered).toContain('get_all_vendors');
    expect(offered).not.toContain('get_all_invoices');

    // The same words in a new conversation are not a follow-up.
    const fresh = await ask(sys.gatewayUrl, { query: followUp, ...who });
    expect(payloadOf(fresh.events, 'tools_filtered')?.strategy).not.toBe('follow_up_reuse');
  });
});
