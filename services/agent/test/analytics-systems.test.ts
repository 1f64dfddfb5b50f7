// The analytics on results shaped as other accounting systems give them (Xero's and QuickBooks'
// row reports, Zoho's and QuickBooks' lists), so the readers are not fitted to the demo books.
import type { AnalyticRequest } from '@munim/contracts';
import { DEFAULT_BUSINESS_CONTEXT } from '@munim/db';
import { describe, expect, it } from 'vitest';
import { answerAnalytic } from '../src/analytics/answer.ts';
import { formatsFor } from '../src/render/locale.ts';
import { inr, us, usd } from './render-formats.ts';

const TODAY = '2026-04-15';
const fmt = formatsFor(DEFAULT_BUSINESS_CONTEXT);
const ask = (request: Omit<AnalyticRequest, 'today'>, results: unknown[]) =>
  answerAnalytic({ ...request, today: TODAY }, results, fmt);
const sum = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) * 100) / 100;

const Q = { from: '2026-01-01', to: '2026-03-31', grain: 'quarter' as const, label: 'Q4 FY 2025-26' };

describe('Xero row reports', () => {
  const row = (label: string, value: number) => ({
    RowType: 'Row',
    Cells: [{ Value: label }, { Value: value.toFixed(2) }],
  });
  const income = [
    ['Sales', 12000],
    ['Consulting', 3000],
  ] as const;
  const cos = [['Purchases', 5000]] as const;
  const expenses = [
    ['Rent', 4000],
    ['Wages', 5000.5],
  ] as const;
  const total = (xs: readonly (readonly [string, number])[]) => sum(xs.map(([, v]) => v));
  const section = (title: string, rows: readonly (readonly [string, number])[], named: string) => ({
    RowType: 'Section',
    Title: title,
    Rows: [
      ...rows.map(([l, v]) => row(l, v)),
      { RowType: 'SummaryRow', Cells: [{ Value: `Total ${named}` }, { Value: total(rows).toFixed(2) }] },
    ],
  });
  const gross = total(income) - total(cos);
  const net = gross - total(expenses);
  const pnl = {
    Reports: [
      {
        ReportName: 'Profit and Loss',
        ReportTitles: ['Profit & Loss', 'Demo Company', '1 January 2026 to 31 March 2026'],
        Rows: [
          { RowType: 'Header', Cells: [{ Value: '' }, { Value: '31 Mar 26' }] },
          section('Income', income, 'Income'),
          section('Less Cost of Sales', cos, 'Cost of Sales'),
          { RowType: 'Section', Rows: [row('Gross Profit', gross)] },
          section('Less Operating Expenses', expenses, 'Operating Expenses'),
          { RowType: 'Section', Rows: [row('Net Profit', net)] },
        ],
      },
    ],
  };

  it('profit, sales and expenses from the rows', () => {
    const p = ask({ measure: 'profit', period: Q, inputs: [{ role: 'profit_and_loss', period: Q }] }, [pnl]);
    expect(p.words.startsWith(`**Net profit in Q4 FY 2025-26: ${inr(net)}**`)).toBe(true);
    const s = ask({ measure: 'sales', period: Q, inputs: [{ role: 'profit_and_loss', period: Q }] }, [pnl]);
    expect(s.words.startsWith(`**Sales in Q4 FY 2025-26: ${inr(total(income))}**`)).toBe(true);
    const e = ask({ measure: 'expenses', period: Q, inputs: [{ role: 'profit_and_loss', period: Q }] }, [
      pnl,
    ]);
    expect(e.words.startsWith(`**Expenses in Q4 FY 2025-26: ${inr(total(cos) + total(expenses))}**`)).toBe(
      true,
    );
    expect(e.words).toContain('| Wages |');
  });
});

