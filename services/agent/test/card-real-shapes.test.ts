// A confirmation names the record (number, party, amount, date) on any server.
// Record shapes as the public accounting APIs return them (Xero, QuickBooks Online, Stripe, Zoho
// Books, Odoo, FreshBooks, Sage Accounting, Tally), wrapped in each API's own list envelope: the
// turn lists the invoices, then a write points at one by the API's own id field, and the card names
// the record from what the turn read, without reading again.
import { describe, expect, it } from 'vitest';
import { confirmationCard } from '../src/confirmation/card.ts';
import { readFacts } from '../src/confirmation/fields.ts';
import { lookUp } from '../src/confirmation/lookup.ts';
import { formatsFor } from '../src/render/locale.ts';
import { fakeAgent, toolDef } from './fake-agent.ts';

const fmt = formatsFor();

interface Shape {
  api: string;
  /** The list tool's name and what it returned (the API's envelope around one invoice). */
  list: string;
  listed: unknown;
  invoice: Record<string, unknown>;
  /** The write's arguments pointing at the invoice, as the API's own tools take them. */
  voidArgs: Record<string, unknown>;
  /** A payment applied to the invoice, as the API takes it, and its amount. */
  payArgs: Record<string, unknown>;
  paid: number;
  /** A server whose amounts are in cents: its list tool's description and the write's fields that say so. */
  cents?: { list: string; fields: string[] };
  expected: { number: string; party: string; amount: number; currency?: string; date: string };
}

const xero = {
  Type: 'ACCREC',
  InvoiceID: '243216c5-369e-4056-ac67-05388f86dc81',
  InvoiceNumber: 'OIT00546',
  Reference: 'Ref: 1234',
  Contact: { ContactID: '025867f1-d741-4d6b-b1af-9ac774b59ba7', Name: 'City Agency' },
  Date: '/Date(1518652800000+0000)/',
  DateString: '2018-02-15T00:00:00',
  DueDate: '/Date(1519257600000+0000)/',
  Status: 'AUTHORISED',
  SubTotal: 40,
  TotalTax: 4,
  Total: 44,
  AmountDue: 44,
  AmountPaid: 0,
  CurrencyCode: 'NZD',
  UpdatedDateUTC: '/Date(1518685950940+0000)/',
  LineItems: [{ Description: 'Consulting', Quantity: 4, UnitAmount: 10, AccountCode: '200', LineAmount: 40 }],
};

const quickbooks = {
  Id: '130',
  SyncToken: '0',
  DocNumber: '1037',
  TxnDate: '2014-09-19',
  DueDate: '2014-10-19',
  CustomerRef: { value: '24', name: 'Sonnenschein Family Store' },
  CurrencyRef: { value: 'USD', name: 'United States Dollar' },
  BillEmail: { Address: 'Familiystore@intuit.com' },
  TxnTaxDetail: { TotalTax: 0 },
  TotalAmt: 362.07,
  Balance: 362.07,
  Line: [{ Id: '1', LineNum: 1, Amount: 362.07, DetailType: 'SalesItemLineDetail' }],
  MetaData: { CreateTime: '2014-09-19T13:16:17-07:00', LastUpdatedTime: '2014-09-19T13:16:17-07:00' },
};

const stripe = {
  id: 'in_1MtHbELkdIwHu7ixl4OzzPMv',
  object: 'invoice',
  account_country: 'US',
  amount_due: 2000,
  amount_paid: 0,
  amount_remaining: 2000,
  created: 1680644467,
  currency: 'usd',
  customer: 'cus_NeZwdNtLEOXuvB',
  customer_email: 'jennyrosen@example.com',
  customer_name: 'Jenny Rosen',
  due_date: null,
  number: 'F2E3B4C-0001',
  status: 'open',
  subtotal: 2000,
  total: 2000,
};

const zoho = {
  invoice_id: '982000000567114',
  invoice_number: 'INV-00003',
  date: '2013-11-17',
  due_date: '2013-12-03',
  customer_id: '982000000567001',
  customer_name: 'Bowman & Co',
  reference_number: '4321133',
  status: 'draft',
  currency_code: 'USD',
  total: 40.6,
  balance: 40.6,
  created_time: '2013-11-18T02:17:40-0800',
};

const odoo = {
  id: 42,
  name: 'INV/2024/00042',
  move_type: 'out_invoice',
  partner_id: [7, 'Azure Interior'],
  journal_id: [1, 'Customer Invoices'],
  invoice_date: '2024-03-01',
  invoice_date_due: '2024-03-31',
  amount_untaxed: 1000,
  amount_tax: 150,
  amount_total: 1150,
  amount_residual: 1150,
  currency_id: [2, 'EUR'],
  state: 'posted',
  create_date: '2024-03-02 10:11:12',
  write_date: '2024-03-05 09:00:00',
};

