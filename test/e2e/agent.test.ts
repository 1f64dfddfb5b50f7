import { randomUUID } from 'node:crypto';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
const tenant = { entityId: 'ent-agent', orgId: 'org-agent' };

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats });
});

afterAll(async () => {
  await sys?.stop();
});

const only = (events: SseEvent[], type: string) => events.filter((e) => e.event === type);
const last = (events: SseEvent[]) => events.at(-1);
const writes = (tool: string) => sys.books.calls().filter((c) => c.tool === tool);

function openInvoice() {
  const invoice = sys.books.store.invoices.find((i) => i.Status === 'AUTHORISED');
  if (!invoice) throw new Error('the demo books have no open invoice');
  return invoice;
}

function customer() {
  const contact = sys.books.store.contacts.find((c) => c.Name === 'Acme Corp');
  if (!contact) throw new Error('no Acme Corp');
  return contact;
}

/** Scripts one write call, then a closing answer, for a unique query; returns the query. */
function scriptWrite(tool: string, args: Record<string, unknown>, closing = 'Done.') {
  const query = `please ${tool.replace(/_/g, ' ')} ${randomUUID().slice(0, 8)}`;
  sys.llm?.script({
    match: query,
    turns: [{ toolCalls: [{ name: tool, arguments: args }] }, { content: closing }],
  });
  return query;
}

async function propose(tool: string, args: Record<string, unknown>, closing?: string) {
  const query = scriptWrite(tool, args, closing);
  const conversationId = `conv-${randomUUID()}`;
  const { events } = await ask(sys.gatewayUrl, { query, conversationId, ...tenant });
  const mcq = only(events, 'mcq')[0]?.data;
  expect(last(events)).toMatchObject({ event: 'complete', data: { status: 'awaiting_confirmation' } });
  expect(mcq?.actionId).toEqual(expect.any(String));
  return { events, mcq: mcq as Record<string, unknown>, conversationId, query };
}

const answer = (conversationId: string, actionId: unknown, value: 'confirm' | 'cancel', typed?: string) =>
  ask(sys.gatewayUrl, {
    ...tenant,
    conversationId,
    mcqResponse: { actionId: String(actionId), value, ...(typed ? { typedConfirmation: typed } : {}) },
  });

const invoiceLine = { Description: 'Consulting', Quantity: 1, UnitPrice: 1000, TaxRate: 18 };

