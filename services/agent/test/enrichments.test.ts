import { DEFAULT_BUSINESS_CONTEXT } from '@munim/db';
import { describe, expect, it } from 'vitest';
import { type Enrichment, enrichmentPrompt, formatInr, planEnrichments } from '../src/render/enrichments.ts';
import { formatsFor } from '../src/render/locale.ts';

/** Whole rupees as en-IN writes them, computed here and not by the code under test. */
const rupees = (n: number) =>
  new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', maximumFractionDigits: 0 }).format(n);
const byType = (plan: Enrichment[]) => Object.fromEntries(plan.map((e) => [e.type, e.lines]));
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('auto-enrichments: facts computed from the results by code', () => {
  it('formats rupees in lakhs and crores', () => {
    expect(formatInr(1234567)).toBe('₹12,34,567 (12.35 lakh)');
    expect(formatInr(25_000_000)).toBe('₹2,50,00,000 (2.50 crore)');
    expect(formatInr(999)).toBe('₹999');
  });

  it('computes a trend with ▲/▼/► and % change from a time series', () => {
    const [trend] = planEnrichments([
      {
        Months: [
          { Month: 'Jan', Revenue: 100000 },
          { Month: 'Feb', Revenue: 120000 },
          { Month: 'Mar', Revenue: 90000 },
          { Month: 'Apr', Revenue: 90100 },
        ],
      },
    ]).filter((e) => e.type === 'trend');
    expect(trend?.lines).toEqual([
      '▲ Revenue Feb: ₹1,20,000 (1.20 lakh) (+20.0% vs Jan)',
      '▼ Revenue Mar: ₹90,000 (-25.0% vs Feb)',
      '► Revenue Apr: ₹90,100 (+0.1% vs Mar)',
    ]);
  });

  it('ranks a list by a named measure, totals it and flags the overdue invoices', () => {
    const rows = [
      { ContactName: 'Acme Corp', AmountDue: 50000, DaysOverdue: 120, IsOverdue: true },
      { ContactName: 'Zenith', AmountDue: 20000, DaysOverdue: 0, IsOverdue: false },
      { ContactName: 'Nair', AmountDue: 30000, DaysOverdue: 10, IsOverdue: true },
    ];
    const plan = planEnrichments([{ Invoices: rows }]);
    const found = byType(plan);
    expect(found.ranking?.[0]).toBe(
      'Top customers by amount due: 1. Acme Corp ₹50,000; 2. Nair ₹30,000; 3. Zenith ₹20,000',
    );
    expect(found.ranking?.at(-1)).toBe('Lowest amount due: Zenith ₹20,000');
    expect(found.currency).toEqual(['Total amount due of all 3 invoices: ₹1,00,000 (1.00 lakh)']);
    expect(found.alert).toEqual([
      '⚠️ 2 invoices overdue, ₹80,000 due',
      '🔴 1 of them more than 90 days overdue',
    ]);
    expect(enrichmentPrompt(plan)).toMatch(/^AUTO-ENRICHMENTS TO APPLY/);
  });

  it('plans nothing for results without lists of numbers', () => {
    expect(planEnrichments([{ ok: true }, 'text'])).toEqual([]);
  });
});

describe('a trend only over a real period series', () => {
  it('orders months, quarters and years and compares each with the one before', () => {
    const months = [
      { Month: '2026-02', NetTax: 6000 },
      { Month: '2025-12', NetTax: 24000 },
      { Month: '2026-01', NetTax: 32000 },
    ];
    const [trend] = planEnrichments([{ ByMonth: months }]).filter((e) => e.type === 'trend');
    expect(trend?.lines).toEqual([
      `▲ Net tax Jan 2026: ${rupees(32000)} (+33.3% vs Dec 2025)`,
      `▼ Net tax Feb 2026: ${rupees(6000)} (-81.3% vs Jan 2026)`,
    ]);
    const quarters = planEnrichments([
      {
        Quarters: [
          { Quarter: 'Q1 2026', Revenue: 100 },
          { Quarter: 'Q2 2026', Revenue: 150 },
        ],
      },
    ]);
    expect(byType(quarters).trend).toEqual([`▲ Revenue Q2 2026: ${rupees(150)} (+50.0% vs Q1 2026)`]);
    const years = planEnrichments([
      {
        Years: [
          { FY: 'FY 2024-25', NetProfit: 200 },
          { FY: 'FY 2025-26', NetProfit: 100 },
        ],
      },
    ]);
    expect(byType(years).trend).toEqual([`▼ Net profit FY 2025-26: ${rupees(100)} (-50.0% vs FY 2024-25)`]);
  });

  it('never across records: invoices sorted by date are not a trend', () => {
    const invoices = [
      { InvoiceNumber: 'INV-0075', Date: '2026-10-25', AmountDue: 9150.9 },
      { InvoiceNumber: 'INV-0076', Date: '2026-10-28', AmountDue: 10124.4 },
      { InvoiceNumber: 'INV-0078', Date: '2026-11-07', AmountDue: 31171 },
    ];
    expect(byType(planEnrichments([{ Invoices: invoices }])).trend).toBeUndefined();
  });

  it('not when a period repeats, grains are mixed, or there is one period only', () => {
    const repeated = [
      { Month: '2026-01', Amount: 1 },
      { Month: '2026-01', Amount: 2 },
      { Month: '2026-02', Amount: 3 },
    ];
    const mixed = [
      { Period: '2026-01', Amount: 1 },
      { Period: 'Q1 2026', Amount: 2 },
    ];
    const single = [{ Month: '2026-01', Amount: 1 }];
    for (const rows of [repeated, mixed, single])
      expect(byType(planEnrichments([{ Rows: rows }])).trend, JSON.stringify(rows)).toBeUndefined();
  });
});

