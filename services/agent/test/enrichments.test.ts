import { describe, expect, it } from 'vitest';
import { enrichmentPrompt, formatInr, planEnrichments } from '../src/enrichments.ts';

describe('auto-enrichments (seed 003 §7)', () => {
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

  it('ranks a list, totals it and flags overdue items', () => {
    const rows = [
      { ContactName: 'Acme Corp', AmountDue: 50000, DaysOverdue: 120, IsOverdue: true },
      { ContactName: 'Zenith', AmountDue: 20000, DaysOverdue: 0, IsOverdue: false },
      { ContactName: 'Nair', AmountDue: 30000, DaysOverdue: 10, IsOverdue: true },
    ];
    const plan = planEnrichments([{ Invoices: rows }]);
    const byType = Object.fromEntries(plan.map((e) => [e.type, e.lines]));
    expect(byType.ranking?.[0]).toBe('1. Acme Corp: ₹50,000');
    expect(byType.ranking?.at(-1)).toBe('Lowest: Zenith: ₹20,000');
    expect(byType.currency).toEqual(['Total AmountDue across 3 record(s): ₹1,00,000 (1.00 lakh)']);
    expect(byType.alert).toEqual(['⚠️ 2 overdue item(s) totalling ₹80,000', '🔴 1 more than 90 days overdue']);
    expect(enrichmentPrompt(plan)).toMatch(/^AUTO-ENRICHMENTS TO APPLY/);
  });

  it('plans nothing for results without lists of numbers', () => {
    expect(planEnrichments([{ ok: true }, 'text'])).toEqual([]);
  });
});
