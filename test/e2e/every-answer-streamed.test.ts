// Every answer is streamed: whichever path completes a request with text (small
// talk with or without a model, in English, Hinglish or Hindi; the fast path; a cached answer; the
// model's loop; a confirmation card; a cancelled, expired or re-asked confirmation; a write that
// needs more details; an answer the final checks rewrote), a client that renders only the stream
// shows what `complete.response` says. The six services run as processes on the real NATS and
// PostgreSQL: once without a model, once with the scripted one.
import { randomUUID } from 'node:crypto';
import { STARTER_INTENTS } from '@munim/db';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

const tag = () => randomUUID().slice(0, 8);
/** A tenant nobody used yet: no cached answer or pending confirmation of another case is in the way. */
const freshTenant = () => ({ entityId: `ent-${tag()}`, orgId: 'org-streamed' });

/**
 * The answer a client that renders the stream shows when it ends: the `response_chunk`s joined,
 * starting over at each `response_replace` as the contract says.
 */
function shown(events: SseEvent[]): string {
  let text = '';
  for (const e of events) {
    if (e.event === 'response_chunk') text += String(e.data.text);
    if (e.event === 'response_replace') text = String(e.data.text);
  }
  return text;
}

/** The request completed with text, and its stream showed exactly that text. */
function expectStreamed(events: SseEvent[], what: string, status = 'answered'): void {
  const done = events.at(-1);
  expect(done, `${what}: the request did not complete`).toMatchObject({
    event: 'complete',
    data: { status },
  });
  const response = String(done?.data.response);
  expect(response, `${what}: complete.response is empty`).not.toBe('');
  expect(shown(events), `${what}: the stream shows something else than complete.response`).toBe(response);
}

/** Small talk as newcomers type it: greetings, thanks, farewells, meta questions and replies. */
const SMALL_TALK = [
  ...['hi', 'hello', 'hey there', 'good morning', 'namaste', 'namaskar ji', 'sat sri akal'],
  ...['नमस्ते', 'नमस्कार', 'राम राम'],
  ...['thanks', 'thank you so much', 'shukriya', 'dhanyavaad', 'धन्यवाद', 'ok', 'badhiya'],
  ...['bye', 'alvida', 'phir milenge', 'फिर मिलेंगे'],
  ...['help', 'what can you do', 'who are you', 'aap kya kar sakte ho', 'kaise ho', 'मदद', 'आप कौन हो'],
  ...['haan', 'nahi', 'हाँ', 'tell me a joke'],
];
/** Each as typed, capitalised with a mark, and padded with spaces. */
const SMALL_TALK_VARIANTS = SMALL_TALK.flatMap((q) => [
  q,
  `${q[0]?.toUpperCase()}${q.slice(1)}!`,
  `  ${q}  `,
]);
/** The first training phrase of every seeded intent: the fast path. */
const FAST_PATH = STARTER_INTENTS.map((i) => [i.name, i.trainingPhrases[0] ?? i.name] as const);

describe('without a model, every answer is streamed', () => {
  let sys: TestSystem;

  test.beforeAll(async ({ newDatabase, newNats }) => {
    sys = await startSystem({ database: await newDatabase(), nats: newNats(), llm: false });
  });

  afterAll(async () => {
    await sys?.stop();
  });

  test.each(SMALL_TALK_VARIANTS)('small talk "%s"', async (query) => {
    const { events } = await ask(sys.gatewayUrl, { query, ...freshTenant() });
    expect(events.find((e) => e.event === 'route_classified')?.data).toMatchObject({
      category: 'general_chat',
    });
    expectStreamed(events, query);
  });

  test.each(FAST_PATH)('the fast path of %s ("%s"), then its cached answer', async (name, query) => {
    const tenant = freshTenant();
    const first = await ask(sys.gatewayUrl, { query, ...tenant });
    expect(first.events.find((e) => e.event === 'route_classified')?.data, name).toMatchObject({
      path: 'fast',
    });
    expectStreamed(first.events, query);
    // The router keeps the answer once the request is logged; the same words then come from the cache.
    await expect
      .poll(
        async () =>
          (
            await sys.db.query(
              "select count(*)::int as n from response_cache where entity_id = $1 and cache_key <> 'invalidated'",
              [tenant.entityId],
            )
          ).rows[0]?.n,
        { timeout: 10_000 },
      )
      .toBe(1);
    const again = await ask(sys.gatewayUrl, { query, ...tenant });
    expect(again.events.find((e) => e.event === 'route_classified')?.data, name).toMatchObject({
      path: 'cached',
    });
    expectStreamed(again.events, `${query} (cached)`);
  });
});

