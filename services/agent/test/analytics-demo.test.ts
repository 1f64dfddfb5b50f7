// Each analytic measure on the demo books' own tool results for a fixed day. Every expected figure is
// worked out here from the books' raw records (invoice and bill lines, payments applied, credit
// notes, the chart of accounts), not from the report the analytic reads.
import type { AnalyticInput, AnalyticRequest } from '@munim/contracts';
import { type Books, createDemoBooks, runTool } from '@munim/demo-books';
import { describe, expect, it } from 'vitest';
import { answerAnalytic } from '../src/analytics/answer.ts';
import { formatsFor } from '../src/render/locale.ts';

const TODAY = '2026-11-20';
const books: Books = createDemoBooks({ asOf: new Date(`${TODAY}T00:00:00Z`) }).store;
const fmt = formatsFor();

const TOOL: Record<AnalyticInput['role'], string> = {
  profit_and_loss: 'get_profit_loss',
  balance_sheet: 'get_balance_sheet',
  aged_receivables: 'get_aged_receivables_report',
  aged_payables: 'get_aged_payables_report',
  cash_flow: 'get_cash_flow_statement',
  gst_summary: 'get_gst_summary',
  invoices: 'get_all_invoices',
  bills: 'get_bills',
  payments: 'get_all_payments',
  accounts: 'get_charts_of_accounts',
  // The demo books keep no budgets: the router plans no budget question for them.
  budgets: 'get_budgets',
};

/** The tool result of one planned input, as the demo books' server gives it. */
function fetch(input: AnalyticInput): unknown {
  const args: Record<string, unknown> = {};
  if (input.period) Object.assign(args, { FromDate: input.period.from, ToDate: input.period.to });
  if (input.asOf) args.AsOfDate = input.asOf;
  if (['invoices', 'bills', 'payments'].includes(input.role)) Object.assign(args, { Page: 1, PageSize: 200 });
  return runTool(books, TOOL[input.role], args).structuredContent;
}

const month = (m: string, label: string) => ({
  from: `${m}-01`,
  to: new Date(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)), 0)).toISOString().slice(0, 10),
  grain: 'month' as const,
  label,
});
const OCT = month('2026-10', 'October 2026');
const SEP = month('2026-09', 'September 2026');

function ask(
  request: Omit<AnalyticRequest, 'today'>,
  rewrite: (v: unknown) => unknown = (v) => v,
): { words: string; declined: boolean } {
  const full = { ...request, today: TODAY };
  return answerAnalytic(full, full.inputs.map(fetch).map(rewrite), fmt);
}

// ── the books' raw figures ─────────────────────────────────────────────────

const r2 = (n: number) => Math.round(n * 100) / 100;
const total = (lines: { LineAmount: number; TaxAmount: number }[]) =>
  r2(lines.reduce((s, l) => s + l.LineAmount + l.TaxAmount, 0));
const name = (id: string | null) => books.contacts.find((c) => c.ContactId === id)?.Name ?? '';
const appliedTo = (key: 'InvoiceId' | 'BillId', id: string) =>
  books.payments
    .filter((p) => p.Status === 'ACTIVE')
    .flatMap((p) => p.Applications.filter((a) => a[key] === id).map((a) => a.Amount))
    .reduce((s, a) => s + a, 0);
const credited = (id: string) =>
  books.creditNotes
    .filter((c) => c.Status === 'AUTHORISED' && c.InvoiceId === id)
    .reduce((s, c) => s + total(c.Lines), 0);
const openInvoices = books.invoices
  .filter((i) => i.Status === 'AUTHORISED')
  .map((i) => ({
    number: i.InvoiceNumber,
    party: name(i.ContactId),
    dueDate: i.DueDate,
    due: r2(total(i.Lines) - appliedTo('InvoiceId', i.InvoiceId) - credited(i.InvoiceId)),
  }))
  .filter((i) => i.due > 0.005);
const openBills = books.bills
  .filter((b) => b.Status === 'AUTHORISED')
  .map((b) => ({
    number: b.BillNumber,
    party: name(b.ContactId),
    dueDate: b.DueDate,
    due: r2(total(b.Lines) - appliedTo('BillId', b.BillId)),
  }))
  .filter((b) => b.due > 0.005);