describe('sums only of like with like, and of all or explicitly of one page', () => {
  const accounts = [
    { Code: '1000', Name: 'Bank', Type: 'ASSET', Balance: 800000 },
    { Code: '1100', Name: 'Receivables', Type: 'ASSET', Balance: 200000 },
    { Code: '2000', Name: 'Payables', Type: 'LIABILITY', Balance: 300000 },
    { Code: '4000', Name: 'Sales', Type: 'REVENUE', Balance: 4000000 },
    { Code: '6000', Name: 'Rent', Type: 'EXPENSE', Balance: 360000 },
  ];

  it('totals the accounts of each type apart, never assets, liabilities and revenue together', () => {
    const lines = byType(planEnrichments([{ Accounts: accounts }])).currency ?? [];
    expect(lines).toContain(`Total balance of both asset accounts: ${rupees(1_000_000)} (10.00 lakh)`);
    expect(lines.join('\n')).toContain(`the liability account: ${rupees(300000)}`);
    const everything = rupees(sum(accounts.map((a) => a.Balance)));
    expect(lines.join('\n')).not.toContain(everything);
    // Nor are they ranked against each other.
    expect(byType(planEnrichments([{ Accounts: accounts }])).ranking).toBeUndefined();
  });

  it('totals each currency apart', () => {
    const invoices = [
      { InvoiceNumber: 'A', CurrencyCode: 'INR', Total: 1000 },
      { InvoiceNumber: 'B', CurrencyCode: 'USD', Total: 50 },
      { InvoiceNumber: 'C', CurrencyCode: 'USD', Total: 25 },
    ];
    const lines = byType(planEnrichments([{ Invoices: invoices }])).currency ?? [];
    expect(lines).toHaveLength(2);
    expect(lines.join('\n')).toMatch(/both USD invoices: \$75/);
    expect(lines.join('\n')).not.toMatch(/1,075|1,050/);
  });

  it('says a total is of one page, and of how many in all, when the list has more pages', () => {
    const invoices = Array.from({ length: 50 }, (_, i) => ({
      InvoiceNumber: `INV-${i}`,
      ContactName: `Customer ${i % 5}`,
      AmountDue: 1000,
      DaysOverdue: i < 6 ? 10 : 0,
    }));
    const plan = planEnrichments([
      { Invoices: invoices, Page: 1, PageSize: 50, TotalCount: 81, TotalPages: 2 },
    ]);
    const found = byType(plan);
    expect(found.currency).toEqual([
      `Total amount due of the 50 invoices on page 1 of 2 (81 in all): ${rupees(50000)}`,
    ]);
    for (const line of plan
      .flatMap((e) => e.lines)
      .filter((l) => !l.startsWith('Lowest') && !l.startsWith('🔴')))
      expect(line, line).toMatch(/page 1 of 2/);
    expect(found.alert?.[0]).toBe(
      `⚠️ 6 of the 50 invoices on page 1 of 2 (81 in all) are overdue, ${rupees(6000)} due`,
    );
  });
});

