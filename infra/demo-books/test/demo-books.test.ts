import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDemoBooks, type DemoBooks, type Listening, seedBooks } from '../src/index.ts';

const AS_OF = new Date('2026-03-31T00:00:00Z');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Rec = Record<string, unknown>;
interface InvoiceRow {
  InvoiceId: string;
  InvoiceNumber: string;
  ContactName: string;
  Date: string;
  Status: string;
  PaymentStatus: string;
  IsOverdue: boolean;
  AmountDue: number;
}

async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'demo-books-test', version: '1.0.0' });
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  return client;
}

const sum = (xs: number[]): number => Math.round(xs.reduce((a, b) => a + b, 0) * 100) / 100;

describe('demo books MCP server', () => {
  let demo: DemoBooks;
  let server: Listening;
  let client: Client;
  const call = async <T = Rec>(name: string, args: Rec = {}): Promise<T> => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const first = result.content[0];
    expect(first?.type).toBe('text');
    expect(JSON.parse(first?.type === 'text' ? first.text : 'null')).toEqual(result.structuredContent);
    return result.structuredContent as T;
  };
  const allInvoices = async (): Promise<InvoiceRow[]> =>
    (await call<{ Invoices: InvoiceRow[] }>('get_all_invoices', { PageSize: 200 })).Invoices;

  beforeAll(async () => {
    demo = createDemoBooks({ asOf: AS_OF });
    server = await demo.listen(0);
    client = await connect(`${server.url}?entityid=entity-1&orgid=org-1`);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });
  beforeEach(() => {
    demo.setFaults({});
  });

  it('serves health and an /mcp url', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const res = await fetch(new URL('/healthz', server.url));
    expect(res.status).toBe(200);
  });

  it('lists every tool with an honest object schema and annotations', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const required: Record<string, string[]> = {
      get_all_invoices: [],
      get_invoice: [],
      create_invoice: ['ContactId', 'Lines'],
      update_invoice: ['InvoiceId'],
      void_invoice: ['InvoiceId'],
      send_invoice: ['InvoiceId', 'email'],
      get_all_payments: [],
      create_payment: ['AccountId', 'Amount', 'Applications'],
      update_payment: ['PaymentId'],
      get_bills: [],
      create_bill: ['ContactId', 'Lines'],
      update_bill: ['BillId'],
      approve_bill: ['BillId'],
      get_all_customers: [],
      create_customer: ['Name'],
      get_all_vendors: [],
      delete_contact: ['ContactId'],
      create_credit_note: ['ContactId', 'Lines'],
      create_journal_entry: ['Lines'],
      get_charts_of_accounts: [],
      get_profit_loss: [],
      get_balance_sheet: [],
      get_aged_receivables_report: [],
      get_aged_payables_report: [],
      get_cash_flow_statement: [],
      get_gst_summary: [],
    };
    for (const [name, fields] of Object.entries(required)) {
      const tool = byName.get(name);
      expect(tool, name).toBeDefined();
      expect(tool?.inputSchema.type).toBe('object');
      expect(tool?.inputSchema.additionalProperties).toBe(false);
      expect(tool?.inputSchema.required ?? []).toEqual(fields);
      const isRead = name.startsWith('get_');
      expect(tool?.annotations?.readOnlyHint, name).toBe(isRead);
      if (/^(void|delete)_/.test(name)) expect(tool?.annotations?.destructiveHint, name).toBe(true);
    }
    const props = (name: string) => (byName.get(name)?.inputSchema.properties ?? {}) as Record<string, Rec>;
    expect(props('create_payment').Applications).toMatchObject({
      type: 'array',
      minItems: 1,
      items: { type: 'object', required: ['InvoiceId', 'Amount'], additionalProperties: false },
    });
    expect(props('create_payment').Date).toMatchObject({ type: 'string', format: 'date' });
    expect(props('create_invoice').Lines).toMatchObject({
      items: { required: ['Description', 'Quantity', 'UnitPrice', 'TaxRate'] },
    });
    const journalLines = props('create_journal_entry').Lines;
    expect(journalLines).toMatchObject({ minItems: 2 });
  });

  it('has twelve months of invoices, including Acme Corp, paid, partly paid and overdue', async () => {
    const invoices = await allInvoices();
    expect(new Set(invoices.map((i) => i.Date.slice(0, 7))).size).toBe(12);
    expect(invoices.every((i) => i.Date >= '2025-04-01' && i.Date <= '2026-03-31')).toBe(true);
    expect(invoices.every((i) => UUID.test(i.InvoiceId) && /^INV-\d{4}$/.test(i.InvoiceNumber))).toBe(true);
    expect(invoices.some((i) => i.ContactName === 'Acme Corp' && i.AmountDue > 5000)).toBe(true);
    expect(invoices.some((i) => i.Status === 'PAID')).toBe(true);
    expect(invoices.some((i) => i.PaymentStatus === 'PARTIALLY_PAID')).toBe(true);
    expect(invoices.some((i) => i.IsOverdue)).toBe(true);
    const overdue = await call<{ Invoices: InvoiceRow[] }>('get_all_invoices', {
      Status: 'OVERDUE',
      PageSize: 200,
    });
    expect(overdue.Invoices.length).toBe(invoices.filter((i) => i.IsOverdue).length);

    const bills = await call<{ Bills: { BillNumber: string; IsOverdue: boolean; Status: string }[] }>(
      'get_bills',
      {
        PageSize: 200,
      },
    );
    expect(bills.Bills.every((b) => /^BILL-\d{4}$/.test(b.BillNumber))).toBe(true);
    expect(bills.Bills.some((b) => b.IsOverdue)).toBe(true);
    expect(bills.Bills.some((b) => b.Status === 'SUBMITTED')).toBe(true);

    const customers = await call<{ Customers: { Name: string }[] }>('get_all_customers');
    expect(customers.Customers.map((c) => c.Name)).toContain('Acme Corp');
  });

  it('is deterministic for a given asOf', () => {
    const strip = (b: ReturnType<typeof seedBooks>) => JSON.stringify({ ...b, newId: undefined });
    expect(strip(seedBooks({ asOf: AS_OF }))).toBe(strip(seedBooks({ asOf: AS_OF })));
  });

  it('accepts a create_payment with {} (no validation) and records the call', async () => {
    demo.resetCalls();
    const before = demo.store.payments.length;
    const payment = await call<{ PaymentId: string; Amount: number; Applications: unknown[] }>(
      'create_payment',
      {},
    );
    expect(payment.PaymentId).toMatch(UUID);
    expect(payment.Amount).toBe(0);
    expect(payment.Applications).toEqual([]);
    expect(demo.store.payments.length).toBe(before + 1);

    expect(demo.calls()).toEqual([
      { tool: 'create_payment', args: {}, entityId: 'entity-1', orgId: 'org-1', at: expect.any(String) },
    ]);
    const overHttp = (await (await fetch(new URL('/_calls', server.url))).json()) as Rec[];
    expect(overHttp).toEqual([
      expect.objectContaining({ tool: 'create_payment', args: {}, entityId: 'entity-1' }),
    ]);
    expect((await fetch(new URL('/_calls', server.url), { method: 'DELETE' })).status).toBe(200);
    expect(demo.calls()).toEqual([]);
  });

  it('answers an unknown tool with an error result', async () => {
    const result = (await client.callTool({ name: 'no_such_tool', arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(demo.calls().at(-1)?.tool).toBe('no_such_tool');
  });

  it('computes reports that agree with each other and with the documents', async () => {
    const invoices = await allInvoices();
    const openTotal = sum(invoices.filter((i) => i.Status === 'AUTHORISED').map((i) => i.AmountDue));
    const aged = await call<{ Totals: { Total: number }; Invoices: unknown[] }>(
      'get_aged_receivables_report',
    );
    expect(aged.Totals.Total).toBe(openTotal);
    expect(aged.Invoices.length).toBe(invoices.filter((i) => i.Status === 'AUTHORISED').length);

    type Row = { Code: string | null; Amount: number };
    const bs = await call<{ Assets: Row[]; Balanced: boolean; Difference: number }>('get_balance_sheet');
    expect(bs.Balanced).toBe(true);
    expect(bs.Assets.find((a) => a.Code === '1100')?.Amount).toBe(openTotal);

    const pl = await call<Rec & { NetProfit: number; TotalIncome: number }>('get_profit_loss');
    expect(pl.NetProfit).toBe(
      sum([pl.TotalIncome, -(pl.TotalCostOfSales as number), -(pl.TotalOperatingExpenses as number)]),
    );
    expect(pl.TotalIncome).toBeGreaterThan(0);

    const cf = await call<{ ClosingCashBalance: number; CashAccounts: { Balance: number }[] }>(
      'get_cash_flow_statement',
    );
    expect(cf.ClosingCashBalance).toBe(sum(cf.CashAccounts.map((a) => a.Balance)));

    const tb = await call<{ Balanced: boolean }>('get_trial_balance');
    expect(tb.Balanced).toBe(true);

    const gst = await call<{ OutputTax: { TotalTax: number }; NetGSTPayable: number }>('get_gst_summary');
    expect(gst.OutputTax.TotalTax).toBeGreaterThan(0);

    const ap = await call<{ Totals: { Total: number } }>('get_aged_payables_report');
    const bills = await call<{ Bills: { Status: string; AmountDue: number }[] }>('get_bills', {
      PageSize: 200,
    });
    expect(ap.Totals.Total).toBe(
      sum(bills.Bills.filter((b) => b.Status === 'AUTHORISED').map((b) => b.AmountDue)),
    );
  });

  it('applies a real payment to an Acme Corp invoice and the reports follow', async () => {
    const acme = (await allInvoices()).find((i) => i.ContactName === 'Acme Corp' && i.AmountDue > 5000);
    if (!acme) throw new Error('no open Acme Corp invoice');
    const bank = (
      await call<{ Accounts: { AccountId: string; SubType: string }[] }>('get_charts_of_accounts')
    ).Accounts.find((a) => a.SubType === 'BANK');
    const agedBefore = await call<{ Totals: { Total: number } }>('get_aged_receivables_report');
    const payment = await call<Rec>('create_payment', {
      AccountId: bank?.AccountId,
      Amount: 5000,
      Date: '2026-03-31',
      Applications: [{ InvoiceId: acme.InvoiceId, Amount: 5000 }],
      Reference: 'UTR-TEST',
    });
    expect(payment).toMatchObject({ Amount: 5000, ContactName: 'Acme Corp', UnappliedAmount: 0 });
    const after = await call<InvoiceRow>('get_invoice', { InvoiceNumber: acme.InvoiceNumber });
    expect(after.AmountDue).toBe(sum([acme.AmountDue, -5000]));
    const agedAfter = await call<{ Totals: { Total: number } }>('get_aged_receivables_report');
    expect(agedAfter.Totals.Total).toBe(sum([agedBefore.Totals.Total, -5000]));
    expect((await call<{ Balanced: boolean }>('get_balance_sheet')).Balanced).toBe(true);
  });

  it('loses the response of a dropped write after committing it, then answers again', async () => {
    const before = demo.store.payments.length;
    const res = await fetch(new URL('/_faults', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dropResponseFor: 'create_payment', dropTimes: 1 }),
    });
    expect(res.status).toBe(200);
    await expect(client.callTool({ name: 'create_payment', arguments: { Amount: 1 } })).rejects.toThrow();
    expect(demo.store.payments.length).toBe(before + 1);
    expect(demo.faults().dropResponseFor).toBeUndefined();
    const again = await call<{ Amount: number }>('create_payment', { Amount: 2 });
    expect(again.Amount).toBe(2);
    expect(demo.store.payments.length).toBe(before + 2);
  });

  it('delays a tool when asked', async () => {
    demo.setFaults({ delayMs: { get_gst_summary: 300 } });
    const started = Date.now();
    await call('get_gst_summary');
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });
});

describe('bearer auth', () => {
  let server: Listening;
  beforeAll(async () => {
    server = await createDemoBooks({ asOf: AS_OF, authToken: 's3cret' }).listen(0);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('rejects a request without the token', async () => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    await expect(connect(server.url)).rejects.toThrow();
    await expect(connect(server.url, 'wrong')).rejects.toThrow();
  });

  it('serves a client with the token', async () => {
    const client = await connect(server.url, 's3cret');
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(25);
    await client.close();
  });
});