const byParty = (docs: { party: string; due: number }[]) => {
  const m = new Map<string, number>();
  for (const d of docs) m.set(d.party, r2((m.get(d.party) ?? 0) + d.due));
  return [...m].sort((a, b) => b[1] - a[1]);
};
const inr = (n: number) =>
  new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', minimumFractionDigits: 2 }).format(n);
const sum = (xs: number[]) => r2(xs.reduce((a, b) => a + b, 0));

const AR: AnalyticInput[] = [{ role: 'aged_receivables', asOf: TODAY }];
const AP: AnalyticInput[] = [{ role: 'aged_payables', asOf: TODAY }];

// ── naming styles ──────────────────────────────────────────────────────────

const words = (k: string) =>
  k
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
const renameKeys = (v: unknown, key: (k: string) => string): unknown =>
  Array.isArray(v)
    ? v.map((x) => renameKeys(x, key))
    : v && typeof v === 'object'
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [key(k), renameKeys(x, key)]))
      : v;
const STYLES: [string, (v: unknown) => unknown][] = [
  ['snake_case', (v) => renameKeys(v, (k) => words(k).join('_'))],
  [
    'camelCase',
    (v) =>
      renameKeys(v, (k) =>
        words(k)
          .map((w, i) => (i ? w[0]?.toUpperCase() + w.slice(1) : w))
          .join(''),
      ),
  ],
  [
    'nested { data }',
    (v) => {
      const o = v as Record<string, unknown>;
      const list = Object.values(o).find(Array.isArray);
      // A list's records under `data`; a report inside `{ data: … }`.
      return list && 'Page' in o ? { data: list } : { data: v };
    },
  ],
];