describe('QuickBooks Online', () => {
  const money = (n: number) => n.toFixed(2);
  const section = (title: string, rows: unknown[], total: number) => ({
    type: 'Section',
    Header: { ColData: [{ value: title }, { value: '' }] },
    Rows: { Row: rows },
    Summary: { ColData: [{ value: `Total ${title}` }, { value: money(total) }] },
  });
  const data = (l: string, v: number) => ({
    type: 'Data',
    ColData: [{ value: l, id: '1' }, { value: money(v) }],
  });
  const bank = [
    ['Checking', 1201],
    ['Savings', 800],
  ] as const;
  const bankTotal = sum(bank.map(([, v]) => v));
  const ar = 5281.52;
  const fixed = 2500;
  const ap = 1602.67;
  const card = 157.72;
  const loan = 4000;
  const current = sum([bankTotal, ar]);
  const sheet = {
    Header: { ReportName: 'BalanceSheet', EndPeriod: '2026-03-31', Currency: 'INR' },
    Columns: {
      Column: [
        { ColTitle: '', ColType: 'Account' },
        { ColTitle: 'Total', ColType: 'Money' },
      ],
    },
    Rows: {
      Row: [
        section(
          'ASSETS',
          [
            section(
              'Current Assets',
              [
                section(
                  'Bank Accounts',
                  bank.map(([l, v]) => data(l, v)),
                  bankTotal,
                ),
                data('Accounts Receivable (A/R)', ar),
              ],
              current,
            ),
            section('Fixed Assets', [data('Truck', fixed)], fixed),
          ],
          current + fixed,
        ),
        section(
          'LIABILITIES AND EQUITY',
          [
            section(
              'Liabilities',
              [
                section(
                  'Current Liabilities',
                  [data('Accounts Payable (A/P)', ap), data('Mastercard', card)],
                  sum([ap, card]),
                ),
                section('Long-Term Liabilities', [data('Notes Payable', loan)], loan),
              ],
              sum([ap, card, loan]),
            ),
            section('Equity', [data('Retained Earnings', 1000)], 1000),
          ],
          sum([ap, card, loan, 1000]),
        ),
      ],
    },
  };

  it('cash today: the bank accounts inside current assets', () => {
    const out = ask({ measure: 'cash.today', inputs: [{ role: 'balance_sheet', asOf: TODAY }] }, [sheet]);
    expect(out.words.startsWith(`**Cash and bank: ${inr(bankTotal)}**`)).toBe(true);
    expect(out.words).toContain('| Checking |');
  });

  it('current ratio: current assets over current liabilities, the long-term loan and truck left out', () => {
    const out = ask({ measure: 'kpi.current_ratio', inputs: [{ role: 'balance_sheet', asOf: TODAY }] }, [
      sheet,
    ]);
    expect(out.words.startsWith(`**Current ratio: ${(current / sum([ap, card])).toFixed(2)}**`)).toBe(true);
  });

  it('aged receivables as a table of age columns: who owes the most', () => {
    const aging = {
      Header: { ReportName: 'AgedReceivables', Currency: 'INR' },
      Columns: {
        Column: ['', 'Current', '1 - 30', '31 - 60', '61 - 90', '91 and over', 'Total'].map((t) => ({
          ColTitle: t,
        })),
      },
      Rows: {
        Row: [
          {
            ColData: [
              { value: 'Amy’s Bird Sanctuary' },
              { value: '239.00' },
              { value: '' },
              { value: '' },
              { value: '' },
              { value: '' },
              { value: '239.00' },
            ],
          },
          {
            ColData: [
              { value: 'Cool Cars' },
              { value: '' },
              { value: '694.00' },
              { value: '' },
              { value: '' },
              { value: '1000.00' },
              { value: '1694.00' },
            ],
          },
          {
            type: 'Section',
            group: 'GrandTotal',
            Summary: {
              ColData: [
                { value: 'TOTAL' },
                { value: '239.00' },
                { value: '694.00' },
                { value: '' },
                { value: '' },
                { value: '1000.00' },
                { value: '1933.00' },
              ],
            },
          },
        ],
      },
    };
    const out = ask({ measure: 'receivables.top', inputs: [{ role: 'aged_receivables', asOf: TODAY }] }, [
      aging,
    ]);
    expect(
      out.words.startsWith(`**Cool Cars owes you the most: ${inr(1694)}**, ${inr(1694)} of it overdue.`),
    ).toBe(true);
    expect(out.words).toContain(`Customers owe you ${inr(1933)} in all`);
    expect(out.words).not.toContain('Oldest overdue');
    // Ages by column give no due dates: what falls due this week cannot be told from them.
    const week = { from: TODAY, to: '2026-04-21', grain: 'week' as const, label: 'this week' };
    const due = ask(
      { measure: 'receivables.due', period: week, inputs: [{ role: 'aged_receivables', asOf: TODAY }] },
      [aging],
    );
    expect(due.declined).toBe(true);
    expect(due.words).not.toContain('₹');
  });

  it('an invoice list with references by name: open balances by customer', () => {
    const invoices = {
      QueryResponse: {
        Invoice: [
          {
            Id: '1',
            DocNumber: '1001',
            CustomerRef: { value: '3', name: 'Cool Cars' },
            TxnDate: '2026-02-01',
            DueDate: '2026-03-03',
            TotalAmt: 500,
            Balance: 500,
          },
          {
            Id: '2',
            DocNumber: '1002',
            CustomerRef: { value: '3', name: 'Cool Cars' },
            TxnDate: '2026-04-01',
            DueDate: '2026-05-01',
            TotalAmt: 300,
            Balance: 120,
          },
          {
            Id: '3',
            DocNumber: '1003',
            CustomerRef: { value: '4', name: 'Bird Sanctuary' },
            TxnDate: '2026-03-01',
            DueDate: '2026-03-31',
            TotalAmt: 200,
            Balance: 0,
          },
        ],
        startPosition: 1,
        maxResults: 3,
      },
      time: '2026-04-15T10:00:00-07:00',
    };
    const out = ask({ measure: 'receivables.overdue', party: 'cool cars', inputs: [{ role: 'invoices' }] }, [
      invoices,
    ]);
    expect(out.words.startsWith(`**${inr(500)} is overdue from Cool Cars** on 1 invoice`)).toBe(true);
    expect(out.words).toContain('| 1001 | 03/03/2026 | 43 |');
    expect(out.words).toContain(`A further ${inr(120)} is open, not yet due.`);
  });
});

