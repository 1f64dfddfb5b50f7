// End to end: an irreversible action's card says what else it touches, read from the books before
// it is shown — a void lists the payments applied to the invoice, its balance and the tax that
// reverses; a contact's delete lists its open documents. All six services run as processes on the
// real NATS and a fresh PostgreSQL, with the demo books and a scripted model.
import { randomUUID } from 'node:crypto';
import { runTool } from '@munim/demo-books';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
const tenant = { entityId: 'ent-impact-cards', orgId: 'org-impact-cards' };
let bank = '';
let customer = '';

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats });
  bank = sys.books.store.accounts.find((a) => a.Code === '1000')?.AccountId ?? '';
  customer = sys.books.store.contacts.find((c) => c.ContactType === 'CUSTOMER')?.ContactId ?? '';
  expect(bank && customer).toBeTruthy();
});

afterAll(async () => {
  await sys?.stop();
});

const card = (events: SseEvent[]) => events.find((e) => e.event === 'mcq')?.data;
const detail = (data: Record<string, unknown> | undefined, label: string) =>
  (data?.details as { label: string; value: string }[] | undefined)?.find((d) => d.label === label)?.value;

/** Asks for one scripted write and cancels its card: the card. */
async function cardFor(query: string, name: string, args: Record<string, unknown>) {
  sys.llm?.script({
    match: query,
    turns: [{ toolCalls: [{ name, arguments: args }] }, { content: 'Done.' }],
  });
  const conversationId = `conv-${randomUUID()}`;
  const proposal = await ask(sys.gatewayUrl, { query, conversationId, ...tenant });
  expect(proposal.events.at(-1), JSON.stringify(proposal.events.slice(-3))).toMatchObject({
    data: { status: 'awaiting_confirmation' },
  });
  const shown = card(proposal.events);
  await ask(sys.gatewayUrl, {
    ...tenant,
    conversationId,
    mcqResponse: { actionId: String(shown?.actionId), value: 'cancel' },
  });
  return shown;
}

describe('an irreversible action says what else it touches', () => {
  test('a void card lists the payment applied, the balance due and the tax that reverses', async () => {
    const invoice = runTool(sys.books.store, 'create_invoice', {
      ContactId: customer,
      Lines: [{ Description: 'Panel fitting', Quantity: 1, UnitPrice: 5000, TaxRate: 18 }],
    }).structuredContent as { InvoiceId: string; InvoiceNumber: string };
    const payment = runTool(sys.books.store, 'create_payment', {
      AccountId: bank,
      Amount: 2000,
      Applications: [{ InvoiceId: invoice.InvoiceId, Amount: 2000 }],
      Reference: 'UTR-IMPACT-1',
    }).structuredContent as { PaymentNumber: string };
    const shown = await cardFor(`void ${invoice.InvoiceNumber}`, 'void_invoice', {
      InvoiceId: invoice.InvoiceId,
      Reason: 'Raised twice',
    });
    expect(detail(shown, 'Payments applied')).toMatch(new RegExp(`${payment.PaymentNumber}.*2,000`));
    expect(detail(shown, 'Balance due')).toMatch(/3,900/);
    expect(detail(shown, 'Tax that reverses')).toMatch(/900/);
    const question = String(shown?.question);
    expect(question).toMatch(new RegExp(`It also touches: payments applied: ${payment.PaymentNumber}`));
    expect(question).toMatch(/balance due: ₹3,900/);
    expect(question).not.toMatch(new RegExp(invoice.InvoiceId));
    // Asked, not done.
    expect(sys.books.store.invoices.find((i) => i.InvoiceId === invoice.InvoiceId)?.Status).toBe(
      'AUTHORISED',
    );
  });

  test('an invoice with nothing applied says none', async () => {
    const invoice = runTool(sys.books.store, 'create_invoice', {
      ContactId: customer,
      Lines: [{ Description: 'Site visit', Quantity: 1, UnitPrice: 1000, TaxRate: 18 }],
    }).structuredContent as { InvoiceId: string; InvoiceNumber: string };
    const shown = await cardFor(`void ${invoice.InvoiceNumber} now`, 'void_invoice', {
      InvoiceId: invoice.InvoiceId,
    });
    expect(detail(shown, 'Payments applied')).toBe('none');
    expect(detail(shown, 'Balance due')).toMatch(/1,180/);
    expect(detail(shown, 'Tax that reverses')).toMatch(/180/);
  });

  test('an approve card says the tax it posts', async () => {
    const vendor = sys.books.store.contacts.find((c) => c.ContactType === 'VENDOR')?.ContactId;
    const bill = runTool(sys.books.store, 'create_bill', {
      ContactId: vendor,
      Lines: [{ Description: 'Cable drums', Quantity: 2, UnitPrice: 1000, TaxRate: 18 }],
    }).structuredContent as { BillId: string; BillNumber: string };
    const shown = await cardFor(`approve ${bill.BillNumber}`, 'approve_bill', { BillId: bill.BillId });
    expect(detail(shown, 'Tax it posts')).toMatch(/^₹360\.00/);
    expect(detail(shown, 'Payments applied')).toBe('none');
    expect(sys.books.store.bills.find((b) => b.BillId === bill.BillId)?.Status).toBe('SUBMITTED');
  });

  test("a contact's delete card lists its open documents", async () => {
    const open = runTool(sys.books.store, 'get_all_invoices', { ContactId: customer, Status: 'AUTHORISED' })
      .structuredContent as { Invoices: { InvoiceNumber: string; AmountDue: number }[] };
    const due = open.Invoices.filter((i) => i.AmountDue > 0);
    expect(due.length).toBeGreaterThan(0);
    const shown = await cardFor('delete this customer', 'delete_contact', { ContactId: customer });
    const documents = detail(shown, 'Open documents');
    expect(documents).toMatch(/^\d+: /);
    expect(documents).toContain(due[0]?.InvoiceNumber);
    expect(String(shown?.question)).toMatch(/open documents: \d+/);
    expect(sys.books.store.contacts.some((c) => c.ContactId === customer)).toBe(true);
  });
});
