// What an irreversible action touches, gathered with the books' own reads in any naming style;
// where the books cannot tell, the card says so.
import { describe, expect, it } from 'vitest';
import { impactOf } from '../src/confirmation/impact.ts';
import { fakeAgent, toolDef } from './fake-agent.ts';

const INV = 'a3f9c1d2-5b7e-4c8a-9d0f-1e2b3c4d5e6f';
const OTHER = 'b4e8d2c1-6a5f-4b3e-8c7d-0f1e2d3c4b5a';
const CUSTOMER = 'c5d7e3f2-7b6a-4c2d-9e8f-1a0b2c3d4e5f';

const label = (impact: Awaited<ReturnType<typeof impactOf>>) =>
  Object.fromEntries((impact?.details ?? []).map((d) => [d.label, d.value]));

describe('a document, Odoo-like (dotted names, payments read by a list filtered by the invoice)', () => {
  const tools = [
    toolDef('invoices.get', { invoice_id: '' }, { required: ['invoice_id'] }),
    toolDef('payments.list', { invoice_id: '' }),
    toolDef('invoices.cancel', { invoice_id: '' }, { write: true, required: ['invoice_id'] }),
  ];
  const books = (tool: string) => {
    if (tool === 'invoices.get')
      return {
        invoice_id: INV,
        name: 'INV/2026/0042',
        partner_id: [7, 'Acme Corp'],
        invoice_date: '2026-11-01',
        amount_total: 1180,
        amount_tax: 180,
        amount_residual: 680,
      };
    if (tool === 'payments.list')
      // A server that ignores the filter: another invoice's payment is listed too.
      return {
        payments: [
          { name: 'PBNK1/2026/0003', amount: 500, date: '2026-11-05', reconciled_invoice_ids: [INV] },
          { name: 'PBNK1/2026/0004', amount: 900, date: '2026-11-06', reconciled_invoice_ids: [OTHER] },
        ],
      };
    throw new Error('not found');
  };

  it('lists the payment applied (not the other), the balance and the tax, in words', async () => {
    const agent = fakeAgent({ tools, books });
    const impact = await impactOf(agent.run, 'invoices.cancel', { invoice_id: INV });
    expect(label(impact)).toEqual({
      'Payments applied': 'PBNK1/2026/0003 (₹500.00, dated 05/11/2026)',
      'Balance due': '₹680.00',
      'Tax that reverses': '₹180.00',
    });
    expect(impact?.sentence).toBe(
      'It also touches: payments applied: PBNK1/2026/0003 (₹500.00, dated 05/11/2026); balance due: ₹680.00; tax that reverses: ₹180.00.',
    );
    expect(JSON.stringify(impact)).not.toContain(INV);
    // Reads only, through the validator and executor.
    expect(agent.requests.every((r) => r.tool === 'invoices.get' || r.tool === 'payments.list')).toBe(true);
  });

  it('is nothing for a write that can be taken back', async () => {
    const agent = fakeAgent({ tools, books });
    expect(await impactOf(agent.run, 'invoices.update', { invoice_id: INV })).toBeUndefined();
    expect(agent.requests).toEqual([]);
  });
});

