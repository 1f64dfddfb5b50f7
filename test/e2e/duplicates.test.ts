// End to end: before a party, document or payment is created, the books are searched with the
// server's own read tools for the record it would repeat. A duplicate payment, and a customer that
// repeats one by GSTIN or by another spelling of its name, are confirmed by typing and named on the
// card (`mcq.duplicate_of`), and logged (`duplicate_suspected`); a distinct customer is asked as
// usual. On the demo books and on a server whose tools are dotted (`contacts.create`) and whose
// records are shaped otherwise. All six services run as processes on the real NATS and a fresh
// PostgreSQL; the model is scripted; nothing is written before the user confirms.
import { randomUUID } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { type Args, type FixtureSpec, jsonResult } from '../support/mcp-fixture.ts';
import { ask, type SseEvent } from '../support/sse.ts';
import { type FixtureSystem, startOverFixtures, startSystem, type TestSystem } from '../support/stack.ts';

interface Card {
  actionId: string;
  tier: number;
  question: string;
  confirm_text?: string;
  duplicate_of?: { summary: string };
}

/** Asks `query` with the model scripted to make `write`; the card, the guardrails logged, and the conversation. */
async function proposal(sys: TestSystem, write: { name: string; arguments: Args }, what: string) {
  const tenant = { entityId: `ent-dup-${randomUUID().slice(0, 8)}`, orgId: 'org-duplicates' };
  const query = `${what} (${randomUUID().slice(0, 8)})`;
  sys.llm?.script({ match: query, turns: [{ toolCalls: [write] }, { content: 'Done.' }] });
  const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
  expect(events.at(-1), JSON.stringify(events.slice(-3))).toMatchObject({
    event: 'complete',
    data: { status: 'awaiting_confirmation' },
  });
  const card = events.find((e: SseEvent) => e.event === 'mcq')?.data as unknown as Card;
  const requestId = String(events[0]?.data.requestId);
  let guardrails: string[] = [];
  await expect
    .poll(async () => {
      const { rows } = await sys.db.query(
        'select status, guardrails_triggered from query_routing_logs where request_id = $1',
        [requestId],
      );
      guardrails = rows[0]?.guardrails_triggered ?? [];
      return rows[0]?.status;
    })
    .toBe('awaiting_confirmation');
  const conversationId = String(events[0]?.data.conversationId);
  return { card, guardrails, tenant, conversationId };
}

/** A card that names a likely duplicate: typed, the record in words, logged. */
function expectDuplicate(p: Awaited<ReturnType<typeof proposal>>, ...names: string[]) {
  expect(p.card.tier).toBe(3);
  expect(p.card.confirm_text).toMatch(/^[A-Z]+$/);
  expect(p.card.question).toContain('looks like a duplicate');
  for (const name of names) {
    expect(p.card.duplicate_of?.summary).toContain(name);
    expect(p.card.question).toContain(name);
  }
  expect(p.guardrails).toContain('duplicate_suspected');
}

function expectDistinct(p: Awaited<ReturnType<typeof proposal>>) {
  expect(p.card.tier).toBe(1);
  expect(p.card.confirm_text).toBeUndefined();
  expect(p.card.duplicate_of).toBeUndefined();
  expect(p.card.question).not.toContain('duplicate');
  expect(p.guardrails).not.toContain('duplicate_suspected');
}

