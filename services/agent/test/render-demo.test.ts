// The renderers on the demo books' own results, called for real over MCP. Every
// expected figure is worked out here from the books' records — the chart of accounts, the invoice,
// bill and credit-note lists — not from the report the renderer is given, nor copied from its output.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEFAULT_BUSINESS_CONTEXT } from '@munim/db';
import { createDemoBooks } from '@munim/demo-books';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planEnrichments } from '../src/render/enrichments.ts';
import { renderResults } from '../src/render/format.ts';
import { formatsFor } from '../src/render/locale.ts';

type Rec = Record<string, unknown>;
interface Account {
  Code: string;
  Name: string;
  Type: string;
  SubType: string;
  Balance: number;
}
interface Doc {
  InvoiceNumber?: string;
  BillNumber?: string;
  CreditNoteNumber?: string;
  ContactName: string;
  Status: string;
  PaymentStatus?: string;
  IsOverdue?: boolean;
  DaysOverdue?: number;
  AmountDue?: number;
  AmountPaid?: number;
  Total: number;
  TotalTax: number;
  Lines: {
    Description: string;
    Quantity: number;
    UnitPrice: number;
    LineAmount: number;
    TaxAmount: number;
  }[];
}

/** Money as en-IN writes it, by Intl here: the test's own, not the renderer's. */
const inr = (n: number) =>
  new Intl.NumberFormat('en-IN', {
    style: 'currency',
    currency: 'INR',
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(n);
const round = (n: number) => Math.round(n * 100) / 100;
const sum = (xs: number[]) => round(xs.reduce((a, b) => a + b, 0));
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b/;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const CODES = /\b(AUTHORISED|PARTIALLY_PAID|UNPAID|SUBMITTED|RECEIVE|SPEND|ASSET|LIABILITY|COST_OF_SALES)\b/;

let server: { url: string; close(): Promise<void> };
let client: Client;
let accounts: Account[];
let invoices: Doc[];
let bills: Doc[];
let creditNotes: Doc[];

async function call(tool: string, args: Rec = {}): Promise<Rec> {
  const r = await client.callTool({ name: tool, arguments: args });
  return r.structuredContent as Rec;
}

/** The fast path's rendering of one tool's result, for a question. */
async function render(tool: string, args: Rec, query: string, intent?: string) {
  const result = await call(tool, args);
  const fetched = [{ tool, args, result }];
  return { text: renderResults(fetched, { query, intent }), result, plan: planEnrichments(fetched) };
}

const balance = (keep: (a: Account) => boolean) => sum(accounts.filter(keep).map((a) => a.Balance));

beforeAll(async () => {
  const books = createDemoBooks();
  server = await books.listen(0, '127.0.0.1');
  client = new Client({ name: 'render-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  accounts = (await call('get_charts_of_accounts')).Accounts as Account[];
  invoices = (await call('get_all_invoices', { PageSize: 200 })).Invoices as Doc[];
  bills = (await call('get_bills', { PageSize: 200 })).Bills as Doc[];
  creditNotes = (await call('get_all_sales_credit_notes', { PageSize: 200 })).CreditNotes as Doc[];
});

afterAll(async () => {
  await client?.close();
  await server?.close();
});

describe('reports of the demo books, as a finance reader expects them', () => {
  it('profit and loss: income, cost of sales, gross profit, expenses and net profit, from the ledger', async () => {
    const { text } = await render('get_profit_loss', {}, 'profit and loss', 'profit_and_loss');
    const income = balance((a) => a.Type === 'REVENUE');
    const cogs = balance((a) => a.SubType === 'COST_OF_SALES');
    const opex = balance((a) => a.Type === 'EXPENSE' && a.SubType !== 'COST_OF_SALES');
    expect(text).toMatch(/^### Profit and loss\n/);
    expect(text).toContain(`| **Total income** | **${inr(income)}** |`);
    expect(text).toContain(`| **Total cost of sales** | **${inr(cogs)}** |`);
    expect(text).toContain(`| **Gross profit** | **${inr(income - cogs)}** |`);
    expect(text).toContain(`| **Total operating expenses** | **${inr(opex)}** |`);
    expect(text).toContain(`| **Net profit** | **${inr(round(income - cogs - opex))}** |`);
    for (const a of accounts.filter((x) => ['REVENUE', 'EXPENSE'].includes(x.Type) && x.Balance !== 0))
      expect(text).toContain(`| ${a.Name} | ${inr(a.Balance)} |`);
    // In the order of the statement.
    const at = (s: string) => text.indexOf(s);
    expect(at('**Income**')).toBeLessThan(at('**Cost of sales**'));
    expect(at('**Cost of sales**')).toBeLessThan(at('**Gross profit**'));
    expect(at('**Gross profit**')).toBeLessThan(at('**Operating expenses**'));
    expect(at('**Operating expenses**')).toBeLessThan(at('**Net profit**'));
    expect(text).toContain(`net margin ${(((income - cogs - opex) / income) * 100).toFixed(1)}%`);
    expect(text).not.toMatch(/Fetch the|record\(s\)/);
  });

  it('balance sheet: assets, liabilities, equity with this year’s earnings, totals and the check', async () => {
    const { text } = await render('get_balance_sheet', {}, 'balance sheet', 'balance_sheet');
    const assets = balance((a) => a.Type === 'ASSET');
    const liabilities = balance((a) => a.Type === 'LIABILITY');
    const earnings = round(balance((a) => a.Type === 'REVENUE') - balance((a) => a.Type === 'EXPENSE'));
    const equity = round(balance((a) => a.Type === 'EQUITY') + earnings);
    expect(text).toContain(`| **Total assets** | **${inr(assets)}** |`);
    expect(text).toContain(`| **Total liabilities** | **${inr(liabilities)}** |`);
    expect(text).toContain(`| **Total equity** | **${inr(equity)}** |`);
    expect(text).toContain(`| **Total liabilities and equity** | **${inr(round(liabilities + equity))}** |`);
    expect(text).toContain(`| Current Year Earnings | ${inr(earnings)} |`);
    expect(round(liabilities + equity)).toBe(assets);
    expect(text).toContain(`✓ Balanced: total assets equal total liabilities and equity (${inr(assets)}).`);
  });

  it('trial balance: a debit and a credit column, their totals, and that they agree', async () => {
    const { text } = await render('get_trial_balance', {}, 'trial balance');
    const debit = balance((a) => a.Type === 'ASSET' || a.Type === 'EXPENSE');
    const credit = balance((a) => ['LIABILITY', 'EQUITY', 'REVENUE'].includes(a.Type));
    expect(text).toContain('| Code | Account | Type | Debit | Credit |');
    for (const a of accounts.filter((x) => x.Balance !== 0)) {
      const debitSide = a.Type === 'ASSET' || a.Type === 'EXPENSE';
      expect(text).toContain(
        `| ${a.Code} | ${a.Name} | ${a.Type[0]}${a.Type.slice(1).toLowerCase()} | ${debitSide ? inr(a.Balance) : ''} | ${debitSide ? '' : inr(a.Balance)} |`,
      );
    }
    expect(text).toContain(`**Total** |  | **${inr(debit)}** | **${inr(credit)}** |`);
    expect(text).toContain(`✓ Debits equal credits (${inr(debit)}).`);
  });

  it('cash flow: opening balance, activities, net change and the closing balance of the bank and cash accounts', async () => {
    const { text, result } = await render('get_cash_flow_statement', {}, 'cash flow');
    const closing = balance((a) => a.SubType === 'BANK' || a.SubType === 'CASH');
    expect(text).toContain(`| **Closing cash balance** | **${inr(closing)}** |`);
    const items = (result.OperatingActivities as { Items: { Description: string; Amount: number }[] }).Items;
    expect(text).toContain(
      `| **Net cash from operating activities** | **${inr(sum(items.map((i) => i.Amount)))}** |`,
    );
    expect(text).toContain('| **Net cash from investing activities** |');
    expect(text).toContain('✓ Opening balance plus the net change equals the closing balance.');
    for (const a of accounts.filter((x) => x.SubType === 'BANK' || x.SubType === 'CASH'))
      expect(text).toContain(`| ${a.Name} | ${inr(a.Balance)} |`);
  });

  it('GST: output tax on sales, input tax credit on purchases and the net payable, from the documents', async () => {
    const { text, plan } = await render('get_gst_summary', {}, 'gst summary');
    const live = (d: Doc) => !['DRAFT', 'VOIDED', 'SUBMITTED'].includes(d.Status);
    const output = round(
      sum(invoices.filter(live).map((i) => i.TotalTax)) -
        sum(creditNotes.filter(live).map((c) => c.TotalTax)),
    );
    const input = sum(bills.filter(live).map((b) => b.TotalTax));
    expect(text).toMatch(/\| Output tax \(on sales\) \|.*\|/);
    expect(text).toContain(`| ${inr(output)} |`);
    expect(text).toContain(`| ${inr(input)} |`);
    expect(text).toContain(`**Net GST payable: ${inr(round(output - input))}**`);
    expect(text).toContain('| Month | Output tax | Input tax credit | Net tax |');
    expect(text).not.toMatch(ISO_DATE);
    expect(plan.map((e) => e.type)).toEqual(['trend']);
  });
});

describe('what is overdue, from the invoices themselves', () => {
  it('lists only the overdue invoices, oldest first, with the aging buckets; nothing not yet due', async () => {
    const { text, plan } = await render(
      'get_aged_receivables_report',
      {},
      'show overdue invoices',
      'overdue_invoices',
    );
    const open = invoices.filter((i) => (i.AmountDue ?? 0) > 0 && !['DRAFT', 'VOIDED'].includes(i.Status));
    const overdue = open.filter((i) => i.IsOverdue);
    const notDue = open.filter((i) => !i.IsOverdue);
    expect(overdue.length).toBeGreaterThan(0);
    expect(notDue.length).toBeGreaterThan(0);
    expect(text).toMatch(/^### Overdue invoices\n/);
    expect(text).not.toMatch(/Fetch the aged receivables report/);
    for (const i of overdue) expect(text).toContain(`| ${i.InvoiceNumber} | ${i.ContactName} |`);
    for (const i of notDue) expect(text).not.toContain(i.InvoiceNumber as string);
    const numbers = [...text.matchAll(/\| (INV-\d+) \|/g)].map((m) => m[1]);
    const byAge = [...overdue]
      .sort((a, b) => (b.DaysOverdue ?? 0) - (a.DaysOverdue ?? 0))
      .map((i) => i.InvoiceNumber);
    expect(numbers).toEqual(byAge);
    const overdueTotal = sum(overdue.map((i) => i.AmountDue ?? 0));
    expect(text).toContain(`**${inr(overdueTotal)}**`);
    expect(text).toContain(
      `${notDue.length} invoices (${inr(sum(notDue.map((i) => i.AmountDue ?? 0)))}) are not yet due.`,
    );
    // The buckets: not yet due, and over 90 days.
    expect(text).toContain(
      '| Customer | Current | 1–30 days | 31–60 days | 61–90 days | Over 90 days | Total |',
    );
    const over90 = sum(overdue.filter((i) => (i.DaysOverdue ?? 0) > 90).map((i) => i.AmountDue ?? 0));
    expect(text).toContain(`| **Total** | **${inr(sum(notDue.map((i) => i.AmountDue ?? 0)))}** |`);
    expect(text).toContain(`**${inr(over90)}** | **${inr(sum(open.map((i) => i.AmountDue ?? 0)))}** |`);
    const alert = plan.find((e) => e.type === 'alert')?.lines[0];
    expect(alert).toMatch(new RegExp(`^⚠️ ${overdue.length} invoices overdue`));
    expect(plan.find((e) => e.type === 'trend')).toBeUndefined();
  });
});

describe('lists and documents', () => {
  it('a page of invoices says how many there are in all and how to see more; statuses and dates in words', async () => {
    const { text, plan } = await render('get_all_invoices', { Page: 1, PageSize: 50 }, 'show all invoices');
    const pages = Math.ceil(invoices.length / 50);
    expect(invoices.length).toBeGreaterThan(50);
    expect(text).toContain(
      `Showing 50 of ${invoices.length} invoices (page 1 of ${pages}). Say "show more" for the next page.`,
    );
    expect(text).toContain('| Invoice # | Customer | Date | Due date | Status |');
    expect(text).not.toMatch(CODES);
    expect(text).not.toMatch(ISO_DATE);
    expect(text).not.toMatch(UUID);
    // No total row: a page's total is not the total of the invoices.
    expect(text).not.toContain('**Total**');
    // A part-paid invoice's status in words, overdue or not (which depends on the day the books are made).
    const partly = invoices.slice(0, 50).find((i) => i.PaymentStatus === 'PARTIALLY_PAID');
    expect(partly).toBeDefined();
    const status = partly?.IsOverdue ? 'Overdue (partly paid)' : 'Partly paid';
    expect(text).toContain(`| ${partly?.InvoiceNumber} | ${partly?.ContactName} |`);
    expect(text).toMatch(
      new RegExp(`\\| ${partly?.InvoiceNumber} \\|[^\\n]*\\| ${status.replace(/[()]/g, '\\$&')} \\|`),
    );
    const page = invoices.slice(0, 50);
    const total = plan.find((e) => e.type === 'currency')?.lines[0] ?? '';
    expect(total).toContain(`the 50 invoices on page 1 of ${pages} (${invoices.length} in all)`);
    expect(total).not.toMatch(/\ball\b \d+ invoices/);
    const overdueOnPage = page.filter((i) => i.IsOverdue).length;
    expect(plan.find((e) => e.type === 'alert')?.lines[0]).toMatch(
      new RegExp(`^⚠️ ${overdueOnPage} of the 50 invoices on page 1`),
    );
  });

  it('a whole list has a total row of like with like', async () => {
    const { text } = await render('get_all_customers', { Page: 1, PageSize: 50 }, 'show all customers');
    const customers = (await call('get_all_customers', { PageSize: 200 })).Customers as {
      OutstandingBalance: number;
    }[];
    expect(text).toContain(`${customers.length} customers.`);
    expect(text).toContain(`**${inr(sum(customers.map((c) => c.OutstandingBalance)))}**`);
  });

  it('payments received and paid are not added together', async () => {
    const { text, plan } = await render('get_all_payments', { Page: 1, PageSize: 200 }, 'show payments');
    expect(text).toMatch(/\| Received \|/);
    expect(text).toMatch(/\| Paid out \|/);
    expect(text).not.toContain('**Total**');
    const lines = plan.find((e) => e.type === 'currency')?.lines ?? [];
    expect(
      lines.some((l) => /payments received/.test(l)) && lines.some((l) => /payments paid out/.test(l)),
    ).toBe(true);
    expect(plan.find((e) => e.type === 'ranking')).toBeUndefined();
  });

  it('one invoice: its lines, tax and what is still due, computed from its lines', async () => {
    const partly = invoices.find((i) => i.PaymentStatus === 'PARTIALLY_PAID') as Doc;
    const { text } = await render(
      'get_invoice',
      { InvoiceNumber: partly.InvoiceNumber },
      `show ${partly.InvoiceNumber}`,
    );
    const subtotal = sum(partly.Lines.map((l) => l.LineAmount));
    const tax = sum(partly.Lines.map((l) => l.TaxAmount));
    expect(text).toMatch(new RegExp(`^### Invoice ${partly.InvoiceNumber} — ${partly.ContactName}`));
    for (const l of partly.Lines)
      expect(text).toContain(`| ${l.Description} | ${l.Quantity} | ${inr(l.UnitPrice)} |`);
    expect(text).toContain(`| Subtotal | ${inr(subtotal)} |`);
    expect(text).toContain(`| **Total** | **${inr(round(subtotal + tax))}** |`);
    expect(text).toContain(
      `| **Amount due** | **${inr(round(subtotal + tax - (partly.AmountPaid ?? 0)))}** |`,
    );
    expect(text).toMatch(/- Status: (Partly paid|Overdue \(partly paid\))/);
    expect(text).not.toMatch(UUID);
  });
});

describe('in the business’s locale', () => {
  it('writes the same report for a US-style business with its grouping and dates', async () => {
    const us = formatsFor({
      ...DEFAULT_BUSINESS_CONTEXT,
      locale: 'en-US',
      numberSystem: 'international',
      timezone: 'UTC',
    });
    const result = await call('get_balance_sheet');
    const text = renderResults([{ tool: 'get_balance_sheet', result }], { formats: us });
    const assets = balance((a) => a.Type === 'ASSET');
    // The books state INR: amounts stay in rupees, grouped the international way.
    const money = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'INR',
      minimumFractionDigits: 2,
    }).format(assets);
    expect(text).toContain(`| **Total assets** | **${money}** |`);
    const asOf = new Intl.DateTimeFormat('en-US', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    }).format(new Date(`${result.AsOfDate as string}T00:00:00Z`));
    expect(text).toContain(`as of ${asOf}`);
  });
});