describe('a contact, camelCase (open documents read by lists filtered by it)', () => {
  const tools = [
    toolDef('listInvoices', { customerId: '' }),
    toolDef('listBills', { customerId: '' }),
    toolDef('deleteCustomer', { customerId: '' }, { write: true, required: ['customerId'] }),
  ];
  it('names its open documents and their balances', async () => {
    const agent = fakeAgent({
      tools,
      books: (tool) =>
        tool === 'listInvoices'
          ? {
              data: [
                { invoiceNumber: 'SI-101', customerId: CUSTOMER, total: 5000, balanceDue: 2000 },
                { invoiceNumber: 'SI-102', customerId: CUSTOMER, total: 3000, balanceDue: 0 },
                { invoiceNumber: 'SI-103', customerId: CUSTOMER, total: 7000, balanceDue: 7000 },
              ],
            }
          : { data: [] },
    });
    const impact = await impactOf(agent.run, 'deleteCustomer', { customerId: CUSTOMER });
    expect(label(impact)).toEqual({ 'Open documents': '2: SI-101 (₹2,000.00 due); SI-103 (₹7,000.00 due)' });
  });

  it('says none when its lists have none open', async () => {
    const agent = fakeAgent({ tools, books: () => ({ data: [] }) });
    expect(label(await impactOf(agent.run, 'deleteCustomer', { customerId: CUSTOMER }))).toEqual({
      'Open documents': 'none',
    });
  });

  it('says the books do not say when the lists fail', async () => {
    const agent = fakeAgent({
      tools,
      books: () => {
        throw new Error('503 Service Unavailable');
      },
    });
    expect(label(await impactOf(agent.run, 'deleteCustomer', { customerId: CUSTOMER }))).toEqual({
      'Open documents': 'the books do not say',
    });
  });
});

describe('a payment (the documents it is applied to are open again once it goes)', () => {
  const PAYMENT = 'd6e8f4a3-8c7b-4d3e-af90-2b1c3d4e5f60';
  it.each([
    [
      'demo books',
      {
        PaymentId: PAYMENT,
        PaymentNumber: 'PMT-0009',
        Amount: 3000,
        Applications: [
          { InvoiceId: INV, InvoiceNumber: 'INV-0042', Amount: 2000 },
          { InvoiceId: OTHER, InvoiceNumber: 'INV-0043', Amount: 1000 },
        ],
      },
      'INV-0042 (₹2,000.00); INV-0043 (₹1,000.00)',
    ],
    [
      'QuickBooks',
      {
        Id: PAYMENT,
        TotalAmt: 500,
        Line: [{ Amount: 500, LinkedTxn: [{ TxnId: '130', TxnType: 'Invoice' }] }],
      },
      'a document (₹500.00)',
    ],
    ['unapplied', { PaymentId: PAYMENT, Amount: 500, Applications: [] }, 'nothing'],
    ['listing nothing', { PaymentId: PAYMENT, Amount: 500 }, 'the books do not say'],
  ])('%s', async (_name, record, applied) => {
    const agent = fakeAgent({
      tools: [
        toolDef('get_payment', { PaymentId: '' }, { required: ['PaymentId'] }),
        toolDef('delete_payment', { PaymentId: '' }, { write: true, required: ['PaymentId'] }),
      ],
      books: () => record,
    });
    expect(label(await impactOf(agent.run, 'delete_payment', { PaymentId: PAYMENT }))).toEqual({
      'Applied to': applied,
    });
  });
});

describe('where the books cannot tell', () => {
  it('a record no read tool finds', async () => {
    const agent = fakeAgent({
      tools: [toolDef('void_receipt', { receipt_id: '' }, { write: true, required: ['receipt_id'] })],
    });
    expect(label(await impactOf(agent.run, 'void_receipt', { receipt_id: INV }))).toEqual({
      Affects: 'the books do not say: the record could not be read',
    });
  });

  it('a record that gives no figures: each is said to be unknown, none made up', async () => {
    const agent = fakeAgent({
      tools: [
        toolDef('get_voucher', { voucher_id: '' }, { required: ['voucher_id'] }),
        toolDef('void_voucher', { voucher_id: '' }, { write: true, required: ['voucher_id'] }),
      ],
      books: () => ({ voucher_id: INV, voucher_number: 'V-77', party_name: 'Acme Corp', total: 900 }),
    });
    expect(label(await impactOf(agent.run, 'void_voucher', { voucher_id: INV }))).toEqual({
      'Payments applied': 'the books do not say',
      'Balance due': 'the books do not say',
      'Tax that reverses': 'the books do not say',
    });
  });
});