describe('with a model, every answer is streamed', () => {
  let sys: TestSystem;
  const tenant = { entityId: 'ent-streamed-llm', orgId: 'org-streamed' };

  test.beforeAll(async ({ newDatabase, newNats }) => {
    sys = await startSystem({ database: await newDatabase(), nats: newNats() });
  });

  afterAll(async () => {
    await sys?.stop();
  });

  const customerId = () => {
    const contact = sys.books.store.contacts.find((c) => c.Name === 'Acme Corp');
    if (!contact) throw new Error('the demo books have no Acme Corp');
    return contact.ContactId;
  };
  const invoiceLine = { Description: 'Consulting', Quantity: 1, UnitPrice: 1000, TaxRate: 18 };

  /** Scripts the model to call `tool` for a unique query, then to close with `closing`; returns the query. */
  function scriptWrite(tool: string, args: Record<string, unknown>, closing = 'Done.') {
    const query = `please ${tool.replace(/_/g, ' ')} ${tag()}`;
    sys.llm?.script({
      match: query,
      turns: [{ toolCalls: [{ name: tool, arguments: args }] }, { content: closing }],
    });
    return query;
  }

  /** Asks for a write and returns the card's action and its conversation, the proposal itself checked. */
  async function propose(tool: string, args: Record<string, unknown>) {
    const conversationId = `conv-${randomUUID()}`;
    const query = scriptWrite(tool, args, 'The change is made.');
    const { events } = await ask(sys.gatewayUrl, { query, conversationId, ...tenant });
    expectStreamed(events, `the confirmation card of ${tool}`, 'awaiting_confirmation');
    const actionId = String(events.find((e) => e.event === 'mcq')?.data.actionId);
    return { conversationId, actionId };
  }

  const answerCard = (
    conversationId: string,
    actionId: string,
    value: 'confirm' | 'cancel',
    typedConfirmation?: string,
  ) =>
    ask(sys.gatewayUrl, {
      ...tenant,
      conversationId,
      mcqResponse: { actionId, value, ...(typedConfirmation ? { typedConfirmation } : {}) },
    });

  // Each for its own work: the same invoice twice is a likely duplicate, confirmed by typing.
  const newInvoice = () => ({
    ContactId: customerId(),
    Lines: [{ ...invoiceLine, Description: `Consulting ${tag()}` }],
  });
  const openInvoiceId = () => {
    const invoice = sys.books.store.invoices.filter((i) => i.Status === 'AUTHORISED').at(-1);
    if (!invoice) throw new Error('the demo books have no open invoice');
    return invoice.InvoiceId;
  };

  test.each(['hello', 'namaste', 'नमस्ते', 'kaise ho', 'shukriya', 'what can you do'])(
    'small talk "%s" in the model’s words',
    async (greeting) => {
      const query = `${greeting} ${tag()}`;
      sys.llm?.script({ match: query, turns: [{ content: `Namaste! Ask me about your books. (${query})` }] });
      const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
      expect(events.find((e) => e.event === 'route_classified')?.data).toMatchObject({
        category: 'general_chat',
      });
      expectStreamed(events, query);
    },
  );

  test('a fast-path answer in the model’s words', async () => {
    sys.llm?.script({ match: 'show all invoices', turns: [{ content: 'Here are your invoices.' }] });
    const { events } = await ask(sys.gatewayUrl, { query: 'show all invoices', ...freshTenant() });
    expect(events.find((e) => e.event === 'route_classified')?.data).toMatchObject({ path: 'fast' });
    expectStreamed(events, 'show all invoices');
  });

  test('an answer of the tool-calling loop', async () => {
    const query = `list my bills please ${tag()}`;
    sys.llm?.script({
      match: query,
      turns: [
        { content: 'Let me look those up.', toolCalls: [{ name: 'get_bills', arguments: {} }] },
        { content: 'Here are your bills.' },
      ],
    });
    expectStreamed((await ask(sys.gatewayUrl, { query, ...tenant })).events, query);
  });

  test('an answer the final checks rewrote', async () => {
    const query = `record the rent payment ${tag()}`;
    sys.llm?.script({ match: query, turns: [{ content: '✅ Payment of ₹20,000 recorded successfully.' }] });
    expectStreamed((await ask(sys.gatewayUrl, { query, ...tenant })).events, query);
  });

  test('a confirmation card, and its confirmation', async () => {
    const { conversationId, actionId } = await propose('create_invoice', newInvoice());
    expectStreamed((await answerCard(conversationId, actionId, 'confirm')).events, 'confirmed');
  });

  test('a confirmation card, and a plain "haan" that confirms it', async () => {
    const { conversationId } = await propose('create_invoice', newInvoice());
    const { events } = await ask(sys.gatewayUrl, { query: 'haan', conversationId, ...tenant });
    expectStreamed(events, 'haan');
  });

  test('a confirmation card, cancelled', async () => {
    const { conversationId, actionId } = await propose('create_invoice', newInvoice());
    expectStreamed((await answerCard(conversationId, actionId, 'cancel')).events, 'cancelled', 'cancelled');
  });

  test('a confirmation card, expired', async () => {
    const { conversationId, actionId } = await propose('create_invoice', newInvoice());
    await sys.db.query(
      "update pending_actions set expires_at = now() - interval '1 minute' where action_id = $1",
      [actionId],
    );
    expectStreamed((await answerCard(conversationId, actionId, 'confirm')).events, 'expired', 'cancelled');
  });

  test('a confirmation card whose call changed after it was shown', async () => {
    const { conversationId, actionId } = await propose('create_invoice', newInvoice());
    await sys.db.query(
      `update pending_actions set args = jsonb_set(args, '{Lines,0,UnitPrice}', '99999') where action_id = $1`,
      [actionId],
    );
    expectStreamed((await answerCard(conversationId, actionId, 'confirm')).events, 'void', 'needs_input');
  });

  test('a riskier card: a plain "yes" and a wrong typed confirmation are asked again', async () => {
    const { conversationId, actionId } = await propose('void_invoice', { InvoiceId: openInvoiceId() });
    const plain = await ask(sys.gatewayUrl, { query: 'yes', conversationId, ...tenant });
    expectStreamed(plain.events, 'plain yes to a tier-3 card', 'awaiting_confirmation');
    const typed = await answerCard(conversationId, actionId, 'confirm', 'NOPE');
    expectStreamed(typed.events, 'wrong typed confirmation', 'awaiting_confirmation');
  });

  test('a write that needs more details after its retries', async () => {
    const query = `record a payment for the latest invoice ${tag()}`;
    sys.llm?.script({
      match: query,
      repeat: true,
      turns: [{ toolCalls: [{ name: 'create_payment', arguments: { Amount: 100 } }] }],
    });
    expectStreamed((await ask(sys.gatewayUrl, { query, ...tenant })).events, query, 'needs_input');
  });
});