describe('receivables and payables on the demo books', () => {
  it('who owes me the most: the customer with the largest open balance, by name', () => {
    const [top, second] = byParty(openInvoices) as [[string, number], [string, number]];
    const { words: text } = ask({ measure: 'receivables.top', inputs: AR });
    expect(text.startsWith(`**${top[0]} owes you the most: ${inr(top[1])}**`)).toBe(true);
    expect(text).toContain(second[0]);
    expect(text).toContain(inr(sum(openInvoices.map((i) => i.due))));
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
  });

  it('what customers owe in all, and the overdue part', () => {
    const all = sum(openInvoices.map((i) => i.due));
    const overdue = sum(openInvoices.filter((i) => i.dueDate < TODAY).map((i) => i.due));
    const { words: text } = ask({ measure: 'receivables.total', inputs: AR });
    expect(text.startsWith(`**Customers owe you ${inr(all)}**`)).toBe(true);
    expect(text).toContain(`${inr(overdue)} of it is overdue`);
    expect(text).toContain(`${openInvoices.length} open invoices`);
  });

  it('how much do I owe my vendors, from the aged payables', () => {
    const all = sum(openBills.map((b) => b.due));
    const { words: text } = ask({ measure: 'payables.total', inputs: AP });
    expect(text.startsWith(`**You owe vendors ${inr(all)}**`)).toBe(true);
  });

  it('the same answers from the invoice and bill lists as from the aging reports', () => {
    expect(ask({ measure: 'receivables.total', inputs: [{ role: 'invoices' }] }).words).toBe(
      ask({ measure: 'receivables.total', inputs: AR }).words,
    );
    expect(ask({ measure: 'payables.top', inputs: [{ role: 'bills' }] }).words).toBe(
      ask({ measure: 'payables.top', inputs: AP }).words,
    );
  });

  it('show overdue invoices for Acme Corp: only Acme’s, with numbers and days', () => {
    const acme = openInvoices.filter((i) => i.party === 'Acme Corp' && i.dueDate < TODAY);
    expect(acme.length).toBeGreaterThan(0);
    const { words: text, declined } = ask({
      measure: 'receivables.overdue',
      party: 'acme corp.',
      inputs: AR,
    });
    expect(declined).toBe(false);
    expect(text.startsWith(`**${inr(sum(acme.map((i) => i.due)))} is overdue from Acme Corp**`)).toBe(true);
    for (const i of acme) expect(text).toContain(i.number);
    for (const other of openInvoices.filter((i) => i.party !== 'Acme Corp')) {
      expect(text).not.toContain(other.party);
      expect(text).not.toContain(`| ${other.number} |`);
    }
  });

  it('a party in another spelling (Private Limited, case) is found', () => {
    const reddy = sum(openInvoices.filter((i) => i.party === 'Reddy Builders Pvt Ltd').map((i) => i.due));
    const { words: text } = ask({
      measure: 'receivables.total',
      party: 'REDDY BUILDERS PRIVATE LIMITED',
      inputs: AR,
    });
    expect(text.startsWith(`**Reddy Builders Pvt Ltd owes you ${inr(reddy)}**`)).toBe(true);
  });

  it('a party not in the books: a decline naming it and the near name, never the unfiltered total', () => {
    const { words: text, declined } = ask({
      measure: 'receivables.overdue',
      party: 'Acme Corpp',
      inputs: AR,
    });
    expect(declined).toBe(true);
    expect(text).toBe(
      'I couldn\'t find a customer named "Acme Corpp" with open invoices in your books. Did you mean Acme Corp?',
    );
    const none = ask({ measure: 'payables.total', party: 'Nobody Traders', inputs: AP });
    expect(none.declined).toBe(true);
    expect(none.words).not.toMatch(/₹|\d/);
  });

  it('a party that could be several: asks which, gives no figure', () => {
    const twoPatels = (v: unknown) => {
      const report = structuredClone(v) as { Invoices: Record<string, unknown>[] };
      const first = report.Invoices[0] as Record<string, unknown>;
      report.Invoices.push({ ...first, InvoiceNumber: 'INV-9999', ContactName: 'Patel Traders' });
      return report;
    };
    const { words: text, declined } = ask(
      { measure: 'receivables.total', party: 'Patel', inputs: AR },
      twoPatels,
    );
    expect(declined).toBe(true);
    expect(text).toContain('Patel Constructions, Patel Traders');
    expect(text).not.toContain('₹');
  });

  it('bills due this week: the open bills whose due date falls in the window', () => {
    const week = { from: TODAY, to: '2026-11-26', grain: 'week' as const, label: 'this week' };
    const due = openBills.filter((b) => b.dueDate >= week.from && b.dueDate <= week.to);
    const { words: text } = ask({ measure: 'payables.due', period: week, inputs: AP });
    if (due.length === 0) expect(text).toContain('No bills fall due in this week');
    else expect(text.startsWith(`**${inr(sum(due.map((b) => b.due)))} falls due in this week**`)).toBe(true);
    for (const b of due) expect(text).toContain(b.number);
  });
});