describe('risk-tiered confirmations', () => {
  test('MCQ → cancel → no MCP call', async () => {
    const { mcq, conversationId } = await propose('create_invoice', {
      ContactId: customer().ContactId,
      Lines: [invoiceLine],
    });
    expect(mcq).toMatchObject({ tier: 1, mcq_type: 'write_confirmation', pending_tool: 'create_invoice' });
    expect(mcq.confirm_text).toBeUndefined();
    const before = writes('create_invoice').length;
    const { events } = await answer(conversationId, mcq.actionId, 'cancel');
    expect(last(events)).toMatchObject({ event: 'complete', data: { status: 'cancelled' } });
    expect(String(last(events)?.data.response)).toMatch(/^Okay, .*cancelled/);
    expect(only(events, 'confirmation').map((e) => e.data.step)).toEqual(['cancelled']);
    expect(writes('create_invoice')).toHaveLength(before);
    // Single use: the same answer again is refused.
    const again = await answer(conversationId, mcq.actionId, 'confirm');
    expect(last(again.events)).toMatchObject({ event: 'error', data: { code: 'CONFLICT' } });
    expect(writes('create_invoice')).toHaveLength(before);
  });

  test('tier 3 needs the typed word: wrong → asked again, right → executed exactly once', async () => {
    const invoice = openInvoice();
    const { mcq, conversationId } = await propose(
      'void_invoice',
      { InvoiceId: invoice.InvoiceId },
      'The invoice is voided.',
    );
    expect(mcq).toMatchObject({ tier: 3, confirm_text: 'VOID' });
    expect(String(mcq.question)).toContain('Type VOID');

    const wrong = await answer(conversationId, mcq.actionId, 'confirm', 'yes please');
    expect(last(wrong.events)).toMatchObject({
      event: 'complete',
      data: { status: 'awaiting_confirmation' },
    });
    expect(only(wrong.events, 'confirmation').map((e) => e.data.step)).toEqual(['rejected']);
    expect(only(wrong.events, 'mcq')[0]?.data).toMatchObject({
      actionId: mcq.actionId,
      confirm_text: 'VOID',
    });
    expect(writes('void_invoice').filter((c) => c.args.InvoiceId === invoice.InvoiceId)).toHaveLength(0);

    const right = await answer(conversationId, mcq.actionId, 'confirm', 'void');
    expect(only(right.events, 'confirmation').map((e) => e.data.step)).toEqual(['approved', 'executed']);
    expect(only(right.events, 'tool_result')[0]?.data).toMatchObject({ tool: 'void_invoice', success: true });
    expect(last(right.events)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
    expect(writes('void_invoice').filter((c) => c.args.InvoiceId === invoice.InvoiceId)).toHaveLength(1);
    const hashes = only(right.events, 'confirmation').map((e) => e.data.args_hash);
    expect(new Set(hashes).size).toBe(1);
  });

  test('tier 2 shows exactly what changes, before → after', async () => {
    const invoice = openInvoice();
    const { mcq } = await propose('update_invoice', { InvoiceId: invoice.InvoiceId, Reference: 'PO-778' });
    expect(mcq.tier).toBe(2);
    expect(String(mcq.question)).toMatch(/Reference: .* → PO-778/);
  });

  test('an expired approval executes nothing', async () => {
    const { mcq, conversationId } = await propose('create_invoice', {
      ContactId: customer().ContactId,
      Lines: [invoiceLine],
    });
    await sys.db.query(
      "update pending_actions set expires_at = now() - interval '1 minute' where action_id = $1",
      [mcq.actionId],
    );
    const before = writes('create_invoice').length;
    const { events } = await answer(conversationId, mcq.actionId, 'confirm');
    expect(last(events)).toMatchObject({ event: 'complete', data: { status: 'cancelled' } });
    expect(String(last(events)?.data.response)).toMatch(/expired/);
    expect(only(events, 'confirmation').map((e) => e.data.step)).toEqual(['expired']);
    expect(writes('create_invoice')).toHaveLength(before);
  });

  test('arguments changed after approval void it', async () => {
    const { mcq, conversationId } = await propose('create_invoice', {
      ContactId: customer().ContactId,
      Lines: [invoiceLine],
    });
    await sys.db.query(
      `update pending_actions set args = jsonb_set(args, '{Lines,0,UnitPrice}', '99999') where action_id = $1`,
      [mcq.actionId],
    );
    const before = writes('create_invoice').length;
    const { events } = await answer(conversationId, mcq.actionId, 'confirm');
    expect(only(events, 'confirmation').map((e) => e.data.step)).toEqual(['void']);
    expect(last(events)).toMatchObject({ event: 'complete', data: { status: 'needs_input' } });
    expect(writes('create_invoice')).toHaveLength(before);
  });

  test('belongs to its conversation: another conversation cannot answer it', async () => {
    const { mcq } = await propose('create_invoice', {
      ContactId: customer().ContactId,
      Lines: [invoiceLine],
    });
    const { events } = await answer(`conv-${randomUUID()}`, mcq.actionId, 'confirm');
    expect(last(events)).toMatchObject({ event: 'error', data: { code: 'NOT_FOUND' } });
  });

  test('survives the agent instance that asked being killed', async () => {
    const { mcq, conversationId } = await propose('create_invoice', {
      ContactId: customer().ContactId,
      Lines: [{ ...invoiceLine, Description: 'after restart' }],
    });
    const agent = sys.stack.processes.find((p) => p.service === 'agent' && p.child.exitCode === null);
    if (!agent) throw new Error('no agent running');
    await sys.stack.kill(agent, 'SIGKILL');
    sys.stack.spawn('agent');
    const { events } = await answer(conversationId, mcq.actionId, 'confirm');
    expect(last(events)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
    expect(
      writes('create_invoice').filter((c) => JSON.stringify(c.args).includes('after restart')),
    ).toHaveLength(1);
  });

  test('a plain "haan" confirms a tier-1 action but not a tier-3 one', async () => {
    const tier1 = await propose('create_invoice', {
      ContactId: customer().ContactId,
      Lines: [{ ...invoiceLine, Description: 'haan test' }],
    });
    const yes = await ask(sys.gatewayUrl, { query: 'haan', conversationId: tier1.conversationId, ...tenant });
    expect(last(yes.events)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
    expect(writes('create_invoice').filter((c) => JSON.stringify(c.args).includes('haan test'))).toHaveLength(
      1,
    );

    const invoice = sys.books.store.invoices.filter((i) => i.Status === 'AUTHORISED').at(-1);
    const tier3 = await propose('void_invoice', { InvoiceId: invoice?.InvoiceId });
    const plain = await ask(sys.gatewayUrl, {
      query: 'yes',
      conversationId: tier3.conversationId,
      ...tenant,
    });
    expect(last(plain.events)).toMatchObject({
      event: 'complete',
      data: { status: 'awaiting_confirmation' },
    });
    expect(String(last(plain.events)?.data.response)).toContain('type VOID');
    expect(writes('void_invoice').filter((c) => c.args.InvoiceId === invoice?.InvoiceId)).toHaveLength(0);
  });
});

describe('honest answers', () => {
  test('strips a success the LLM claims when no write ran', async () => {
    const query = `record the rent payment ${randomUUID().slice(0, 8)}`;
    sys.llm?.script({ match: query, turns: [{ content: '✅ Payment of ₹20,000 recorded successfully.' }] });
    const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
    const done = last(events);
    expect(done).toMatchObject({
      event: 'complete',
      data: { guardrails: ['hallucinated_success_stripped'] },
    });
    expect(String(done?.data.response)).not.toMatch(/recorded successfully/);
    const text = only(events, 'response_chunk')
      .map((e) => e.data.text)
      .join('');
    expect(text).not.toMatch(/recorded successfully/);
    await expect
      .poll(async () => {
        const r = await sys.db.query(
          'select guardrails_triggered from query_routing_logs where request_id = $1',
          [events[0]?.data.requestId],
        );
        return r.rows[0]?.guardrails_triggered;
      })
      .toContain('hallucinated_success_stripped');
  });

  test('corrects an answer that calls a successful write a failure', async () => {
    const { mcq, conversationId } = await propose(
      'create_invoice',
      { ContactId: customer().ContactId, Lines: [{ ...invoiceLine, Description: 'false failure' }] },
      'Sorry, the invoice could not be created.',
    );
    const { events } = await answer(conversationId, mcq.actionId, 'confirm');
    const done = last(events);
    expect(done?.data.guardrails).toEqual(['false_failure_overridden']);
    expect(String(done?.data.response)).toMatch(/^✅ Done: I did create the invoice\./);
  });

  test('ends with a clear error, not a hang, when the model keeps failing', async () => {
    const query = `model down ${randomUUID().slice(0, 8)}`;
    sys.llm?.script({
      match: query,
      repeat: true,
      turns: [{ error: { status: 503, message: 'overloaded' } }],
    });
    const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
    expect(last(events)).toMatchObject({ event: 'error', data: { code: 'LLM_UNAVAILABLE' } });
    expect(sys.llm?.requestsFor(query).length).toBe(3);
    await expect
      .poll(
        async () =>
          (
            await sys.db.query('select status from llm_usage_logs where request_id = $1', [
              events[0]?.data.requestId,
            ])
          ).rows,
      )
      .toEqual([{ status: 'error' }]);
  });

  test('asks list tools for an explicit page and offers the next one on "show more"', async () => {
    const conversationId = `conv-${randomUUID()}`;
    const query = `list my bills please ${randomUUID().slice(0, 6)}`;
    sys.llm?.script({
      match: query,
      turns: [{ toolCalls: [{ name: 'get_bills', arguments: {} }] }, { content: 'Here are your bills.' }],
    });
    await ask(sys.gatewayUrl, { query, conversationId, ...tenant });
    const call = sys.books
      .calls()
      .filter((c) => c.tool === 'get_bills')
      .at(-1);
    expect(call?.args).toMatchObject({ Page: 1, PageSize: 50 });
    const more = `show more bills ${randomUUID().slice(0, 6)}`;
    sys.llm?.script({ match: more, turns: [{ content: 'Page 2.' }] });
    await ask(sys.gatewayUrl, { query: more, conversationId, ...tenant });
    expect(JSON.stringify(sys.llm?.requestsFor(more)[0]?.body.messages)).toContain(
      'The last list shown was get_bills',
    );
  });

  test('never shows internal ids to the user', async () => {
    const query = `who is my biggest customer ${randomUUID().slice(0, 8)}`;
    const id = customer().ContactId;
    sys.llm?.script({ match: query, turns: [{ content: `Acme Corp (${id}) is your biggest customer.` }] });
    const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
    expect(String(last(events)?.data.response)).toContain('Acme Corp');
    expect(JSON.stringify(only(events, 'response_chunk'))).not.toContain(id);
  });
});

describe('conversations', () => {
  test('persists turns with a chat number and gives the LLM the history', async () => {
    const conversationId = `conv-${randomUUID()}`;
    const first = `what was my revenue in march ${randomUUID().slice(0, 6)}`;
    const second = `and in april ${randomUUID().slice(0, 6)}`;
    sys.llm?.script({ match: first, turns: [{ content: 'Revenue in March was the best of the quarter.' }] });
    sys.llm?.script({ match: second, turns: [{ content: 'April was a little lower.' }] });
    await ask(sys.gatewayUrl, { query: first, conversationId, ...tenant });
    await ask(sys.gatewayUrl, { query: second, conversationId, ...tenant });

    const row = (
      await sys.db.query(
        'select chat_number, chat_name, message_count, last_message_preview, entity_id from unified_conversations where id = $1',
        [conversationId],
      )
    ).rows[0];
    expect(row).toMatchObject({
      chat_name: first,
      message_count: 4,
      last_message_preview: 'April was a little lower.',
    });
    expect(row.chat_number).toBeGreaterThan(0);
    const request = sys.llm?.requestsFor(second)[0];
    const contents = (request?.body.messages ?? []).map((m) => String(m.content));
    expect(contents).toContain(first);
    expect(contents).toContain('Revenue in March was the best of the quarter.');
  });

  test('summarizes a conversation past 20 messages, keeping the last 10', async () => {
    const conversationId = `conv-${randomUUID()}`;
    const old = Array.from({ length: 22 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `message number ${i}`,
    }));
    await sys.db.query(
      `insert into unified_conversations (id, entity_id, org_id, chat_number, chat_name, messages, message_count)
       values ($1, $2, $3, 9000 + floor(random() * 1000)::int, 'old chat', $4, 22)`,
      [conversationId, tenant.entityId, tenant.orgId, JSON.stringify(old)],
    );
    sys.llm?.script({
      match: 'Summarize the conversation',
      turns: [{ content: 'SUMMARY: the user asked 11 things.' }],
    });
    const query = `what next ${randomUUID().slice(0, 6)}`;
    sys.llm?.script({ match: query, turns: [{ content: 'Here is what is next.' }] });
    await ask(sys.gatewayUrl, { query, conversationId, ...tenant });

    const summarizer = sys.llm?.requestsFor('Summarize the conversation').at(-1);
    expect(JSON.stringify(summarizer?.body.messages)).toContain('message number 11');
    expect(JSON.stringify(summarizer?.body.messages)).not.toContain('message number 12');
    const sent = (sys.llm?.requestsFor(query)[0]?.body.messages ?? []).map((m) => String(m.content));
    expect(sent).toContain('[Previous conversation summary]\nSUMMARY: the user asked 11 things.');
    expect(sent.filter((c) => c.startsWith('message number'))).toHaveLength(10);
    expect(sent).toContain('message number 21');
    await expect
      .poll(
        async () =>
          (
            await sys.db.query('select summary, summarized_count from unified_conversations where id = $1', [
              conversationId,
            ])
          ).rows[0],
      )
      .toEqual({ summary: 'SUMMARY: the user asked 11 things.', summarized_count: 12 });
  });

  test('remembers the documents it created, for "show that invoice"', async () => {
    const { mcq, conversationId } = await propose('create_invoice', {
      ContactId: customer().ContactId,
      Lines: [{ ...invoiceLine, Description: 'tracked doc' }],
    });
    await answer(conversationId, mcq.actionId, 'confirm');
    const created = writes('create_invoice').filter((c) => JSON.stringify(c.args).includes('tracked doc'));
    expect(created).toHaveLength(1);
    const number = sys.books.store.invoices.at(-1)?.InvoiceNumber;
    const followUp = `show that invoice ${randomUUID().slice(0, 6)}`;
    sys.llm?.script({ match: followUp, turns: [{ content: `Here is ${number}.` }] });
    await ask(sys.gatewayUrl, { query: followUp, conversationId, ...tenant });
    const sent = JSON.stringify(sys.llm?.requestsFor(followUp)[0]?.body.messages);
    expect(sent).toContain('Documents created earlier in this conversation');
    expect(sent).toContain(String(number));
  });

  test('refuses to continue another tenant’s conversation', async () => {
    const conversationId = `conv-${randomUUID()}`;
    const query = `hello there ${randomUUID().slice(0, 6)}`;
    sys.llm?.script({ match: query, repeat: true, turns: [{ content: 'Hi!' }] });
    await ask(sys.gatewayUrl, { query, conversationId, ...tenant });
    const { events } = await ask(sys.gatewayUrl, {
      query,
      conversationId,
      entityId: 'other',
      orgId: 'other',
    });
    expect(last(events)).toMatchObject({ event: 'error', data: { code: 'FORBIDDEN' } });
  });
});
