// India's tax rules on a server in another naming style: a small MCP server of this test whose
// invoice names its fields its own way (customer.gst_no, invoiceDate, items[].qty/rate/gstRate/
// cgst/sgst/igst, grandTotal). The system runs as processes on the real NATS and PostgreSQL with
// the scripted LLM; the business's GSTIN (Maharashtra, 27) is its business context. A mistyped
// GSTIN, IGST on a sale within the state, CGST+SGST across states and a wrong grand total are
// blocked by meaning and never reach the server; the right invoice is proposed.
import { randomUUID } from 'node:crypto';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { type FixtureSpec, jsonResult } from '../support/mcp-fixture.ts';
import { ask, type SseEvent } from '../support/sse.ts';
import { type FixtureSystem, startOverFixtures, type TestSystem } from '../support/stack.ts';

type Args = Record<string, unknown>;
const tenant = { entityId: 'ent-tax-style', orgId: 'org-tax-style' };
const TOOL = 'createInvoice';
const SERVER = 'kirana-books';
/** The business (Mumbai), a customer in Pune and one in Ahmedabad: GSTINs with their check characters. */
const OURS = '27AAKCS4821M1ZW';
const PUNE = '27AABCK5678F1ZB';
const AHMEDABAD = '24AABCP1234C1Z6';

const num = { type: 'number' };
const str = { type: 'string' };
const kirana: FixtureSpec = {
  name: SERVER,
  tools: () => [
    {
      name: TOOL,
      description: 'Creates a GST tax invoice for a customer.',
      inputSchema: {
        type: 'object',
        properties: {
          customer: { type: 'object', properties: { name: str, gst_no: str, state: str } },
          invoiceDate: { type: 'string', format: 'date' },
          items: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                itemName: str,
                hsnSac: str,
                qty: num,
                rate: num,
                gstRate: num,
                cgst: num,
                sgst: num,
                igst: num,
              },
            },
          },
          grandTotal: num,
        },
        required: ['customer', 'items'],
      },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
  ],
  call: (_tool, args) => jsonResult({ invoiceId: 'KB-1', ...args }),
};

let fixtures: FixtureSystem;
let sys: TestSystem;

test.beforeAll(async ({ database, nats }) => {
  fixtures = await startOverFixtures([{ name: SERVER, http: kirana }], [TOOL], {}, { database, nats });
  sys = fixtures.sys;
  await sys.db.query(
    "insert into business_contexts (entity_id, org_id, country_code, gstin) values ($1, $2, 'IN', $3)",
    [tenant.entityId, tenant.orgId, OURS],
  );
}, 120_000);

afterAll(async () => {
  await fixtures?.stop();
});

const only = (events: SseEvent[], type: string) => events.filter((e) => e.event === type);
const sent = () => fixtures.received(SERVER).filter((c) => c.tool === TOOL).length;

async function invoice(args: Args): Promise<SseEvent[]> {
  const query = `bill the customer ${randomUUID().slice(0, 8)}`;
  sys.llm?.script({
    match: query,
    turns: [{ toolCalls: [{ name: TOOL, arguments: args }] }, { content: 'Done.' }],
  });
  return (await ask(sys.gatewayUrl, { query, ...tenant })).events;
}

/** Five cartons of rice (HSN 1006) at ₹2,000 and 5% GST: ₹10,000 and ₹500 tax. */
const sale = (gstNo: string, tax: Args, grandTotal = 10500): Args => ({
  customer: { name: 'Kale Stores', gst_no: gstNo },
  invoiceDate: '2025-11-03',
  items: [{ itemName: 'Rice, 25 kg', hsnSac: '1006', qty: 5, rate: 2000, gstRate: 5, ...tax }],
  grandTotal,
});

async function blocked(args: Args) {
  const before = sent();
  const events = await invoice(args);
  const [validation] = only(events, 'write_validation').map((e) => e.data);
  expect(validation).toMatchObject({ status: 'blocked' });
  expect(only(events, 'mcq')).toEqual([]);
  expect(sent()).toBe(before);
  return (validation?.errors ?? []) as { code: string; field: string; message: string }[];
}

describe('tax checks on a server that names its fields its own way', () => {
  test('a mistyped GSTIN is blocked, naming the field', async () => {
    const errors = await blocked(sale('27AABCK5678F1ZC', { cgst: 250, sgst: 250 }));
    expect(errors.map((e) => [e.code, e.field])).toEqual([['gstin_invalid', 'customer.gst_no']]);
    expect(errors[0]?.message).toContain('has the check character C, but its other characters give B');
  });

  test('IGST on a sale within Maharashtra is blocked', async () => {
    const errors = await blocked(sale(PUNE, { igst: 500 }));
    expect(errors.map((e) => [e.code, e.field])).toEqual([['place_of_supply_mismatch', 'items[0].igst']]);
    expect(errors[0]?.message).toContain('both in Maharashtra (27)');
  });

  test('CGST+SGST on a sale to Gujarat is blocked', async () => {
    const errors = await blocked(sale(AHMEDABAD, { cgst: 250, sgst: 250 }));
    expect(errors.map((e) => e.code)).toEqual(['place_of_supply_mismatch']);
    expect(errors[0]?.message).toContain('is Gujarat (24)');
  });

  test('a grand total that does not add up is blocked, naming both figures', async () => {
    const errors = await blocked(sale(AHMEDABAD, { igst: 500 }, 10050));
    expect(errors.map((e) => [e.code, e.field])).toEqual([['total_mismatch', 'grandTotal']]);
    expect(errors[0]?.message).toContain('₹10,050.00');
    expect(errors[0]?.message).toContain('₹10,500.00');
  });

  test('the right invoice passes and is proposed for confirmation', async () => {
    const before = sent();
    const events = await invoice(sale(AHMEDABAD, { igst: 500 }));
    expect(only(events, 'write_validation').map((e) => e.data.status)).toEqual(['passed']);
    expect(only(events, 'mcq')).toHaveLength(1);
    expect(sent()).toBe(before);
  });

  test('an invoice dated inside the closed period is blocked, whatever the server calls its date', async () => {
    await sys.db.query(
      "insert into lock_dates (entity_id, org_id, lock_date, updated_by) values ($1, $2, '2025-11-30', 'test')",
      [tenant.entityId, tenant.orgId],
    );
    try {
      const errors = await blocked(sale(AHMEDABAD, { igst: 500 }));
      expect(errors.map((e) => [e.code, e.field])).toEqual([['period_locked', 'invoiceDate']]);
      expect(errors[0]?.message).toContain('closed up to 30 November 2025');
      // One verdict for the write: blocked, never passed first.
      const after = { ...sale(AHMEDABAD, { igst: 500 }), invoiceDate: '2025-12-01' };
      const events = await invoice(after);
      expect(only(events, 'write_validation').map((e) => e.data.status)).toEqual(['passed']);
    } finally {
      await sys.db.query('delete from lock_dates where entity_id = $1 and org_id = $2', [
        tenant.entityId,
        tenant.orgId,
      ]);
    }
  });
});
