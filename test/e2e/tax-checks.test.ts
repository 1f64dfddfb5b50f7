// India's tax rules, checked before a write reaches the books: the six services run as processes
// on the real NATS and a fresh PostgreSQL (tax rules from migration 0029), with the demo books and
// the scripted LLM. The business is Sharma Traders of Maharashtra (its state and GSTIN in its
// business context); an invoice to a customer in Gujarat charged CGST+SGST, one whose total does
// not add up, and one at a GST rate withdrawn on 22 September 2025 are blocked with a
// write_validation naming the field and both figures, and never reach the books; the right
// invoice is proposed for confirmation.
import { randomUUID } from 'node:crypto';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

type Args = Record<string, unknown>;
const tenant = { entityId: 'ent-tax-checks', orgId: 'org-tax-checks' };

let sys: TestSystem;
let customer = '';

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats });
  const company = sys.books.store.company;
  await sys.db.query(
    "insert into business_contexts (entity_id, org_id, country_code, state, gstin) values ($1, $2, 'IN', $3, $4)",
    [tenant.entityId, tenant.orgId, company.State, company.GSTIN],
  );
  customer =
    sys.books.store.contacts.find((c) => c.ContactType === 'CUSTOMER' && c.State === 'Gujarat')?.ContactId ??
    '';
  expect(customer).toBeTruthy();
});

afterAll(async () => {
  await sys?.stop();
});

const only = (events: SseEvent[], type: string) => events.filter((e) => e.event === type);
const invoicesSent = () => sys.books.calls().filter((c) => c.tool === 'create_invoice').length;

/** Asks a new question for which the LLM calls create_invoice with `args`, then says `closing`. */
async function invoice(args: Args, closing = 'I could not raise that invoice.'): Promise<SseEvent[]> {
  const query = `raise an invoice ${randomUUID().slice(0, 8)}`;
  sys.llm?.script({
    match: query,
    turns: [{ toolCalls: [{ name: 'create_invoice', arguments: args }] }, { content: closing }],
  });
  return (await ask(sys.gatewayUrl, { query, ...tenant })).events;
}

/** Ten switchgear panels at ₹1,000 and 18% GST to the customer in Gujarat: ₹11,800 with IGST. */
const sale = (over: Args = {}): Args => ({
  ContactId: customer,
  Date: '2025-10-15',
  Lines: [{ Description: 'Switchgear panel', Quantity: 10, UnitPrice: 1000, TaxRate: 18 }],
  PlaceOfSupply: 'Gujarat',
  TaxType: 'IGST',
  Total: 11800,
  ...over,
});

/** The blocked write_validation of create_invoice, and that nothing reached the books. */
async function blockedWith(args: Args, code: string) {
  const before = invoicesSent();
  const events = await invoice(args);
  const validations = only(events, 'write_validation').map((e) => e.data);
  expect(validations.length).toBeGreaterThan(0);
  const blocked = validations[0] as {
    status: string;
    errors: { code: string; field: string; message: string }[];
  };
  expect(blocked.status).toBe('blocked');
  expect(blocked.errors.map((e) => e.code)).toEqual([code]);
  expect(only(events, 'mcq')).toEqual([]);
  expect(invoicesSent()).toBe(before);
  return blocked.errors[0] as { code: string; field: string; message: string };
}

describe('India’s tax rules on the demo books', () => {
  test('an invoice across states charged CGST+SGST is blocked, naming both states', async () => {
    const error = await blockedWith(sale({ TaxType: 'CGST+SGST' }), 'place_of_supply_mismatch');
    expect(error.field).toBe('TaxType');
    expect(error.message).toBe(
      'TaxType charges CGST and SGST or UTGST, but the business is in Maharashtra (27) and the place of supply (PlaceOfSupply) is Gujarat (24): a supply across states is charged IGST.',
    );
  });

  test('an invoice within the state charged IGST is blocked', async () => {
    const error = await blockedWith(sale({ PlaceOfSupply: 'Maharashtra' }), 'place_of_supply_mismatch');
    expect(error.message).toContain('both in Maharashtra (27)');
  });

  test('an invoice whose total does not add up is blocked, naming both figures', async () => {
    const error = await blockedWith(sale({ Total: 11700 }), 'total_mismatch');
    expect(error.field).toBe('Total');
    expect(error.message).toBe(
      "Total is ₹11,700.00, but the lines' amounts ₹10,000.00 plus tax of ₹1,800.00 come to ₹11,800.00.",
    );
  });

  test('a 12% rate on an invoice dated after 22 September 2025 is blocked; the same before it is not', async () => {
    const twelve = (date: string) =>
      sale({
        Date: date,
        Total: 11200,
        Lines: [{ Description: 'Panel', Quantity: 10, UnitPrice: 1000, TaxRate: 12 }],
      });
    const error = await blockedWith(twelve('2025-10-15'), 'rate_invalid');
    expect(error.message).toContain('12%, which is not a GST rate in force on 15 October 2025');
    const events = await invoice(twelve('2025-09-15'), 'Raised.');
    expect(only(events, 'write_validation').map((e) => e.data.status)).toEqual(['passed']);
  });

  test('a model told the total is wrong corrects it on its next try, and that invoice is proposed', async () => {
    const before = invoicesSent();
    const query = `raise an invoice ${randomUUID().slice(0, 8)}`;
    sys.llm?.script({
      match: query,
      turns: [
        { toolCalls: [{ name: 'create_invoice', arguments: sale({ Total: 11700 }) }] },
        { toolCalls: [{ name: 'create_invoice', arguments: sale() }] },
        { content: 'Raised.' },
      ],
    });
    const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
    expect(only(events, 'write_validation').map((e) => e.data.status)).toEqual(['blocked', 'passed']);
    const mcq = only(events, 'mcq');
    expect(mcq).toHaveLength(1);
    expect(mcq[0]?.data.pending_args).toMatchObject({ Total: 11800 });
    expect(invoicesSent()).toBe(before);
  });

  test('the right invoice passes every check, is proposed, and once confirmed is checked again and raised', async () => {
    const before = invoicesSent();
    const events = await invoice(sale({ Reference: 'PO-TAX-1' }), 'Raised.');
    expect(only(events, 'write_validation').map((e) => e.data.status)).toEqual(['passed']);
    const mcq = only(events, 'mcq');
    expect(mcq).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'awaiting_confirmation' } });
    expect(invoicesSent()).toBe(before);
    const confirmed = await ask(sys.gatewayUrl, {
      ...tenant,
      conversationId: String(events[0]?.data.conversationId),
      mcqResponse: { actionId: String(mcq[0]?.data.actionId), value: 'confirm' },
    });
    expect(only(confirmed.events, 'tool_result').map((e) => e.data.success)).toEqual([true]);
    expect(invoicesSent()).toBe(before + 1);
    const raised = sys.books.store.invoices.find((i) => i.Reference === 'PO-TAX-1');
    expect(raised).toMatchObject({ PlaceOfSupply: 'Gujarat', Date: '2025-10-15' });
  });
});
