// Budget against actual on two shapes of budgets (Xero's budgets with monthly balances, a plain list
// of months, years and spans), each against a profit and loss; every figure is worked out by hand.
import type { AnalyticRequest } from '@munim/contracts';
import { DEFAULT_BUSINESS_CONTEXT } from '@munim/db';
import { describe, expect, it } from 'vitest';
import { answerAnalytic } from '../src/analytics/answer.ts';
import { readBudgets } from '../src/analytics/budgets.ts';
import { formatsFor } from '../src/render/locale.ts';

const fmt = formatsFor(DEFAULT_BUSINESS_CONTEXT);
const TODAY = '2026-11-28';
const NOV = { from: '2026-11-01', to: '2026-11-28', grain: 'month' as const, label: 'November 2026 to date' };
const Q2 = { from: '2026-07-01', to: '2026-09-30', grain: 'quarter' as const, label: 'Q2 FY 2026-27' };

const ask = (period: AnalyticRequest['period'] & object, pnl: unknown, budgets: unknown) =>
  answerAnalytic(
    {
      measure: 'budget',
      period,
      today: TODAY,
      inputs: [
        { role: 'profit_and_loss', period },
        { role: 'budgets', period },
      ],
    },
    [pnl, budgets],
    fmt,
  );

/** A Xero profit and loss row report. */
const row = (label: string, value: number) => ({
  RowType: 'Row',
  Cells: [{ Value: label }, { Value: value.toFixed(2) }],
});
const xeroPnl = {
  Reports: [
    {
      ReportName: 'Profit and Loss',
      Rows: [
        { RowType: 'Header', Cells: [{ Value: '' }, { Value: '28 Nov 26' }] },
        {
          RowType: 'Section',
          Title: 'Income',
          Rows: [
            row('Sales', 150000),
            { RowType: 'SummaryRow', Cells: [{ Value: 'Total Income' }, { Value: '150000.00' }] },
          ],
        },
        {
          RowType: 'Section',
          Title: 'Less Operating Expenses',
          Rows: [
            row('Rent & Rates', 30000),
            row('Wages and Salaries', 95000),
            row('Travel', 4000),
            row('Office Expenses', 2500),
            { RowType: 'SummaryRow', Cells: [{ Value: 'Total Operating Expenses' }, { Value: '131500.00' }] },
          ],
        },
        { RowType: 'Section', Rows: [row('Net Profit', 18500)] },
      ],
    },
  ],
};
const balances = (...months: [string, number][]) => months.map(([Period, Amount]) => ({ Period, Amount }));
const xeroBudgets = {
  Budgets: [
    {
      BudgetID: 'b-1',
      Type: 'OVERALL',
      Description: 'Overall Budget',
      BudgetLines: [
        {
          AccountCode: '200',
          AccountName: 'Sales',
          BudgetBalances: balances(['2026-10', 170000], ['2026-11', 180000]),
        },
        {
          AccountCode: '469',
          AccountName: 'Rent and rates',
          BudgetBalances: balances(['2026-10', 30000], ['2026-11', 30000]),
        },
        { AccountCode: '477', AccountName: 'Wages & Salaries', BudgetBalances: balances(['2026-11', 90000]) },
        { AccountCode: '493', AccountName: 'Travel', BudgetBalances: balances(['2026-11', 6000]) },
      ],
    },
    {
      BudgetID: 'b-2',
      Type: 'TRACKING',
      Description: 'North region',
      BudgetLines: [{ AccountName: 'Sales', BudgetBalances: balances(['2026-11', 999999]) }],
    },
  ],
};

/** A plain profit and loss and a plain list of budgets by month, financial year and span. */
const plainPnl = {
  Income: [{ Name: 'Sales', Amount: 500000 }],
  OperatingExpenses: [
    { Name: 'RENT', Amount: 78000 },
    { Name: 'Marketing', Amount: 24000 },
    { Name: 'Software.', Amount: 7500 },
  ],
};
const plainBudgets = [
  { account: 'Rent', month: '2026-07', amount: 25000 },
  { account: 'Rent', month: '2026-08', amount: 25000 },
  { account: 'Rent', month: '2026-09', amount: 25000 },
  { account: 'Rent', month: '2026-10', amount: 25000 },
  { account: 'marketing', fy: 'FY 2026-27', amount: 120000 },
  { account: 'Software', from: '2026-08-01', to: '2026-10-31', amount: 9000 },
];

