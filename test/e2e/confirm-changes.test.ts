// End to end: a "yes" that changes the proposal is asked again on a new card with the changed
// call, and nothing is written until that card is confirmed. All six services run as processes on
// the real NATS and a fresh PostgreSQL, with the demo books and a scripted model.
import { randomBytes, randomUUID } from 'node:crypto';
import { runTool } from '@munim/demo-books';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
const tenant = { entityId: 'ent-confirm-changes', orgId: 'org-confirm-changes' };
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
const done = (events: SseEvent[]) => events.at(-1);
const payments = (reference: string) => sys.books.store.payments.filter((p) => p.Reference === reference);

/** An invoice of `amount` (no tax) to the customer. */
function invoiceOf(amount: number): { InvoiceId: string; InvoiceNumber: string } {
  const created = runTool(sys.books.store, 'create_invoice', {
    ContactId: customer,
    Lines: [{ Description: 'Wiring work', Quantity: 1, UnitPrice: amount, TaxRate: 0 }],
  });
  return created.structuredContent as { InvoiceId: string; InvoiceNumber: string };
}

describe('a yes that changes the proposal', () => {
  test('"yes, but make it ₹4,500" is asked again with the changed amount on a new card; nothing is written until it is confirmed', async () => {
    const invoice = invoiceOf(5000);
    const reference = `UTR${randomBytes(5).toString('hex').toUpperCase()}`;
    const query = `record the payment ${reference}`;
    sys.llm?.script({
      match: query,
      turns: [
        {
          toolCalls: [
            {
              name: 'create_payment',
              arguments: {
                AccountId: bank,
                Amount: 5000,
                Applications: [{ InvoiceId: invoice.InvoiceId, Amount: 5000 }],
                Reference: reference,
                PaymentMode: 'UPI',
              },
            },
          ],
        },
        { content: 'Recorded.' },
      ],
    });
    const conversationId = `conv-${randomUUID()}`;
    const first = await ask(sys.gatewayUrl, { query, conversationId, ...tenant });
    const proposed = card(first.events);
    expect(done(first.events), JSON.stringify(first.events.slice(-3))).toMatchObject({
      data: { status: 'awaiting_confirmation' },
    });
    expect(String(proposed?.question)).toMatch(/5,000/);

    const changed = await ask(sys.gatewayUrl, {
      query: 'yes, but make it ₹4,500',
      conversationId,
      ...tenant,
    });
    const again = card(changed.events);
    expect(done(changed.events), JSON.stringify(changed.events.slice(-3))).toMatchObject({
      event: 'complete',
      data: { status: 'awaiting_confirmation' },
    });
    expect(again?.actionId).toBeTruthy();
    expect(again?.actionId).not.toBe(proposed?.actionId);
    expect(String(again?.question)).toMatch(/changed the amount to ₹4,500.00 as you asked/);
    expect(String(again?.question)).toMatch(/4,500/);
    expect(again?.pending_args).toMatchObject({
      Amount: 4500,
      Applications: [{ InvoiceId: invoice.InvoiceId, Amount: 4500 }],
      Reference: reference,
    });
    // Nothing ran on that "yes".
    expect(payments(reference)).toHaveLength(0);
    expect(
      sys.books.calls().filter((c) => c.tool === 'create_payment' && c.args.Reference === reference),
    ).toHaveLength(0);

    // The trail keeps both versions: proposed, edited (the amount before and after), the old card
    // closed, the changed call proposed.
    const trail = await sys.db.query<{ action: string; summary: string }>(
      'SELECT action, summary FROM audit_log WHERE entity_id = $1 AND org_id = $2 ORDER BY seq',
      [tenant.entityId, tenant.orgId],
    );
    expect(trail.rows.map((r) => r.action)).toEqual(['proposed', 'edited', 'cancelled', 'proposed']);
    expect(trail.rows[1]?.summary).toMatch(/Amount: 5000 → 4500/);

    // The card shown before answers no more: it cannot run the old call, nor the changed one.
    const stale = await ask(sys.gatewayUrl, {
      ...tenant,
      conversationId,
      mcqResponse: { actionId: String(proposed?.actionId), value: 'confirm' },
    });
    expect(done(stale.events)).toMatchObject({ event: 'error' });
    expect(payments(reference)).toHaveLength(0);

    // A date in Hinglish changes the new card again.
    const dated = await ask(sys.gatewayUrl, {
      query: 'haan, 1 December ki date daal do',
      conversationId,
      ...tenant,
    });
    const third = card(dated.events);
    expect(done(dated.events)).toMatchObject({ data: { status: 'awaiting_confirmation' } });
    expect(third?.pending_args).toMatchObject({ Amount: 4500, Date: expect.stringMatching(/-12-01$/) });
    expect(payments(reference)).toHaveLength(0);

    // A change it cannot read keeps the card, and says so.
    const unread = await ask(sys.gatewayUrl, {
      query: 'yes but change the customer to Beta Traders',
      conversationId,
      ...tenant,
    });
    expect(done(unread.events)).toMatchObject({ data: { status: 'awaiting_confirmation' } });
    expect(card(unread.events)).toMatchObject({ actionId: third?.actionId });
    expect(String(card(unread.events)?.question)).toMatch(/couldn't make that change/);

    const confirmed = await ask(sys.gatewayUrl, {
      ...tenant,
      conversationId,
      mcqResponse: {
        actionId: String(third?.actionId),
        value: 'confirm',
        ...(third?.confirm_text ? { typedConfirmation: third.confirm_text } : {}),
      },
    });
    expect(done(confirmed.events), JSON.stringify(confirmed.events.slice(-3))).toMatchObject({
      event: 'complete',
    });
    expect(payments(reference)).toHaveLength(1);
    expect(payments(reference)[0]).toMatchObject({ Amount: 4500, Applications: [{ Amount: 4500 }] });
    expect(payments(reference)[0]?.Date).toMatch(/-12-01$/);
  });

  test('with a model, an amount in words is read by it: "yes, but make it four thousand five hundred"', async () => {
    const invoice = invoiceOf(5000);
    const reference = `UTR${randomBytes(5).toString('hex').toUpperCase()}`;
    const query = `record the payment ${reference}`;
    sys.llm?.script({
      match: query,
      turns: [
        {
          toolCalls: [
            {
              name: 'create_payment',
              arguments: {
                AccountId: bank,
                Amount: 5000,
                Applications: [{ InvoiceId: invoice.InvoiceId, Amount: 5000 }],
                Reference: reference,
              },
            },
          ],
        },
        { content: 'Recorded.' },
      ],
    });
    // The model is asked for the values only; a model that also names a customer changes nothing more.
    sys.llm?.script({
      match: 'four thousand five hundred',
      turns: [{ content: '{"amount": 4500, "ContactId": "someone-else"}' }],
    });
    const conversationId = `conv-${randomUUID()}`;
    await ask(sys.gatewayUrl, { query, conversationId, ...tenant });
    const changed = await ask(sys.gatewayUrl, {
      query: 'yes, but make it four thousand five hundred',
      conversationId,
      ...tenant,
    });
    expect(done(changed.events)).toMatchObject({ data: { status: 'awaiting_confirmation' } });
    const args = card(changed.events)?.pending_args as Record<string, unknown>;
    expect(args).toMatchObject({ Amount: 4500, Applications: [{ Amount: 4500 }] });
    expect(args).not.toHaveProperty('ContactId');
    expect(payments(reference)).toHaveLength(0);
  });

  test('a change the books refuse (a date in a closed period) is said so, and the card stands', async () => {
    const closed = { entityId: 'ent-confirm-changes-closed', orgId: 'org-confirm-changes-closed' };
    await sys.db.query(
      "INSERT INTO lock_dates (entity_id, org_id, lock_date, updated_by) VALUES ($1, $2, '2026-03-31', 'test')",
      [closed.entityId, closed.orgId],
    );
    const invoice = invoiceOf(5000);
    const reference = `UTR${randomBytes(5).toString('hex').toUpperCase()}`;
    const query = `record the payment ${reference}`;
    sys.llm?.script({
      match: query,
      turns: [
        {
          toolCalls: [
            {
              name: 'create_payment',
              arguments: {
                AccountId: bank,
                Amount: 5000,
                Applications: [{ InvoiceId: invoice.InvoiceId, Amount: 5000 }],
                Reference: reference,
              },
            },
          ],
        },
        { content: 'Recorded.' },
      ],
    });
    const conversationId = `conv-${randomUUID()}`;
    const first = card((await ask(sys.gatewayUrl, { query, conversationId, ...closed })).events);
    const changed = await ask(sys.gatewayUrl, {
      query: 'yes, but date it 15 March 2026',
      conversationId,
      ...closed,
    });
    expect(done(changed.events), JSON.stringify(changed.events.slice(-3))).toMatchObject({
      data: { status: 'awaiting_confirmation' },
    });
    const kept = card(changed.events);
    expect(kept?.actionId).toBe(first?.actionId);
    expect(String(kept?.question)).toMatch(/couldn't make that change: the changed details do not check out/);
    expect(String(kept?.question)).toMatch(/closed/i);
    expect(kept?.pending_args).not.toHaveProperty('Date');
    expect(payments(reference)).toHaveLength(0);
  });
});