const freshbooks = {
  invoiceid: 1234,
  invoice_number: '0000021',
  customerid: 5678,
  organization: 'Acme Inc',
  fname: 'Jane',
  lname: 'Doe',
  create_date: '2020-07-08',
  due_date: '2020-08-07',
  amount: { amount: '1250.00', code: 'CAD' },
  outstanding: { amount: '1250.00', code: 'CAD' },
  po_number: 'PO-77',
  v3_status: 'sent',
};

const sage = {
  id: 'b1f1c3e45a6d4f7e8a9b0c1d2e3f4a5b',
  displayed_as: 'SI-1',
  invoice_number: 'SI-1',
  contact: { id: '3a4b5c6d7e8f40a1b2c3d4e5f6a7b8c9', displayed_as: 'Acme Corporation (ACME001)' },
  contact_name: 'Acme Corporation',
  date: '2026-05-02',
  due_date: '2026-06-01',
  net_amount: 6500,
  tax_amount: 1300,
  total_amount: 7800,
  outstanding_amount: 7800,
  base_currency_total_amount: 7800,
  currency: { id: 'GBP', displayed_as: 'Pound Sterling (GBP)' },
  reference: 'PO-123',
};

const tally = {
  VOUCHERNUMBER: 'SI/42',
  VOUCHERTYPENAME: 'Sales',
  DATE: '20260115',
  PARTYLEDGERNAME: 'Sharma Traders',
  AMOUNT: 11800,
  NARRATION: 'Being goods sold',
};

const SHAPES: Shape[] = [
  {
    api: 'Xero',
    list: 'get_invoices',
    listed: { Invoices: [xero] },
    invoice: xero,
    voidArgs: { InvoiceID: xero.InvoiceID },
    payArgs: {
      Invoice: { InvoiceID: xero.InvoiceID },
      Account: { Code: '090' },
      Amount: 20,
      Date: '2018-03-01',
    },
    paid: 20,
    expected: { number: 'OIT00546', party: 'City Agency', amount: 44, currency: 'NZD', date: '2018-02-15' },
  },
  {
    api: 'QuickBooks Online',
    list: 'query_invoices',
    listed: { QueryResponse: { Invoice: [quickbooks], startPosition: 1, maxResults: 1 } },
    invoice: quickbooks,
    voidArgs: { Id: '130', SyncToken: '0' },
    payArgs: {
      CustomerRef: { value: '24' },
      TotalAmt: 100,
      Line: [{ Amount: 100, LinkedTxn: [{ TxnId: '130', TxnType: 'Invoice' }] }],
    },
    paid: 100,
    expected: {
      number: '1037',
      party: 'Sonnenschein Family Store',
      amount: 362.07,
      currency: 'USD',
      date: '2014-09-19',
    },
  },
  {
    api: 'Stripe',
    list: 'list_invoices',
    listed: { object: 'list', data: [stripe], has_more: false },
    invoice: stripe,
    voidArgs: { invoice: stripe.id },
    payArgs: { invoice: stripe.id, amount: 500 },
    paid: 5,
    // Stripe states amounts in the currency's smallest unit, and its tools say so: the card shows dollars.
    cents: { list: 'Lists invoices. Amounts are in cents.', fields: ['amount'] },
    expected: {
      number: 'F2E3B4C-0001',
      party: 'Jenny Rosen',
      amount: 2000,
      currency: 'USD',
      date: new Date(1680644467000).toISOString(),
    },
  },
  {
    api: 'Zoho Books',
    list: 'list_invoices',
    listed: { code: 0, message: 'success', invoices: [zoho] },
    invoice: zoho,
    voidArgs: { invoice_id: zoho.invoice_id },
    payArgs: {
      customer_id: zoho.customer_id,
      amount: 20,
      date: '2013-12-01',
      invoices: [{ invoice_id: zoho.invoice_id, amount_applied: 20 }],
    },
    paid: 20,
    expected: {
      number: 'INV-00003',
      party: 'Bowman & Co',
      amount: 40.6,
      currency: 'USD',
      date: '2013-11-17',
    },
  },
  {
    api: 'Odoo',
    list: 'search_read_invoices',
    listed: [odoo],
    invoice: odoo,
    voidArgs: { id: 42 },
    payArgs: { invoice_id: 42, amount: 150, payment_date: '2024-03-10' },
    paid: 150,
    expected: {
      number: 'INV/2024/00042',
      party: 'Azure Interior',
      amount: 1150,
      currency: 'EUR',
      date: '2024-03-01',
    },
  },
  {
    api: 'FreshBooks',
    list: 'list_invoices',
    listed: { response: { result: { invoices: [freshbooks], page: 1, pages: 1 } } },
    invoice: freshbooks,
    voidArgs: { invoiceid: 1234 },
    payArgs: { invoiceid: 1234, amount: { amount: '50.00', code: 'CAD' }, date: '2020-07-20', type: 'Check' },
    paid: 50,
    expected: { number: '0000021', party: 'Acme Inc', amount: 1250, currency: 'CAD', date: '2020-07-08' },
  },
  {
    api: 'Sage Accounting',
    list: 'list_sales_invoices',
    listed: { $items: [sage], $total: 1 },
    invoice: sage,
    voidArgs: { id: sage.id },
    payArgs: {
      contact_id: sage.contact.id,
      total_amount: 100,
      date: '2026-05-20',
      allocated_artefacts: [{ artefact_id: sage.id, amount: 100 }],
    },
    paid: 100,
    expected: {
      number: 'SI-1',
      party: 'Acme Corporation',
      amount: 7800,
      currency: 'GBP',
      date: '2026-05-02',
    },
  },
  {
    api: 'Tally',
    list: 'list_vouchers',
    listed: { ENVELOPE: { VOUCHER: [tally] } },
    invoice: tally,
    voidArgs: { voucher_number: 'SI/42' },
    payArgs: { voucher_number: 'SI/42', amount: 1000, date: '2026-01-20' },
    paid: 1000,
    expected: { number: 'SI/42', party: 'Sharma Traders', amount: 11800, date: '2026-01-15' },
  },
];