describe('cash, profit and loss, GST and KPIs on the demo books', () => {
  const chart = (
    runTool(books, 'get_charts_of_accounts', {}).structuredContent as {
      Accounts: { SubType: string; Type: string; Name: string; Balance: number }[];
    }
  ).Accounts;
  const cash = sum(chart.filter((a) => a.SubType === 'BANK' || a.SubType === 'CASH').map((a) => a.Balance));

  it('how much cash do I have: bank and cash accounts, by name', () => {
    const { words: text } = ask({ measure: 'cash.today', inputs: [{ role: 'balance_sheet', asOf: TODAY }] });
    expect(text.startsWith(`**Cash and bank: ${inr(cash)}**`)).toBe(true);
    expect(text).toContain('Bank - HDFC Current Account');
    expect(text).toContain('20/11/2026');
  });

  it('what were my sales last month: invoices less credit notes of the month', () => {
    const inMonth = (d: { Date: string }) => d.Date >= OCT.from && d.Date <= OCT.to;
    const sales = r2(
      sum(
        books.invoices
          .filter((i) => i.Status === 'AUTHORISED' && inMonth(i))
          .flatMap((i) => i.Lines.map((l) => l.LineAmount)),
      ) -
        sum(
          books.creditNotes
            .filter((c) => c.Status === 'AUTHORISED' && inMonth(c))
            .flatMap((c) => c.Lines.map((l) => l.LineAmount)),
        ),
    );
    const { words: text } = ask({
      measure: 'sales',
      period: OCT,
      inputs: [{ role: 'profit_and_loss', period: OCT }],
    });
    expect(text.startsWith(`**Sales in October 2026: ${inr(sales)}**`)).toBe(true);
  });

  it('compare this month’s sales with last month: both, the change and the percent', () => {
    const income = (p: typeof OCT) =>
      (
        runTool(books, 'get_profit_loss', { FromDate: p.from, ToDate: p.to }).structuredContent as {
          TotalIncome: number;
        }
      ).TotalIncome;
    const [now, before] = [income(OCT), income(SEP)];
    const { words: text } = ask({
      measure: 'sales',
      period: OCT,
      compare: 'previous',
      inputs: [
        { role: 'profit_and_loss', period: OCT },
        { role: 'profit_and_loss', period: SEP },
      ],
    });
    const pct = new Intl.NumberFormat('en-IN', { style: 'percent', maximumFractionDigits: 1 }).format(
      Math.abs(now - before) / before,
    );
    expect(text).toContain(
      `Against September 2026: ${inr(before)}, ${now >= before ? 'up' : 'down'} ${inr(Math.abs(r2(now - before)))} (${now >= before ? '+' : '−'}${pct})`,
    );
  });

  it('expenses this month against last: every line of either month, none dropped', () => {
    const NOV = { ...month('2026-11', 'November 2026 to date'), to: TODAY };
    const names = (p: typeof OCT) => {
      const pl = runTool(books, 'get_profit_loss', { FromDate: p.from, ToDate: p.to }).structuredContent as {
        CostOfSales: { Name: string }[];
        OperatingExpenses: { Name: string }[];
      };
      return [...pl.CostOfSales, ...pl.OperatingExpenses].map((l) => l.Name);
    };
    const { words: text } = ask({
      measure: 'expenses',
      period: NOV,
      compare: 'previous',
      inputs: [
        { role: 'profit_and_loss', period: NOV },
        { role: 'profit_and_loss', period: OCT },
      ],
    });
    for (const n of new Set([...names(NOV), ...names(OCT)])) expect(text).toContain(`| ${n} |`);
  });

  it('profit: income less cost of sales less expenses of the period', () => {
    const pl = runTool(books, 'get_profit_loss', { FromDate: OCT.from, ToDate: OCT.to })
      .structuredContent as {
      Income: { Amount: number }[];
      CostOfSales: { Amount: number }[];
      OperatingExpenses: { Amount: number }[];
    };
    const net = r2(
      sum(pl.Income.map((l) => l.Amount)) -
        sum(pl.CostOfSales.map((l) => l.Amount)) -
        sum(pl.OperatingExpenses.map((l) => l.Amount)),
    );
    const { words: text } = ask({
      measure: 'profit',
      period: OCT,
      inputs: [{ role: 'profit_and_loss', period: OCT }],
    });
    expect(
      text.startsWith(`**${net < 0 ? 'Net loss' : 'Net profit'} in October 2026: ${inr(Math.abs(net))}**`),
    ).toBe(true);
  });

  it('how much GST do I owe this month: output tax less input credit', () => {
    const NOV = { ...month('2026-11', 'November 2026'), to: TODAY };
    const inP = (d: { Date: string }) => d.Date >= NOV.from && d.Date <= NOV.to;
    const tax = (lines: { TaxAmount: number }[]) => sum(lines.map((l) => l.TaxAmount));
    const output = r2(
      sum(books.invoices.filter((i) => i.Status === 'AUTHORISED' && inP(i)).map((i) => tax(i.Lines))) -
        sum(books.creditNotes.filter((c) => c.Status === 'AUTHORISED' && inP(c)).map((c) => tax(c.Lines))),
    );
    const input = sum(
      books.bills.filter((b) => b.Status === 'AUTHORISED' && inP(b)).map((b) => tax(b.Lines)),
    );
    const net = r2(output - input);
    const { words: text } = ask({
      measure: 'gst.payable',
      period: NOV,
      inputs: [{ role: 'gst_summary', period: NOV }],
    });
    expect(text).toContain(`Output tax on sales: ${inr(output)}`);
    expect(text).toContain(`Input tax credit on purchases: ${inr(input)}`);
    expect(
      text.startsWith(net >= 0 ? `**GST payable for November 2026: ${inr(net)}**` : '**No GST payable'),
    ).toBe(true);
  });

  it('current ratio: current assets over current liabilities, fixed assets left out', () => {
    const assets = sum(
      chart.filter((a) => a.Type === 'ASSET' && a.SubType !== 'FIXED_ASSET').map((a) => a.Balance),
    );
    const liabilities = sum(chart.filter((a) => a.Type === 'LIABILITY').map((a) => a.Balance));
    const { words: text } = ask({
      measure: 'kpi.current_ratio',
      inputs: [{ role: 'balance_sheet', asOf: TODAY }],
    });
    expect(text.startsWith(`**Current ratio: ${(assets / liabilities).toFixed(2)}**`)).toBe(true);
  });

  it('DSO: receivables over sales times the days of the period', () => {
    const FY = { from: '2026-04-01', to: TODAY, grain: 'fy' as const, label: 'FY 2026-27 to date' };
    const sales = (
      runTool(books, 'get_profit_loss', { FromDate: FY.from, ToDate: FY.to }).structuredContent as {
        TotalIncome: number;
      }
    ).TotalIncome;
    const days = (Date.parse(FY.to) - Date.parse(FY.from)) / 86_400_000 + 1;
    const expected = Math.round((sum(openInvoices.map((i) => i.due)) / sales) * days);
    const { words: text } = ask({
      measure: 'kpi.dso',
      period: FY,
      inputs: [
        { role: 'aged_receivables', asOf: TODAY },
        { role: 'profit_and_loss', period: FY },
      ],
    });
    expect(text.startsWith(`**Days sales outstanding: ${expected} days**`)).toBe(true);
  });

  it('will I run short of cash: 13 weeks from today’s cash, with the assumptions', () => {
    const { words: text, declined } = ask({
      measure: 'cash.forecast',
      inputs: [
        { role: 'balance_sheet', asOf: TODAY },
        { role: 'invoices' },
        { role: 'bills' },
        { role: 'payments' },
      ],
    });
    expect(declined).toBe(false);
    expect(text).toMatch(/^\*\*(Cash runs short in week \d+|Cash stays positive for the next 13 weeks)/);
    expect(text).toContain(`Opening cash ${inr(cash)}`);
    expect(text).toContain('**Assumptions**');
    expect(text.match(/^\| \d+ \|/gm)).toHaveLength(13);
    expect(text).not.toMatch(/\b2026-\d{2}-\d{2}\b/);
  });

  it('runway from the cash flow of the last three months', () => {
    const Q = {
      from: '2026-08-01',
      to: '2026-10-31',
      grain: 'custom' as const,
      label: 'August to October 2026',
    };
    const { words: text, declined } = ask({
      measure: 'kpi.runway',
      inputs: [
        { role: 'balance_sheet', asOf: TODAY },
        { role: 'cash_flow', period: Q },
      ],
    });
    expect(declined).toBe(false);
    expect(text).toMatch(/^\*\*(About [\d.]+ months of cash|You are not burning cash)\*\*/);
    expect(text).toContain(inr(cash));
  });

  it('any unusual expenses: lines at twice their usual, from four months of profit and loss', () => {
    const months = [OCT, SEP, month('2026-08', 'August 2026'), month('2026-07', 'July 2026')];
    const lines = months.map(
      (p) =>
        new Map(
          (
            runTool(books, 'get_profit_loss', { FromDate: p.from, ToDate: p.to }).structuredContent as {
              CostOfSales: { Name: string; Amount: number }[];
              OperatingExpenses: { Name: string; Amount: number }[];
            }
          ).OperatingExpenses.concat(
            (
              runTool(books, 'get_profit_loss', { FromDate: p.from, ToDate: p.to }).structuredContent as {
                CostOfSales: { Name: string; Amount: number }[];
              }
            ).CostOfSales,
          ).map((l) => [l.Name, l.Amount]),
        ),
    );
    const [now, ...before] = lines as [Map<string, number>, ...Map<string, number>[]];
    const unusual = [...now].filter(([n, a]) => {
      const avg = before.reduce((s, m) => s + (m.get(n) ?? 0), 0) / before.length;
      return avg > 0 && a >= 2 * avg;
    });
    const { words: text } = ask({
      measure: 'anomalies',
      period: OCT,
      inputs: [...months.map((p) => ({ role: 'profit_and_loss' as const, period: p })), { role: 'payments' }],
    });
    for (const [n] of unusual) expect(text).toContain(`| ${n} |`);
    if (unusual.length === 0) expect(text).not.toContain('Times usual');
  });

  it('sales to one customer in a month: that customer’s invoices only', () => {
    const acme = books.invoices.filter(
      (i) =>
        i.Status === 'AUTHORISED' &&
        name(i.ContactId) === 'Acme Corp' &&
        i.Date >= OCT.from &&
        i.Date <= OCT.to,
    );
    const expected = sum(acme.flatMap((i) => i.Lines.map((l) => l.LineAmount)));
    const { words: text } = ask({
      measure: 'sales',
      party: 'Acme',
      period: OCT,
      inputs: [{ role: 'invoices' }],
    });
    expect(
      text.startsWith(
        acme.length ? `**Sales to Acme Corp in October 2026: ${inr(expected)}**` : '**No sales to Acme Corp',
      ),
    ).toBe(true);
  });
});

