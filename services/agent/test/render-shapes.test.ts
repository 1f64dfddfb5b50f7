// The renderers on a document and on results cut short, on a shape no renderer knows (shown whole,
// without totals nobody gave), and on a list when the user asked what is overdue.
import { describe, expect, it } from 'vitest';
import { planEnrichments } from '../src/render/enrichments.ts';
import { renderResults } from '../src/render/format.ts';
import { inr, us, usd } from './render-formats.ts';

describe('documents and cut results', () => {
  it('a journal entry is a document with its debit and credit lines, not a trial balance', () => {
    const lines = [
      {
        AccountName: 'Salaries & Wages',
        Description: 'October salaries',
        DebitAmount: 68000,
        CreditAmount: 0,
      },
      { AccountName: 'Bank', Description: 'October salaries', DebitAmount: 0, CreditAmount: 68000 },
    ];
    const entry = {
      JournalEntryId: 'f0e1d2c3-0000-4000-8000-000000000009',
      JournalNumber: 'JE-0039',
      Date: '2026-10-31',
      Narration: 'Salaries for October',
      Lines: lines,
      TotalDebit: 68000,
      TotalCredit: 68000,
    };
    const text = renderResults([{ tool: 'get_journal_entry', result: entry }]);
    expect(text).toMatch(/^### Journal JE-0039\n/);
    expect(text).not.toMatch(/Trial balance/);
    expect(text).toContain('- Narration: Salaries for October');
    expect(text).toContain(`| October salaries | Salaries & Wages | ${inr(68000)} |  |`);
    expect(text).toContain(`| October salaries | Bank |  | ${inr(68000)} |`);
    expect(text).toContain(`| **Total debit** | **${inr(68000)}** |`);
  });

  it('a read of one Xero invoice, wrapped in a list of one, is that invoice', () => {
    const invoice = {
      InvoiceID: 'x',
      InvoiceNumber: 'INV-0042',
      Contact: { Name: 'Ridgeway University' },
      Status: 'PAID',
      LineItems: [{ Description: 'Training', Quantity: 2, UnitAmount: 500, LineAmount: 1000 }],
      SubTotal: 1000,
      TotalTax: 150,
      Total: 1150,
      AmountDue: 0,
      AmountPaid: 1150,
      CurrencyCode: 'USD',
    };
    const result = {
      Id: 'r-1',
      Status: 'OK',
      ProviderName: 'munim',
      DateTimeUTC: '/Date(1767225600000)/',
      Invoices: [invoice],
    };
    const text = renderResults([{ tool: 'get_invoice', result }], { formats: us });
    expect(text).toMatch(/^### Invoice INV-0042 — Ridgeway University/);
    expect(text).toContain(`| Training | 2 | ${usd(500)} | ${usd(1000)} |`);
    expect(text).toContain('- Status: Paid');
    expect(text).toContain(`| **Total** | **${usd(1150)}** |`);
  });

  it('a list cut to fit says how many there were and that the rest is not shown', () => {
    const bills = Array.from({ length: 3 }, (_, i) => ({
      BillNumber: `BILL-${i}`,
      ContactName: 'V',
      Total: 100,
    }));
    const text = renderResults([
      { tool: 'get_bills', result: { Bills: bills, truncated: true, total_items: 40, shown_items: 3 } },
    ]);
    expect(text).toContain('Showing the first 3 of 40 bills; the rest did not fit in one answer.');
    expect(text).not.toContain('**Total**');
  });
});

describe('a shape no renderer knows', () => {
  it('is shown whole as a plain table, with no totals and no highlights invented', () => {
    const result = {
      metrics: [
        { metric: 'Revenue growth', value: 12.5, unit: 'percent' },
        { metric: 'Days sales outstanding', value: 41, unit: 'days' },
        { metric: 'Headcount', value: 18, unit: 'people' },
      ],
      generated_for: 'Q1',
    };
    const text = renderResults([{ tool: 'get_kpi_snapshot', result }]);
    expect(text).toContain('| Metric | Value | Unit |');
    expect(text).toContain('| Days sales outstanding | 41 | days |');
    expect(text).toContain('- Generated for: Q1');
    expect(text).not.toMatch(/Total|₹/);
    expect(planEnrichments([{ tool: 'get_kpi_snapshot', result }])).toEqual([]);
  });
});

describe('a list when the user asked what is overdue', () => {
  const invoice = (n: number, days: number) => ({
    InvoiceNumber: `INV-${n}`,
    ContactName: 'A',
    AmountDue: 100,
    DaysOverdue: days,
    IsOverdue: days > 0,
  });

  it('shows the overdue ones and says how many on the page are not', () => {
    const text = renderResults(
      [{ tool: 'get_all_invoices', result: { Invoices: [invoice(1, 5), invoice(2, 0), invoice(3, 0)] } }],
      {
        query: 'which invoices are overdue',
      },
    );
    expect(text).toMatch(/^### Overdue invoices/);
    expect(text).toContain('| INV-1 |');
    expect(text).not.toContain('INV-2');
    expect(text).toContain('The other 2 invoices are not overdue.');
  });

  it('says so when none is', () => {
    const text = renderResults(
      [{ tool: 'get_all_invoices', result: { Invoices: [invoice(1, 0), invoice(2, 0)] } }],
      {
        query: 'overdue invoices',
      },
    );
    expect(text).toContain('None of the 2 invoices is overdue.');
    expect(text).not.toContain('INV-1');
  });
});