describe('duplicates on the demo books', () => {
  let sys: TestSystem;
  test.beforeAll(async ({ database, nats }) => {
    sys = await startSystem({ database, nats });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const inr = (n: number) =>
    new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', minimumFractionDigits: 2 }).format(
      n,
    );
  const writes = (tool: string) => sys.books.calls().filter((c) => c.tool === tool);

  test('a payment repeated two days later is typed and named, and runs once when typed', async () => {
    const s = sys.books.store;
    const receipt = s.payments.filter((p) => p.Type === 'RECEIVE' && p.Applications.length === 1).at(-2)!;
    const customer = s.contacts.find((c) => c.ContactId === receipt.ContactId)!;
    const date = new Date(Date.parse(receipt.Date) + 2 * 86_400_000).toISOString().slice(0, 10);
    const args = {
      AccountId: receipt.AccountId,
      Amount: receipt.Amount,
      Applications: [{ InvoiceId: receipt.Applications[0]?.InvoiceId, Amount: receipt.Amount }],
      Date: date,
      Reference: `UTR${Date.now()}`,
    };
    const before = writes('create_payment').length;
    const p = await proposal(
      sys,
      { name: 'create_payment', arguments: args },
      `Record the payment from ${customer.Name}`,
    );
    expectDuplicate(p, receipt.PaymentNumber, customer.Name, inr(receipt.Amount));
    // The books were read with their own payments list, and nothing written.
    expect(sys.books.calls().some((c) => c.tool === 'get_all_payments')).toBe(true);
    expect(writes('create_payment')).toHaveLength(before);
    // A plain yes does not do: the card is asked again, still naming the record it repeats.
    const plain = await ask(sys.gatewayUrl, { ...p.tenant, conversationId: p.conversationId, query: 'yes' });
    const again = plain.events.find((e) => e.event === 'mcq')?.data as unknown as Card;
    expect(again.duplicate_of).toEqual(p.card.duplicate_of);
    expect(writes('create_payment')).toHaveLength(before);
    const { events } = await ask(sys.gatewayUrl, {
      ...p.tenant,
      conversationId: p.conversationId,
      mcqResponse: { actionId: p.card.actionId, value: 'confirm', typedConfirmation: p.card.confirm_text },
    });
    expect(events.filter((e) => e.event === 'tool_result').map((e) => [e.data.tool, e.data.success])).toEqual(
      [['create_payment', true]],
    );
    expect(writes('create_payment')).toHaveLength(before + 1);
  });

  test('a customer with a known GSTIN under another name is typed and named', async () => {
    const acme = sys.books.store.contacts.find((c) => c.Name === 'Acme Corp')!;
    const p = await proposal(
      sys,
      { name: 'create_customer', arguments: { Name: 'AC Industries', GSTIN: acme.GSTIN } },
      'Add customer AC Industries',
    );
    expectDuplicate(p, 'Acme Corp', String(acme.GSTIN));
    expect(p.card.question).toContain('the same GSTIN');
  });

  test('a customer spelled otherwise is typed and named; a distinct one is asked as usual', async () => {
    const p = await proposal(
      sys,
      { name: 'create_customer', arguments: { Name: 'M/s. ACME Corporation Pvt. Ltd.' } },
      'Add customer Acme Corporation',
    );
    expectDuplicate(p, 'Acme Corp');
    expect(p.card.question).toContain('the same name');
    const distinct = await proposal(
      sys,
      { name: 'create_customer', arguments: { Name: 'Acme Robotics' } },
      'Add customer Acme Robotics',
    );
    expectDistinct(distinct);
    expect(writes('create_customer')).toEqual([]);
  });
});

// ── a server in another style ───────────────────────────────────────────────

const str = { type: 'string' };
/** Tools named resource-first with dots, records nested under `data.items`, fields in snake_case. */
function dottedBooks(): FixtureSpec {
  const contacts = [
    {
      id: 'c-101',
      legal_name: 'Bolt Ltd',
      tax: { gstin: '27AABCB1234C1ZE' },
      created_at: '2026-03-04T09:00:00Z',
    },
    {
      id: 'c-102',
      legal_name: 'Sharma & Verma Associates',
      tax: { gstin: null },
      created_at: '2026-05-11T09:00:00Z',
    },
  ];
  const payments = [
    {
      id: 'p-9',
      contact: { id: 'c-101', name: 'Bolt Ltd' },
      amount: 4500,
      date: '2026-11-12',
      utr: 'UTR123',
      status: 'settled',
    },
  ];
  const tools: Tool[] = [
    {
      name: 'contacts.list',
      inputSchema: { type: 'object', properties: { page_size: { type: 'integer', maximum: 100 } } },
    },
    {
      name: 'contacts.create',
      inputSchema: { type: 'object', properties: { legal_name: str, gstin: str }, required: ['legal_name'] },
    },
    {
      name: 'payments.list',
      inputSchema: { type: 'object', properties: { contact_id: str, from: str, to: str } },
    },
    {
      name: 'payments.create',
      inputSchema: {
        type: 'object',
        properties: { contact_id: str, amount: { type: 'number' }, date: str, utr: str },
        required: ['contact_id', 'amount'],
      },
    },
  ];
  return {
    name: 'dotted',
    tools: () => tools,
    call: (tool, args) => {
      if (tool === 'contacts.list') return jsonResult({ data: { items: contacts }, meta: { page: 1 } });
      if (tool === 'payments.list')
        return jsonResult({
          data: {
            items: payments.filter(
              (p) =>
                (!args.contact_id || p.contact.id === args.contact_id) &&
                (!args.from || p.date >= String(args.from)) &&
                (!args.to || p.date <= String(args.to)),
            ),
          },
        });
      return jsonResult({ data: { id: `new-${randomUUID().slice(0, 6)}`, ...args } });
    },
  };
}

describe('duplicates on a server with dotted tools and other record shapes', () => {
  let fixtures: FixtureSystem;
  test.beforeAll(async ({ database, nats }) => {
    fixtures = await startOverFixtures(
      [{ name: 'dotted', http: dottedBooks() }],
      ['contacts.list', 'contacts.create', 'payments.list', 'payments.create'],
      {},
      { database, nats },
    );
  }, 120_000);
  afterAll(async () => {
    await fixtures?.stop();
  });
  const received = () => fixtures.received('dotted').map((c) => c.tool);

  test('a payment to the same party for the same amount two days later is typed and named', async () => {
    const p = await proposal(
      fixtures.sys,
      {
        name: 'payments.create',
        arguments: { contact_id: 'c-101', amount: 4500, date: '2026-11-14', utr: 'UTR999' },
      },
      'Pay Bolt 4500',
    );
    expectDuplicate(p, 'Bolt Ltd', '₹4,500.00', '12 Nov 2026', 'UTR123');
    expect(received()).toContain('payments.list');
    expect(received()).not.toContain('payments.create');
  });

  test('a contact by GSTIN and by spelling is typed and named; a distinct one is not', async () => {
    const byGstin = await proposal(
      fixtures.sys,
      { name: 'contacts.create', arguments: { legal_name: 'B.L. Traders', gstin: '27AABCB1234C1ZE' } },
      'Add B.L. Traders',
    );
    expectDuplicate(byGstin, 'Bolt Ltd', '27AABCB1234C1ZE', 'created 4 Mar 2026');
    const bySpelling = await proposal(
      fixtures.sys,
      { name: 'contacts.create', arguments: { legal_name: 'sharma and verma associates private limited' } },
      'Add Sharma and Verma',
    );
    expectDuplicate(bySpelling, 'Sharma & Verma Associates');
    const distinct = await proposal(
      fixtures.sys,
      { name: 'contacts.create', arguments: { legal_name: 'Verma Logistics' } },
      'Add Verma Logistics',
    );
    expectDistinct(distinct);
    expect(received()).not.toContain('contacts.create');
  });
});