describe('Zoho Books', () => {
  it('a profit and loss given as a list of named sections', () => {
    const section = (name: string, rows: [string, number][]) => ({
      name,
      total: sum(rows.map(([, v]) => v)),
      account_transactions: rows.map(([n, total]) => ({ name: n, total })),
    });
    const pnl = {
      code: 0,
      message: 'success',
      profit_and_loss: [
        section('Operating Income', [
          ['Sales', 50000],
          ['Services', 10000],
        ]),
        section('Cost of Goods Sold', [['Cost of Goods Sold', 20000]]),
        { name: 'Gross Profit', total: 40000 },
        section('Operating Expense', [
          ['Rent', 15000],
          ['Salaries', 12000.25],
        ]),
        section('Non Operating Income', [['Interest Income', 500]]),
        { name: 'Net Profit/Loss', total: 13499.75 },
      ],
    };
    const out = ask({ measure: 'profit', period: Q, inputs: [{ role: 'profit_and_loss', period: Q }] }, [
      pnl,
    ]);
    expect(out.words.startsWith(`**Net profit in Q4 FY 2025-26: ${inr(13499.75)}**`)).toBe(true);
    expect(out.words).toContain(`- Income ${inr(60000)}`);
    const e = ask({ measure: 'expenses', period: Q, inputs: [{ role: 'profit_and_loss', period: Q }] }, [
      pnl,
    ]);
    expect(e.words.startsWith(`**Expenses in Q4 FY 2025-26: ${inr(47000.25)}**`)).toBe(true);
  });

  const bills = {
    code: 0,
    message: 'success',
    bills: [
      {
        bill_id: '1',
        bill_number: 'B-1',
        vendor_name: 'Tata Steel Ltd',
        status: 'overdue',
        date: '2026-03-01',
        due_date: '2026-03-31',
        total: 40600,
        balance: 40600,
      },
      {
        bill_id: '2',
        bill_number: 'B-2',
        vendor_name: 'Tata Steel Limited',
        status: 'open',
        date: '2026-04-10',
        due_date: '2026-04-18',
        total: 12000,
        balance: 2000,
      },
      {
        bill_id: '3',
        bill_number: 'B-3',
        vendor_name: 'Shree Cement',
        status: 'paid',
        date: '2026-03-05',
        due_date: '2026-04-04',
        total: 9000,
        balance: 0,
      },
      {
        bill_id: '4',
        bill_number: 'B-4',
        vendor_name: 'Shree Cement',
        status: 'draft',
        date: '2026-04-12',
        due_date: '2026-04-20',
        total: 7000,
        balance: 7000,
      },
    ],
    page_context: { page: 1, per_page: 200, has_more_page: false },
  };

  it('what I owe my vendors: drafts left out, one vendor in two spellings named once', () => {
    const out = ask({ measure: 'payables.top', inputs: [{ role: 'bills' }] }, [bills]);
    expect(
      out.words.startsWith(
        `**You owe Tata Steel Ltd the most: ${inr(42600)}**, ${inr(40600)} of it overdue.`,
      ),
    ).toBe(true);
    expect(out.words).not.toContain('Shree Cement');
  });

  it('bills due this week, and what was already overdue', () => {
    const week = { from: '2026-04-13', to: '2026-04-19', grain: 'week' as const, label: 'this week' };
    const out = ask({ measure: 'payables.due', period: week, inputs: [{ role: 'bills' }] }, [bills]);
    expect(out.words.startsWith(`**${inr(2000)} falls due in this week**`)).toBe(true);
    expect(out.words).toContain('| B-2 | Tata Steel Ltd | 18/04/2026 |');
    expect(out.words).toContain(`Already overdue before then: ${inr(40600)} on 1 bill.`);
  });

  it('a page of a longer list: declined, not summed', () => {
    const page = { ...bills, page_context: { page: 1, per_page: 4, has_more_page: true } };
    const out = ask({ measure: 'payables.total', inputs: [{ role: 'bills' }] }, [page]);
    expect(out.declined).toBe(true);
    expect(out.words).not.toContain('₹');
  });
});

