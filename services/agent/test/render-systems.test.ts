// The renderers on results shaped as other accounting systems return them (Xero, QuickBooks
// Online, Zoho Books, snake_case APIs), so they are not fitted to the demo books.
import { describe, expect, it } from 'vitest';
import { planEnrichments } from '../src/render/enrichments.ts';
import { renderResults } from '../src/render/format.ts';
import { inr, us, usd } from './render-formats.ts';

const sum = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) * 100) / 100;

describe('Xero', () => {
  const row = (label: string, value: number) => ({
    RowType: 'Row',
    Cells: [{ Value: label }, { Value: value.toFixed(2) }],
  });
  const income = [
    ['Sales', 12000],
    ['Consulting', 3000],
  ] as const;
  const expenses = [
    ['Rent', 4000],
    ['Wages', 6000],
  ] as const;
  const totalIncome = sum(income.map(([, v]) => v));
  const totalExpenses = sum(expenses.map(([, v]) => v));
  const report = {
    Reports: [
      {
        ReportID: 'ProfitAndLoss',
        ReportName: 'Profit and Loss',
        ReportType: 'ProfitAndLoss',
        ReportTitles: ['Profit & Loss', 'Demo Company (US)', '1 January 2026 to 31 March 2026'],
        Rows: [
          { RowType: 'Header', Cells: [{ Value: '' }, { Value: '31 Mar 26' }] },
          {
            RowType: 'Section',
            Title: 'Income',
            Rows: [
              ...income.map(([l, v]) => row(l, v)),
              {
                RowType: 'SummaryRow',
                Cells: [{ Value: 'Total Income' }, { Value: totalIncome.toFixed(2) }],
              },
            ],
          },
          {
            RowType: 'Section',
            Title: 'Less Operating Expenses',
            Rows: [
              ...expenses.map(([l, v]) => row(l, v)),
              {
                RowType: 'SummaryRow',
                Cells: [{ Value: 'Total Operating Expenses' }, { Value: totalExpenses.toFixed(2) }],
              },
            ],
          },
          { RowType: 'Section', Rows: [row('Net Profit', totalIncome - totalExpenses)] },
        ],
      },
    ],
  };

  it('a profit and loss report, row for row, with its sections, totals and net profit', () => {
    const text = renderResults([{ tool: 'xero__get_report_profit_and_loss', result: report }], {
      formats: us,
    });
    expect(text).toMatch(/^### Profit & Loss\nDemo Company \(US\) · 1 January 2026 to 31 March 2026 · USD/);
    expect(text).toContain('| Account | 31 Mar 26 |');
    expect(text).toContain('| **Income** |  |');
    for (const [l, v] of [...income, ...expenses]) expect(text).toContain(`${l} | ${usd(v)} |`);
    expect(text).toContain(`| **Total Income** | **${usd(totalIncome)}** |`);
    expect(text).toContain(`| Net Profit | ${usd(totalIncome - totalExpenses)} |`);
    expect(text.indexOf('Total Income')).toBeLessThan(text.indexOf('Less Operating Expenses'));
  });

  it('a list of invoices with its paging: references by name, Microsoft dates, statuses in words', () => {
    const invoices = [
      {
        InvoiceID: 'a1b2c3d4-0000-4000-8000-000000000001',
        InvoiceNumber: 'INV-0010',
        Contact: { ContactID: 'x', Name: 'Bayside Club' },
        Date: '/Date(1767225600000+0000)/',
        DueDate: '/Date(1769904000000+0000)/',
        Status: 'AUTHORISED',
        Total: 500,
        AmountDue: 500,
        AmountPaid: 0,
      },
      {
        InvoiceID: 'a1b2c3d4-0000-4000-8000-000000000002',
        InvoiceNumber: 'INV-0011',
        Contact: { ContactID: 'y', Name: 'Marine Systems' },
        Date: '/Date(1767312000000+0000)/',
        DueDate: '/Date(1769990400000+0000)/',
        Status: 'PAID',
        Total: 250,
        AmountDue: 0,
        AmountPaid: 250,
      },
    ];
    const text = renderResults(
      [
        {
          tool: 'get_invoices',
          result: { Invoices: invoices, pagination: { page: 1, pageSize: 2, pageCount: 3, itemCount: 6 } },
        },
      ],
      { formats: us },
    );
    expect(text).toContain('| Invoice # | Customer | Date | Due date | Status | Total | Paid | Amount due |');
    expect(text).toContain(
      `| INV-0010 | Bayside Club | 01/01/2026 | 02/01/2026 | Awaiting payment | ${usd(500)} |`,
    );
    expect(text).toContain('| INV-0011 | Marine Systems | 01/02/2026 |');
    expect(text).toContain('Showing 2 of 6 invoices (page 1 of 3). Say "show more" for the next page.');
    expect(text).not.toMatch(/a1b2c3d4|AUTHORISED|\/Date\(/);
  });
});

describe('QuickBooks Online', () => {
  const money = (n: number) => n.toFixed(2);
  const assets = [
    ['Checking', 1201],
    ['Accounts Receivable (A/R)', 5281.52],
  ] as const;
  const liabilities = [['Accounts Payable (A/P)', 1602.67]] as const;
  const equity = [
    ['Retained Earnings', 1000],
    ['Net Income', 3879.85],
  ] as const;
  const section = (title: string, rows: readonly (readonly [string, number])[], total: number) => ({
    type: 'Section',
    Header: { ColData: [{ value: title }, { value: '' }] },
    Rows: {
      Row: rows.map(([l, v]) => ({ type: 'Data', ColData: [{ value: l, id: '1' }, { value: money(v) }] })),
    },
    Summary: { ColData: [{ value: `Total ${title}` }, { value: money(total) }] },
  });
  const sheet = (equityTotal: number) => ({
    Header: {
      ReportName: 'BalanceSheet',
      StartPeriod: '2026-01-01',
      EndPeriod: '2026-03-31',
      Currency: 'USD',
    },
    Columns: {
      Column: [
        { ColTitle: '', ColType: 'Account' },
        { ColTitle: 'Total', ColType: 'Money' },
      ],
    },
    Rows: {
      Row: [
        section('Assets', assets, sum(assets.map(([, v]) => v))),
        {
          type: 'Section',
          Header: { ColData: [{ value: 'Liabilities and Equity' }, { value: '' }] },
          Rows: {
            Row: [
              section('Liabilities', liabilities, sum(liabilities.map(([, v]) => v))),
              section('Equity', equity, equityTotal),
            ],
          },
          Summary: {
            ColData: [
              { value: 'Total Liabilities and Equity' },
              { value: money(sum(liabilities.map(([, v]) => v)) + equityTotal) },
            ],
          },
        },
      ],
    },
  });

  it('a balance sheet with its nested sections, and that it balances', () => {
    const totalAssets = sum(assets.map(([, v]) => v));
    const text = renderResults([{ tool: 'qbo_report', result: sheet(sum(equity.map(([, v]) => v))) }], {
      formats: us,
    });
    expect(text).toMatch(/^### Balance sheet\nFY 2026 to date \(Jan 1, 2026 to Mar 31, 2026\) · USD/);
    expect(text).toContain(`| **Total Assets** | **${usd(totalAssets)}** |`);
    expect(text).toContain('Accounts Receivable (A/R) |');
    expect(text).toContain(
      `✓ Balanced: total assets equal total liabilities and equity (${usd(totalAssets)}).`,
    );
  });

  it('says when a balance sheet does not balance, and by how much', () => {
    const text = renderResults([{ tool: 'qbo_report', result: sheet(4000) }], { formats: us });
    const gap = sum(assets.map(([, v]) => v)) - sum(liabilities.map(([, v]) => v)) - 4000;
    expect(text).toContain(`⚠️ Out of balance by ${usd(gap)}.`);
  });

  it('one invoice: document number, customer reference, item lines with their detail, balance due', () => {
    const lines = [
      {
        Id: '1',
        Description: 'Rock Fountain',
        Amount: 275,
        DetailType: 'SalesItemLineDetail',
        SalesItemLineDetail: { ItemRef: { value: '5', name: 'Rock Fountain' }, UnitPrice: 275, Qty: 1 },
      },
      {
        Id: '2',
        Description: 'Fountain Pump',
        Amount: 25.5,
        DetailType: 'SalesItemLineDetail',
        SalesItemLineDetail: { ItemRef: { value: '11', name: 'Pump' }, UnitPrice: 12.75, Qty: 2 },
      },
      { Amount: 300.5, DetailType: 'SubTotalLineDetail', SubTotalLineDetail: {} },
    ];
    const invoice = {
      Id: '130',
      DocNumber: '1037',
      TxnDate: '2026-05-01',
      DueDate: '2026-05-31',
      CustomerRef: { value: '3', name: 'Cool Cars' },
      Line: lines,
      TotalAmt: 324.54,
      Balance: 324.54,
      CurrencyRef: { value: 'USD', name: 'United States Dollar' },
    };
    const text = renderResults(
      [{ tool: 'get_invoice', result: { Invoice: invoice, time: '2026-05-02T10:00:00-07:00' } }],
      { formats: us },
    );
    expect(text).toMatch(/^### Invoice 1037 — Cool Cars\nUSD/);
    expect(text).toContain('- Date: 05/01/2026');
    expect(text).toContain(`| Rock Fountain | 1 | ${usd(275)} | ${usd(275)} |`);
    expect(text).toContain(`| Fountain Pump | 2 | ${usd(12.75)} | ${usd(25.5)} |`);
    // The subtotal line is a subtotal, not an item.
    expect(text).not.toContain(`|  |  |  | ${usd(300.5)} |`);
    expect(text).toContain(`| **Amount due** | **${usd(324.54)}** |`);
  });
});

describe('Zoho Books and snake_case APIs', () => {
  it('a page of invoices with page_context: the true total is unknown, so it says there are more', () => {
    const invoices = [
      {
        invoice_id: '9800000000001',
        invoice_number: 'INV-000001',
        customer_name: 'Bowman and Co',
        status: 'overdue',
        date: '2026-03-01',
        due_date: '2026-03-31',
        total: 40600,
        balance: 40600,
        currency_code: 'INR',
      },
      {
        invoice_id: '9800000000002',
        invoice_number: 'INV-000002',
        customer_name: 'Singh Traders',
        status: 'partially_paid',
        date: '2026-03-05',
        due_date: '2026-04-04',
        total: 12000,
        balance: 2000,
        currency_code: 'INR',
      },
    ];
    const fetched = {
      tool: 'list_invoices',
      result: {
        code: 0,
        message: 'success',
        invoices,
        page_context: { page: 1, per_page: 2, has_more_page: true },
      },
    };
    const text = renderResults([fetched]);
    expect(text).toContain('| INV-000001 | Bowman and Co | 01/03/2026 | 31/03/2026 | Overdue |');
    expect(text).toContain('| INV-000002 | Singh Traders | 05/03/2026 | 04/04/2026 | Partly paid |');
    expect(text).toContain('Showing 2 invoices; there are more. Say "show more" for the next page.');
    expect(text).not.toContain('9800000000001');
    expect(text).not.toContain('**Total**');
    const total = planEnrichments([fetched]).find((e) => e.type === 'currency')?.lines[0];
    expect(total).toContain('on this page');
    expect(total).not.toMatch(/\ball\b/);
  });

  it('a flat profit and loss in snake_case: sections, computed subtotals, the net income given', () => {
    const revenue = [
      { account_name: 'Sales', amount: 500000 },
      { account_name: 'Services', amount: 200000 },
    ];
    const cogs = [{ account_name: 'Materials', amount: 300000 }];
    const opex = [{ account_name: 'Rent', amount: 100000 }];
    const net =
      sum(revenue.map((r) => r.amount)) - sum(cogs.map((r) => r.amount)) - sum(opex.map((r) => r.amount));
    const result = {
      report_name: 'Profit and Loss',
      from_date: '2026-04-01',
      to_date: '2027-03-31',
      currency_code: 'INR',
      revenue,
      cost_of_goods_sold: cogs,
      operating_expenses: opex,
      net_income: net,
    };
    const text = renderResults([{ tool: 'reports_profit_loss', result }]);
    expect(text).toMatch(/^### Profit and loss\nFY 2026-27 \(1 Apr 2026 to 31 Mar 2027\) · INR/);
    expect(text).toContain(`| **Total income** | **${inr(700000)}** |`);
    expect(text).toContain(`| **Gross profit** | **${inr(400000)}** |`);
    expect(text).toContain(`| **Net profit** | **${inr(net)}** |`);
  });

  it('an aging summary with 1-30 … 91+ keys, ordered by age, and its column totals', () => {
    const rows = [
      {
        customer_name: 'A',
        current: 100,
        '1_30': 50,
        '31_60': 0,
        '61_90': 10,
        '91_and_over': 25,
        total: 185,
      },
      { customer_name: 'B', current: 0, '1_30': 20, '31_60': 30, '61_90': 0, '91_and_over': 0, total: 50 },
    ];
    const text = renderResults([{ tool: 'get_ar_aging_summary', result: { ar_aging: rows } }]);
    expect(text).toContain(
      '| Customer | Current | 1–30 days | 31–60 days | 61–90 days | Over 90 days | Total |',
    );
    expect(text).toContain(
      `| **Total** | **${inr(100)}** | **${inr(70)}** | **${inr(30)}** | **${inr(10)}** | **${inr(25)}** | **${inr(235)}** |`,
    );
  });

  it('a GST summary with its own names, and the net payable', () => {
    const output = { taxable_amount: 100000, cgst: 9000, sgst: 9000, igst: 0, total_tax: 18000 };
    const input = { taxable_amount: 50000, cgst: 2500, sgst: 2500, igst: 4000, total_tax: 9000 };
    const text = renderResults([
      { tool: 'get_gst_summary', result: { output_tax: output, input_tax_credit: input } },
    ]);
    expect(text).toContain(
      `| Output tax (on sales) | ${inr(100000)} | ${inr(9000)} | ${inr(9000)} | ${inr(0)} | ${inr(18000)} |`,
    );
    expect(text).toContain(`**Net GST payable: ${inr(18000 - 9000)}**`);
  });

  it('a trial balance in snake_case, and that it does not agree', () => {
    const accounts = [
      { account_code: '1000', account_name: 'Bank', debit: 1500, credit: 0 },
      { account_code: '2000', account_name: 'Loan', debit: 0, credit: 1000 },
    ];
    const text = renderResults([{ tool: 'get_trial_balance', result: { accounts } }]);
    expect(text).toContain(`| 1000 | Bank | ${inr(1500)} |  |`);
    expect(text).toContain(`**Total** | **${inr(1500)}** | **${inr(1000)}** |`);
    expect(text).toContain(`⚠️ The trial balance does not agree: debits exceed credits by ${inr(500)}.`);
  });
});