describe.each(SHAPES)('a $api invoice', (shape) => {
  it('is read for its number, party, amount, currency and date', () => {
    const facts = readFacts(shape.invoice, 'invoice');
    const { number, party, amount, currency, date } = shape.expected;
    expect({ number: facts.number, party: facts.party, amount: facts.amount }).toEqual({
      number,
      party,
      amount,
    });
    expect(facts.currency).toBe(currency);
    expect(fmt.date(facts.date)).toBe(fmt.date(date));
  });

  const tools = [
    { ...toolDef(shape.list), ...(shape.cents ? { description: shape.cents.list } : {}) },
    toolDef('void_invoice', shape.voidArgs, { write: true }),
    toolDef('create_payment', shape.payArgs, { write: true }),
  ];
  const money = fmt.money(shape.expected.amount / (shape.cents ? 100 : 1), shape.expected.currency);
  const dated = fmt.date(shape.expected.date) as string;

  /** An agent whose turn has listed the invoices; any other read fails loudly. */
  function afterListing() {
    const agent = fakeAgent({
      tools,
      books: (tool) => {
        throw new Error(`${tool} was not expected to be called`);
      },
    });
    agent.run.toolResults.push({ tool: shape.list, input: {}, result: shape.listed, success: true });
    return agent;
  }

  it('names the invoice voided from what the turn listed, without reading again', async () => {
    const agent = afterListing();
    const card = confirmationCard('void_invoice', shape.voidArgs, 3, {
      lookups: await lookUp(agent.run, 'void_invoice', shape.voidArgs),
    });
    expect(agent.requests).toEqual([]);
    const { number, party } = shape.expected;
    expect(card.question).toBe(
      `This will void the invoice ${number} of ${party} (${money}, dated ${dated}). It cannot be undone. Type VOID to confirm.`,
    );
    expect(card.details).toEqual(
      expect.arrayContaining([
        { label: 'Amount', value: money },
        { label: 'Date', value: dated },
      ]),
    );
  });

  it('names the invoice a payment applies to, with its party', async () => {
    const agent = afterListing();
    const card = confirmationCard('create_payment', shape.payArgs, 1, {
      lookups: await lookUp(agent.run, 'create_payment', shape.payArgs),
      ...(shape.cents ? { minorUnits: new Set(shape.cents.fields) } : {}),
    });
    expect(card.question).toContain(shape.expected.number);
    expect(card.question).toContain(shape.expected.party);
    // The payment is in the invoice's currency when the call does not say otherwise.
    expect(card.question).toContain(`payment of ${fmt.money(shape.paid, shape.expected.currency)}`);
    expect(card.question).not.toMatch(/not looked up|could not|not checked/);
  });
});