describe('rankings by a named measure, of one kind of record', () => {
  it('adds up each contact’s documents before ranking', () => {
    const bills = [
      { BillNumber: 'B1', ContactName: 'Mehta', AmountDue: 100 },
      { BillNumber: 'B2', ContactName: 'Gupta', AmountDue: 250 },
      { BillNumber: 'B3', ContactName: 'Mehta', AmountDue: 200 },
      { BillNumber: 'B4', ContactName: 'Swift', AmountDue: 50 },
    ];
    expect(byType(planEnrichments([{ Bills: bills }])).ranking).toEqual([
      `Top vendors by amount due: 1. Mehta ${rupees(300)}; 2. Gupta ${rupees(250)}; 3. Swift ${rupees(50)}`,
      `Lowest amount due: Swift ${rupees(50)}`,
    ]);
  });

  it('not of fewer than three, nor of payments received and made together', () => {
    const two = [
      { InvoiceNumber: 'A', ContactName: 'X', AmountDue: 1 },
      { InvoiceNumber: 'B', ContactName: 'Y', AmountDue: 2 },
      { InvoiceNumber: 'C', ContactName: 'Y', AmountDue: 3 },
    ];
    expect(byType(planEnrichments([{ Invoices: two }])).ranking).toBeUndefined();
    const payments = [
      { PaymentNumber: 'P1', ContactName: 'A', Type: 'RECEIVE', Amount: 100 },
      { PaymentNumber: 'P2', ContactName: 'B', Type: 'SPEND', Amount: 200 },
      { PaymentNumber: 'P3', ContactName: 'C', Type: 'RECEIVE', Amount: 300 },
      { PaymentNumber: 'P4', ContactName: 'D', Type: 'SPEND', Amount: 400 },
    ];
    const found = byType(planEnrichments([{ Payments: payments }]));
    expect(found.ranking).toBeUndefined();
    expect(found.currency).toEqual([
      `Total amount of both payments received: ${rupees(400)}`,
      `Total amount of both payments paid out: ${rupees(600)}`,
    ]);
  });
});

describe('alerts that count what they say', () => {
  it('counts only what is past due: not yet due invoices are not overdue', () => {
    const notDue = [
      {
        InvoiceNumber: 'INV-1',
        ContactName: 'A',
        DueDate: '2026-12-07',
        DaysOverdue: 0,
        IsOverdue: false,
        AmountDue: 31171,
      },
      {
        InvoiceNumber: 'INV-2',
        ContactName: 'B',
        DueDate: '2026-12-11',
        DaysOverdue: 0,
        IsOverdue: false,
        AmountDue: 63897,
      },
    ];
    expect(byType(planEnrichments([{ Invoices: notDue }])).alert).toBeUndefined();
  });

  it('counts the invoices of an aging report, not its customers', () => {
    const aging = {
      ReportName: 'Aged Receivables',
      Contacts: [
        {
          ContactName: 'A',
          Current: 100,
          Days1To30: 50,
          Days31To60: 0,
          Days61To90: 0,
          Over90Days: 200,
          Total: 350,
        },
        {
          ContactName: 'B',
          Current: 0,
          Days1To30: 25,
          Days31To60: 0,
          Days61To90: 0,
          Over90Days: 0,
          Total: 25,
        },
      ],
      Invoices: [
        { InvoiceNumber: 'I1', ContactName: 'A', AmountDue: 100, DaysOverdue: 0 },
        { InvoiceNumber: 'I2', ContactName: 'A', AmountDue: 50, DaysOverdue: 12 },
        { InvoiceNumber: 'I3', ContactName: 'A', AmountDue: 200, DaysOverdue: 140 },
        { InvoiceNumber: 'I4', ContactName: 'B', AmountDue: 25, DaysOverdue: 3 },
      ],
    };
    expect(byType(planEnrichments([{ tool: 'get_aged_receivables_report', result: aging }])).alert).toEqual([
      `⚠️ 3 invoices overdue, ${rupees(275)} due`,
      '🔴 1 of them more than 90 days overdue',
    ]);
  });

  it('counts contacts with overdue balances as contacts', () => {
    const customers = [
      { Name: 'A', OutstandingBalance: 100, OverdueBalance: 60 },
      { Name: 'B', OutstandingBalance: 0, OverdueBalance: 0 },
      { Name: 'C', OutstandingBalance: 40, OverdueBalance: 40 },
    ];
    expect(byType(planEnrichments([{ Customers: customers }])).alert).toEqual([
      `⚠️ 2 of the 3 customers have overdue balances, ${rupees(100)} in all`,
    ]);
  });
});

describe('in the business’s own currency and number system', () => {
  it('writes totals of a US business in dollars and millions', () => {
    const us = formatsFor({
      ...DEFAULT_BUSINESS_CONTEXT,
      currency: 'USD',
      locale: 'en-US',
      numberSystem: 'international',
    });
    const rows = [
      { InvoiceNumber: 'A', Total: 1_500_000 },
      { InvoiceNumber: 'B', Total: 1_000_000 },
    ];
    const [total] = planEnrichments([{ Invoices: rows }], us).filter((e) => e.type === 'currency');
    expect(total?.lines).toEqual(['Total of both invoices: $2,500,000 (2.50 million)']);
    expect(total?.description).toMatch(/USD/);
  });
});