describe('a plain snake_case server', () => {
  it('GST from its parts when no total is given', () => {
    const gst = {
      from_date: '2026-03-01',
      to_date: '2026-03-31',
      output_tax: { cgst: 9000, sgst: 9000, igst: 4500.5 },
      input_tax_credit: { cgst: 3000, sgst: 3000, igst: 1200 },
    };
    const MAR = { from: '2026-03-01', to: '2026-03-31', grain: 'month' as const, label: 'March 2026' };
    const out = ask({ measure: 'gst.payable', period: MAR, inputs: [{ role: 'gst_summary', period: MAR }] }, [
      gst,
    ]);
    expect(out.words.startsWith(`**GST payable for March 2026: ${inr(15300.5)}**`)).toBe(true);
  });

  const sheet = {
    report_name: 'balance_sheet',
    as_of_date: TODAY,
    currency_code: 'INR',
    assets: [
      { account_name: 'ICICI Current A/c', amount: 250000 },
      { account_name: 'Petty Cash', amount: 5000 },
      { account_name: 'Sundry Debtors', amount: 90000 },
    ],
    liabilities: [{ account_name: 'Sundry Creditors', amount: 60000 }],
    equity: [{ account_name: 'Capital', amount: 285000 }],
  };
  const invoices = {
    data: [
      {
        number: 'S-1',
        customer: 'Verma Stores',
        issue_date: '2026-03-20',
        due_on: '2026-04-19',
        total_amount: 90000,
        amount_outstanding: 90000,
        state: 'sent',
      },
      {
        number: 'S-0',
        customer: 'Verma Stores',
        issue_date: '2026-01-10',
        due_on: '2026-02-09',
        total_amount: 30000,
        amount_outstanding: 0,
        state: 'paid',
      },
    ],
  };
  const bills = {
    data: [
      {
        number: 'P-1',
        supplier_name: 'Jain Metals',
        issue_date: '2026-04-01',
        due_on: '2026-05-01',
        total_amount: 60000,
        amount_outstanding: 60000,
        state: 'open',
      },
    ],
  };
  // Payments with no type field: which way each went is read from whom it names.
  const payments = {
    data: [
      {
        payment_date: '2026-02-19',
        amount: 30000,
        customer_name: 'Verma Stores',
        invoices: [{ invoice_number: 'S-0' }],
      },
      ...['2026-01-05', '2026-02-05', '2026-03-05', '2026-04-05'].map((d) => ({
        payment_date: d,
        amount: 20000,
        vendor_name: 'Landlord Estates',
      })),
    ],
  };

  it('will I run short of cash: opening cash, the customer’s habit, the rent that recurs', () => {
    const out = ask(
      {
        measure: 'cash.forecast',
        inputs: [
          { role: 'balance_sheet', asOf: TODAY },
          { role: 'invoices' },
          { role: 'bills' },
          { role: 'payments' },
        ],
      },
      [sheet, invoices, bills, payments],
    );
    expect(out.declined).toBe(false);
    expect(out.words).toContain(`Opening cash ${inr(255000)}`);
    // Verma Stores paid its last invoice 10 days late: S-1 is expected 10 days after its due date.
    expect(out.words).toContain(`${inr(90000)} expected in`);
    expect(out.words).toContain('Landlord Estates');
    // Week 3: S-1 in (19 April + 10 days), P-1 due 1 May and May's rent on the 5th out.
    expect(out.words).toContain(`| 3 | 29/04/2026 to 05/05/2026 | ${inr(90000)} | ${inr(80000)} |`);
  });

  it('cash accounts known by their type, and a cash line standing alone', () => {
    const typed = {
      assets: [
        { name: 'HDFC 0042', account_type: 'bank', balance: 120000 },
        { name: 'Cash and cash equivalents', balance: 3000 },
        { name: 'Trade receivables', account_type: 'accounts_receivable', balance: 50000 },
      ],
      liabilities: [{ name: 'Trade payables', balance: 20000 }],
      equity: [{ name: 'Capital', balance: 153000 }],
    };
    const out = ask({ measure: 'cash.today', inputs: [{ role: 'balance_sheet', asOf: TODAY }] }, [typed]);
    expect(out.words.startsWith(`**Cash and bank: ${inr(123000)}**`)).toBe(true);
  });

  it('money in the books’ own currency when it is not the business’s', () => {
    const usd = { ...sheet, currency_code: 'USD' };
    const out = ask({ measure: 'cash.today', inputs: [{ role: 'balance_sheet', asOf: TODAY }] }, [usd]);
    expect(out.words).toContain('2,55,000.00');
    expect(out.words).not.toContain('₹');
  });
});

describe('a business outside India', () => {
  it('money and dates in the business’s own formats', () => {
    const invoices = {
      Invoices: [
        {
          InvoiceNumber: 'INV-10',
          Contact: { Name: 'Bayside Club' },
          Date: '/Date(1767225600000+0000)/',
          DueDate: '2026-02-01',
          Total: 1250000,
          AmountDue: 1250000,
          Status: 'AUTHORISED',
        },
      ],
    };
    const out = answerAnalytic(
      { measure: 'receivables.overdue', today: TODAY, inputs: [{ role: 'invoices' }] },
      [invoices],
      us,
    );
    expect(out.words.startsWith(`**${usd(1250000)} is overdue** on 1 invoice, as of 04/15/2026.`)).toBe(true);
    expect(out.words).toContain('| INV-10 | Bayside Club | 02/01/2026 | 73 |');
  });
});
