import { streamSeqOf } from '@munim/contracts';
import { type ChatRequest, offeredToolNames, type Script } from '@munim/scripted-llm';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask, readSse, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
const tenant = { entityId: 'ent-1', orgId: 'org-1' };

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats });
});

afterAll(async () => {
  await sys?.stop();
});

function types(events: SseEvent[]): string[] {
  return events.map((e) => e.event);
}

function only(events: SseEvent[], type: string): SseEvent[] {
  return events.filter((e) => e.event === type);
}

async function routingLog(requestId: string) {
  await expect
    .poll(
      async () =>
        (await sys.db.query('select status from query_routing_logs where request_id = $1', [requestId]))
          .rows[0]?.status,
      { timeout: 10_000 },
    )
    .toMatch(/answered|needs_input|error|cancelled|awaiting_confirmation/);
  return (await sys.db.query('select * from query_routing_logs where request_id = $1', [requestId])).rows[0];
}

/** The tool message the agent sent back for a call of `tool`, parsed. */
function toolOutput(req: ChatRequest, tool: string): unknown {
  const calls = req.messages.flatMap((m) =>
    m.role === 'assistant' && 'tool_calls' in m && Array.isArray(m.tool_calls) ? m.tool_calls : [],
  ) as { id: string; function: { name: string } }[];
  const call = calls.filter((c) => c.function.name === tool).at(-1);
  const message = req.messages.find(
    (m) => m.role === 'tool' && 'tool_call_id' in m && m.tool_call_id === call?.id,
  );
  return JSON.parse(String(message?.content));
}