describe('budget against actual', () => {
  it('Xero budgets: monthly balances pro-rated to the days so far, spending and income apart', () => {
    const a = ask(NOV, xeroPnl, xeroBudgets);
    expect(a.declined).toBe(false);
    if (a.computed.kind !== 'budget') throw new Error(a.words);
    const [spend, income] = a.computed.sides;
    // 28 of November's 30 days: rent 30,000 → 28,000; wages 90,000 → 84,000; travel 6,000 → 5,600.
    expect(spend?.side).toBe('expenses');
    expect(spend?.result.totals).toEqual({
      budget: 117600,
      actual: 129000,
      variance: 11400,
      variancePct: 9.69,
    });
    expect(spend?.result.lines.map((l) => [l.name, l.budget, l.actual, l.variance, l.variancePct])).toEqual([
      ['Rent & Rates', 28000, 30000, 2000, 7.14],
      ['Wages and Salaries', 84000, 95000, 11000, 13.1],
      ['Travel', 5600, 4000, -1600, -28.57],
    ]);
    expect(spend?.result.unbudgeted).toEqual([{ name: 'Office Expenses', actual: 2500 }]);
    // Sales 180,000 → 168,000; the tracking budget's 999,999 is not added to the overall one.
    expect(income?.result.totals).toEqual({
      budget: 168000,
      actual: 150000,
      variance: -18000,
      variancePct: -10.71,
    });
    expect(a.words).toContain(
      `**Spending in November 2026 to date: ${fmt.money(129000)} against a budget of ${fmt.money(117600)}, over budget by ${fmt.money(11400)} (+${fmt.percent(0.0969)})**.`,
    );
    expect(a.words).toContain(
      `Income in November 2026 to date: ${fmt.money(150000)} against a budget of ${fmt.money(168000)}, below budget by ${fmt.money(18000)}`,
    );
    // The lines that differ most first.
    const order = [
      'Sales (income)',
      'Wages and Salaries (spending)',
      'Rent & Rates (spending)',
      'Travel (spending)',
    ];
    const at = order.map((n) => a.words.indexOf(n));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((x, y) => x - y)).toEqual(at);
    expect(a.words).toContain(`−${fmt.money(18000)}`);
    expect(a.words).toMatch(/in calendar days/);
    expect(a.words).toContain('28/30 days');
    expect(a.words).toContain(`Office Expenses ${fmt.money(2500)}`);
  });

  it('a plain list: months, a financial year and a span, in whole months of a quarter; names matched by meaning', () => {
    const a = ask(Q2, plainPnl, { budgets: plainBudgets });
    if (a.computed.kind !== 'budget') throw new Error(a.words);
    expect(a.computed.sides.map((s) => s.side)).toEqual(['expenses']);
    const r = a.computed.sides[0]?.result;
    // Rent 3 × 25,000 (October's is outside); marketing 3/12 of 1,20,000; software 2 of its 3 months of 9,000.
    expect(r?.lines.map((l) => [l.name, l.budget, l.actual, l.variance, l.variancePct])).toEqual([
      ['RENT', 75000, 78000, 3000, 4],
      ['Marketing', 30000, 24000, -6000, -20],
      ['Software.', 6000, 7500, 1500, 25],
    ]);
    expect(r?.totals).toEqual({ budget: 111000, actual: 109500, variance: -1500, variancePct: -1.35 });
    expect(a.words).toContain(
      `**Spending in Q2 FY 2026-27: ${fmt.money(109500)} against a budget of ${fmt.money(111000)}, under budget by ${fmt.money(1500)} (−${fmt.percent(0.0135)})**.`,
    );
    expect(a.words).toMatch(/whole calendar months/);
    expect(a.words).toContain('3/12 months');
  });

  it('declines in words when no budget covers the period, or the books keep none', () => {
    const outside = ask(
      { ...Q2, from: '2025-04-01', to: '2025-06-30', label: 'Q1 FY 2025-26' },
      plainPnl,
      plainBudgets,
    );
    expect(outside.declined).toBe(true);
    expect(outside.words).toMatch(/none covers Q1 FY 2025-26/);
    const none = ask(NOV, xeroPnl, { Budgets: [] });
    expect(none.declined).toBe(true);
    expect(none.words).toMatch(/no budgets/);
    const unreadable = ask(NOV, xeroPnl, { Budgets: [{ Description: 'Overall' }] });
    expect(unreadable.declined).toBe(true);
    expect(unreadable.words).toMatch(/couldn't read the budgets/);
  });

  it('reads QuickBooks budgets: a day names its month, the account by its reference', () => {
    const qb = {
      QueryResponse: {
        Budget: [
          {
            Name: 'FY27',
            BudgetEntryType: 'Monthly',
            BudgetDetail: [
              { BudgetDate: '2026-11-01', Amount: 500, AccountRef: { value: '42', name: 'Utilities' } },
              { BudgetDate: '2026-12-01', Amount: 600, AccountRef: { value: '42', name: 'Utilities' } },
            ],
          },
        ],
      },
    };
    expect(readBudgets(qb)).toEqual([
      { name: 'Utilities', period: { from: '2026-11-01', to: '2026-11-30' }, amount: 500 },
      { name: 'Utilities', period: { from: '2026-12-01', to: '2026-12-31' }, amount: 600 },
    ]);
  });
});