describe('the same answers whatever the server calls its fields', () => {
  const CASES: Omit<AnalyticRequest, 'today'>[] = [
    { measure: 'receivables.top', inputs: AR },
    { measure: 'receivables.top', inputs: [{ role: 'invoices' }] },
    { measure: 'receivables.overdue', party: 'Acme Corp', inputs: AR },
    { measure: 'payables.total', inputs: [{ role: 'bills' }] },
    { measure: 'cash.today', inputs: [{ role: 'balance_sheet', asOf: TODAY }] },
    {
      measure: 'profit',
      period: OCT,
      compare: 'previous',
      inputs: [
        { role: 'profit_and_loss', period: OCT },
        { role: 'profit_and_loss', period: SEP },
      ],
    },
    { measure: 'gst.payable', period: OCT, inputs: [{ role: 'gst_summary', period: OCT }] },
    { measure: 'kpi.current_ratio', inputs: [{ role: 'balance_sheet', asOf: TODAY }] },
    {
      measure: 'cash.forecast',
      inputs: [
        { role: 'balance_sheet', asOf: TODAY },
        { role: 'invoices' },
        { role: 'bills' },
        { role: 'payments' },
      ],
    },
  ];
  for (const [style, rewrite] of STYLES)
    it(`${style}: every measure as with the books' own names`, () => {
      for (const request of CASES) {
        const own = ask(request);
        expect(own.declined, `${request.measure}: ${own.words}`).toBe(false);
        expect(ask(request, rewrite).words, `${request.measure} in ${style}`).toBe(own.words);
      }
    });
});

describe('what cannot be read is declined', () => {
  it('a report of another shape: a decline, never a guess', () => {
    const { words: text, declined } = ask(
      { measure: 'cash.today', inputs: [{ role: 'balance_sheet', asOf: TODAY }] },
      () => ({
        message: 'ok',
        rows: 'n/a',
      }),
    );
    expect(declined).toBe(true);
    expect(text).toContain("couldn't read the balance sheet");
  });

  it('one page of a longer invoice list: no total from part of it', () => {
    const page = runTool(books, 'get_all_invoices', { Page: 1, PageSize: 10 }).structuredContent;
    const out = answerAnalytic(
      { measure: 'receivables.total', today: TODAY, inputs: [{ role: 'invoices' }] },
      [page],
      fmt,
    );
    expect(out.declined).toBe(true);
    expect(out.words).not.toContain('₹');
  });
});