describe('one query through all six services', () => {
  test('answers "show all invoices" on the fast path without offering the LLM any tool', async () => {
    sys.llm?.script({ match: 'show all invoices', turns: [{ content: 'Here are all your invoices.' }] });
    const { status, contentType, events } = await ask(sys.gatewayUrl, {
      query: 'show all invoices',
      ...tenant,
    });

    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/event-stream/);
    expect(events[0]?.event).toBe('connected');
    expect(events.at(-1)?.event).toBe('complete');
    const ids = events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);

    expect(only(events, 'route_classified')[0]?.data).toMatchObject({ path: 'fast', category: 'unified' });
    const order = types(events);
    expect(order.indexOf('route_classified')).toBeLessThan(order.indexOf('executing_tool'));
    expect(only(events, 'executing_tool').map((e) => e.data.tool)).toEqual(['get_all_invoices']);
    const result = only(events, 'tool_result')[0]?.data;
    expect(result).toMatchObject({ tool: 'get_all_invoices', success: true });
    expect(order.indexOf('tool_result')).toBeLessThan(order.indexOf('complete'));

    const complete = events.at(-1)?.data as Record<string, unknown>;
    expect(complete).toMatchObject({
      status: 'answered',
      path: 'fast',
      response: 'Here are all your invoices.',
    });
    expect(complete.matchedIntent).toMatchObject({ confidence: expect.any(Number) });

    const llmCalls = sys.llm?.requestsFor('show all invoices') ?? [];
    expect(llmCalls.length).toBeGreaterThan(0);
    for (const call of llmCalls) expect(call.body.tools ?? []).toEqual([]);
    expect(sys.books.calls().filter((c) => c.tool === 'get_all_invoices').length).toBeGreaterThan(0);

    const requestId = String(events[0]?.data.requestId);
    const row = await routingLog(requestId);
    expect(row).toMatchObject({
      path: 'fast',
      category: 'unified',
      status: 'answered',
      query: 'show all invoices',
    });
    expect(row.tools_used).toEqual(['get_all_invoices']);
    const stored = await sys.db.query('select count(*)::int as n from request_events where request_id = $1', [
      requestId,
    ]);
    expect(stored.rows[0].n).toBe(events.length);
    // The SSE ids are the stored sequences; the routing steps, sent together, are one stream message.
    const seqs = await sys.db.query('select seq from request_events where request_id = $1 order by seq', [
      requestId,
    ]);
    expect(seqs.rows.map((r) => Number(r.seq))).toEqual(ids);
    const messageOf = (type: string) => streamSeqOf(Number(only(events, type)[0]?.id));
    const routing = [
      'route_started',
      'intent_detected',
      'entities_extracted',
      'route_classified',
      'tools_filtered',
    ];
    expect(new Set(routing.map(messageOf)).size).toBe(1);
    // With them when routing is quick, alone before them when it is slow.
    expect(messageOf('understanding_started')).toBeLessThanOrEqual(messageOf('route_started'));
  });

  test("keeps the tools' full results in the stored answer only when a caller asked to debug", async () => {
    const storedComplete = async (requestId: string) => {
      await routingLog(requestId);
      const row = await sys.db.query(
        `select payload from request_events where request_id = $1 and type = 'complete'`,
        [requestId],
      );
      return row.rows[0]?.payload as { mcpToolResults: Record<string, unknown>[]; response: string };
    };
    sys.llm?.script({
      match: 'show me all invoices',
      repeat: true,
      turns: [{ content: 'Here are all your invoices.' }],
    });
    // Tenants of their own: an answer from another request's cache would have no tool results.
    const lean = await ask(sys.gatewayUrl, {
      query: 'show me all invoices',
      entityId: 'ent-lean',
      orgId: 'org-1',
    });
    const leanComplete = await storedComplete(String(lean.events[0]?.data.requestId));
    expect(leanComplete.mcpToolResults).toEqual([{ tool: 'get_all_invoices', success: true, write: false }]);

    const res = await fetch(`${sys.gatewayUrl}/v1/query?debug=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'show me all invoices', entityId: 'ent-debug', orgId: 'org-1' }),
    });
    const full = await readSse(res);
    const fullComplete = await storedComplete(String(full.events[0]?.data.requestId));
    const call = fullComplete.mcpToolResults[0];
    expect(call).toMatchObject({ tool: 'get_all_invoices', success: true, input: expect.any(Object) });
    expect(JSON.stringify(call?.result)).toContain('InvoiceNumber');
    // The debug stream itself carries them; both answers are the same words.
    const streamed = full.events.at(-1)?.data as { mcpToolResults: unknown[] } | undefined;
    expect(streamed?.mcpToolResults).toEqual(fullComplete.mcpToolResults);
    expect(fullComplete.response).toBe(leanComplete.response);
  });

  test('self-corrects a payment blocked by pre-flight validation', async () => {
    const bank = sys.books.store.accounts.find((a) => /bank/i.test(a.Name));
    expect(bank).toBeDefined();
    const query = 'Record ₹5000 payment from Acme Corp';
    sys.llm?.script({
      match: query,
      turns: [
        { toolCalls: [{ name: 'create_payment', arguments: { AccountId: bank?.AccountId } }] },
        (req) => {
          const blocked = toolOutput(req, 'create_payment') as { error: { message: string } };
          expect(blocked.error.message).toContain('get_all_invoices');
          expect(offeredToolNames(req)).toContain('get_all_invoices');
          return { toolCalls: [{ name: 'get_all_invoices', arguments: { Search: 'Acme Corp' } }] };
        },
        (req) => {
          const list = toolOutput(req, 'get_all_invoices') as {
            Invoices: { InvoiceId: string; ContactName: string; AmountDue: number }[];
          };
          const open = list.Invoices.find((i) => i.ContactName === 'Acme Corp' && i.AmountDue >= 5000);
          expect(open).toBeDefined();
          return {
            toolCalls: [
              {
                name: 'create_payment',
                arguments: {
                  AccountId: bank?.AccountId,
                  Amount: 5000,
                  Date: new Date().toISOString().slice(0, 10),
                  Applications: [{ InvoiceId: open?.InvoiceId, Amount: 5000 }],
                },
              },
            ],
          };
        },
        { content: '✅ Payment of ₹5,000 recorded against the Acme Corp invoice.' },
      ],
    });
    sys.books.resetCalls();
    const { events } = await ask(sys.gatewayUrl, { query, ...tenant });

    // The LLM corrects itself; the valid payment is put to the user before anything is written.
    expect(only(events, 'route_classified')[0]?.data).toMatchObject({ path: 'llm', category: 'unified' });
    const validations = only(events, 'write_validation').map((e) => e.data);
    expect(validations).toHaveLength(2);
    expect(validations[0]).toMatchObject({ tool: 'create_payment', status: 'blocked' });
    expect(validations[0]?.missing_fields).toEqual(expect.arrayContaining(['Amount', 'Applications']));
    expect(validations[0]?.duration_ms).toEqual(expect.any(Number));
    expect(validations[1]).toMatchObject({ tool: 'create_payment', status: 'passed' });
    expect(only(events, 'tool_retry')[0]?.data).toMatchObject({ tool: 'create_payment', attempt: 2 });
    // The card names the bank account the turn did not read: the confirmation reads the accounts for
    // it; the duplicate check reads the customer's payments around the payment's date.
    expect(only(events, 'tool_result').map((e) => [e.data.tool, e.data.success])).toEqual([
      ['get_all_invoices', true],
      ['get_charts_of_accounts', true],
      ['get_all_payments', true],
    ]);
    const order = types(events);
    expect(order.indexOf('write_validation')).toBeLessThan(order.indexOf('tool_retry'));
    const mcq = only(events, 'mcq')[0]?.data;
    expect(mcq).toMatchObject({ tier: 1, pending_tool: 'create_payment', pending_args: { Amount: 5000 } });
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'awaiting_confirmation' } });
    expect(sys.books.calls().filter((c) => c.tool === 'create_payment')).toHaveLength(0);

    // Confirmed: validated again, executed once, and the loop goes on to the answer.
    const conversationId = String(events[0]?.data.conversationId);
    const confirmed = await ask(sys.gatewayUrl, {
      ...tenant,
      conversationId,
      mcqResponse: { actionId: String(mcq?.actionId), value: 'confirm' },
    });
    const after = confirmed.events;
    expect(only(after, 'write_validation').map((e) => e.data.status)).toEqual(['passed']);
    // The validator answers without waiting for its event's ack; the stream still has it first.
    const afterOrder = types(after);
    expect(afterOrder.indexOf('write_validation')).toBeLessThan(afterOrder.indexOf('executing_tool'));
    expect(afterOrder.indexOf('executing_tool')).toBeLessThan(afterOrder.indexOf('tool_result'));
    expect(only(after, 'tool_result').map((e) => [e.data.tool, e.data.success])).toEqual([
      ['create_payment', true],
    ]);
    expect(after.at(-1)).toMatchObject({
      event: 'complete',
      data: { status: 'answered', response: '✅ Payment of ₹5,000 recorded against the Acme Corp invoice.' },
    });

    // The blocked call never reached the accounting system; the confirmed one reached it once.
    const payments = sys.books.calls().filter((c) => c.tool === 'create_payment');
    expect(payments).toHaveLength(1);
    expect(payments[0]?.args).toMatchObject({ Amount: 5000 });

    const row = await routingLog(String(events[0]?.data.requestId));
    expect(row.is_write_operation).toBe(true);
    expect(row.guardrails_triggered).toContain('write_preflight_block');
    expect(row.tools_used).toEqual(['get_all_invoices', 'get_charts_of_accounts', 'get_all_payments']);
    expect(row.tools_failed).toEqual(['create_payment']);
    expect(row.status).toBe('awaiting_confirmation');
    expect(row.llm_model).toBe('openai/scripted-model');
    expect(row.input_tokens).toBeGreaterThan(0);
    // Every LLM call is logged with its tokens, latency, section and status.
    const usage = await sys.db.query(
      'select section, status, input_tokens, latency_ms from llm_usage_logs where request_id = $1',
      [events[0]?.data.requestId],
    );
    expect(usage.rows).toHaveLength(3);
    for (const u of usage.rows) {
      expect(u).toMatchObject({ section: 'chat', status: 'success' });
      expect(u.input_tokens).toBeGreaterThan(0);
    }
    const second = await routingLog(String(after[0]?.data.requestId));
    expect(second.tools_used).toEqual(['create_payment']);
    expect(second.status).toBe('answered');
  });

  /**
   * Asks to add the customer `name`: the LLM proposes `create_customer`, then plays `later`. The
   * proposal is confirmed, and its answer is lost after the commit.
   */
  async function createCustomerWithLostAnswer(name: string, later: Script['turns']) {
    const query = `Add a new customer called ${name}`;
    sys.llm?.script({
      match: query,
      turns: [{ toolCalls: [{ name: 'create_customer', arguments: { Name: name } }] }, ...later],
    });
    const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
    const mcq = only(events, 'mcq')[0]?.data;
    expect(mcq).toMatchObject({ pending_tool: 'create_customer', pending_args: { Name: name } });
    sys.books.resetCalls();
    sys.books.setFaults({ dropResponseFor: 'create_customer', dropTimes: 1 });
    const confirmed = await ask(sys.gatewayUrl, {
      ...tenant,
      conversationId: String(events[0]?.data.conversationId),
      mcqResponse: { actionId: String(mcq?.actionId), value: 'confirm' },
    });
    // Sent once, committed once, never re-sent; then read back.
    expect(only(confirmed.events, 'tool_result').map((e) => [e.data.tool, e.data.success])).toEqual([
      ['create_customer', false],
      ['get_all_customers', true],
    ]);
    expect(sys.books.calls().filter((c) => c.tool === 'create_customer')).toHaveLength(1);
    expect(sys.books.store.contacts.filter((c) => c.Name === name)).toHaveLength(1);
    const action = await sys.db.query('select status, result from pending_actions where action_id = $1', [
      String(mcq?.actionId),
    ]);
    expect(action.rows[0]).toMatchObject({
      status: 'executed',
      result: { success: false, outcome: 'unknown', error: { code: 'TOOL_OUTCOME_UNKNOWN' } },
    });
    return confirmed.events;
  }

  test('checks with a read before answering when a confirmed write got no answer (outcome unknown)', async () => {
    const name = 'Lost Reply Traders';
    const after = await createCustomerWithLostAnswer(name, [
      (req) => {
        const out = toolOutput(req, 'create_customer') as { success: boolean; error: string };
        expect(out).toMatchObject({ success: false, error: expect.stringMatching(/may or may not/) });
        // An answer without a check: the agent sends the LLM back to read first.
        return { content: 'Sorry, I could not add the customer.' };
      },
      (req) => {
        expect(req.messages.at(-1)).toMatchObject({ role: 'system' });
        expect(String(req.messages.at(-1)?.content)).toContain(`get_all_customers with {"Search":"${name}"}`);
        expect(offeredToolNames(req)).toContain('get_all_customers');
        return { toolCalls: [{ name: 'get_all_customers', arguments: { Search: name } }] };
      },
      (req) => {
        const list = toolOutput(req, 'get_all_customers') as { Customers: { Name: string }[] };
        expect(list.Customers.map((c) => c.Name)).toEqual([name]);
        return { content: `${name} was added to your customers.` };
      },
    ]);
    // Checked by a read, the answer may say it was applied.
    expect(after.at(-1)).toMatchObject({
      event: 'complete',
      data: { status: 'answered', response: `${name} was added to your customers.` },
    });
    const row = await routingLog(String(after[0]?.data.requestId));
    expect(row.guardrails_triggered).toContain('unknown_outcome_check_asked');
    expect(row.guardrails_triggered).not.toContain('unknown_outcome_checked');
  });

  test('does not let the LLM send the write again before a read has checked the first', async () => {
    const name = 'Twice Shy Textiles';
    const after = await createCustomerWithLostAnswer(name, [
      { toolCalls: [{ name: 'create_customer', arguments: { Name: name } }] },
      (req) => {
        const refused = toolOutput(req, 'create_customer') as { error: { message: string } };
        expect(refused.error.message).toMatch(/^Not run: .*Check with get_all_customers first/);
        return { toolCalls: [{ name: 'get_all_customers', arguments: { Search: name } }] };
      },
      { content: `${name} is in your customers, so it was added.` },
    ]);
    // No second confirmation was asked for, and nothing was sent twice.
    expect(only(after, 'mcq')).toHaveLength(0);
    expect(after.at(-1)).toMatchObject({
      event: 'complete',
      data: { status: 'answered', response: `${name} is in your customers, so it was added.` },
    });
  });

  test('checks by itself when the LLM will not, and says neither done nor failed', async () => {
    const name = 'Silent Wire Exports';
    const after = await createCustomerWithLostAnswer(name, [
      { content: 'Sorry, adding the customer failed.' },
      { content: 'Adding the customer failed, please try again.' },
    ]);
    const complete = after.at(-1);
    expect(complete).toMatchObject({ event: 'complete', data: { status: 'answered' } });
    const response = String(complete?.data.response);
    expect(response).toMatch(/can't tell whether it was applied\. I haven't sent it again\./);
    expect(response).toContain(name);
    expect(response).not.toMatch(/failed|try again\.$/);
    const row = await routingLog(String(after[0]?.data.requestId));
    expect(row.guardrails_triggered).toContain('unknown_outcome_checked');
  });

  test('gives up after two blocked retries and asks the user for the missing details', async () => {
    const query = 'record a payment for the latest invoice';
    sys.llm?.script({
      match: query,
      repeat: true,
      turns: [{ toolCalls: [{ name: 'create_payment', arguments: { Amount: 100 } }] }],
    });
    sys.books.resetCalls();
    const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
    const complete = events.at(-1);
    expect(complete?.event).toBe('complete');
    expect(complete?.data.status).toBe('needs_input');
    expect(String(complete?.data.response)).toMatch(/I need a few more details/);
    expect(only(events, 'write_validation').every((e) => e.data.status === 'blocked')).toBe(true);
    expect(only(events, 'write_validation')).toHaveLength(3);
    expect(sys.books.calls().filter((c) => c.tool === 'create_payment')).toHaveLength(0);
  });

  test('answers "hello" as general chat without offering tools', async () => {
    sys.llm?.script({
      match: /^hello$/i,
      turns: [{ content: 'Namaste! How can I help with your books today?' }],
    });
    const { events } = await ask(sys.gatewayUrl, { query: 'hello', ...tenant });
    expect(only(events, 'route_classified')[0]?.data).toMatchObject({
      path: 'llm',
      category: 'general_chat',
    });
    expect(only(events, 'tools_filtered')[0]?.data).toMatchObject({ count: 0 });
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
    expect(
      only(events, 'response_chunk')
        .map((e) => e.data.text)
        .join(''),
    ).toBe('Namaste! How can I help with your books today?');
    const calls = sys.llm?.requestsFor(/^hello$/i) ?? [];
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body.tools ?? []).toEqual([]);
  });

  test('rejects each malformed body with a 400 naming the problem and opens no stream', async () => {
    const cases: [unknown, string][] = [
      ['{"query": "show', 'body'],
      [{ entityId: 'e', orgId: 'o' }, 'query'],
      [{ query: '   ', entityId: 'e', orgId: 'o' }, 'query'],
      [{ query: 'x'.repeat(4001), entityId: 'e', orgId: 'o' }, 'query'],
      [{ query: 'hi', entityId: 42, orgId: 'o' }, 'entityId'],
      [{ query: 'hi', orgId: 'o' }, 'entityId'],
      [{ query: 'hi', entityId: 'e', orgId: 'o', extra: 1 }, 'extra'],
      [{ entityId: 'e', orgId: 'o', mcqResponse: { actionId: 'a', value: 'confirm' } }, 'conversationId'],
      [
        { entityId: 'e', orgId: 'o', conversationId: 'c', mcqResponse: { actionId: 'a', value: 'maybe' } },
        'mcqResponse.value',
      ],
    ];
    for (const [body, field] of cases) {
      const res = await ask(sys.gatewayUrl, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.contentType).toMatch(/application\/json/);
      expect(JSON.stringify(res.body)).toContain(field);
      expect(res.events).toEqual([]);
    }
  });
});
