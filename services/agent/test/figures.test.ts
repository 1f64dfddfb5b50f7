// The figures an answer states, as written and to the precision written; what is no figure is left out.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractFigures } from '../src/answer/figures.ts';
import { formatsFor } from '../src/render/locale.ts';

const one = (text: string) => {
  const figures = extractFigures(text);
  expect(figures, text).toHaveLength(1);
  return figures[0]!;
};

describe('figures of an answer', () => {
  it.each([
    ['₹1,17,634.20', 117634.2, 0.005, 'money'],
    ['Rs. 5,000', 5000, 500, 'money'],
    ['Rs 4,999', 4999, 0.5, 'money'],
    ['INR 2,500.50', 2500.5, 0.005, 'money'],
    ['$1,234,567.89', 1234567.89, 0.005, 'money'],
    ['₹12,34,567', 1234567, 0.5, 'money'],
    ['about ₹1.2 lakh', 120000, 6000, 'money'],
    ['₹1.2 lakh', 120000, 5000, 'money'],
    ['1.18 lakh', 118000, 500, 'money'],
    ['₹3.5 crore', 35000000, 500000, 'money'],
    ['12.5L', 1250000, 5000, 'money'],
    ['2 Cr', 20000000, 5000000, 'money'],
    ['45k', 45000, 500, 'money'],
    ['5000 rupees', 5000, 500, 'money'],
    ['2.5 lakh rupaye', 250000, 5000, 'money'],
    ['1.5 million', 1500000, 50000, 'money'],
    ['dedh lakh', 150000, 25000, 'money'],
    ['saade teen lakh', 350000, 25000, 'money'],
    ['das hazaar', 10000, 5000, 'money'],
    ['12.5%', 12.5, 0.05, 'percent'],
    ['12%', 12, 0.5, 'percent'],
    ['10%', 10, 0.5, 'percent'],
    ['12.5 percent', 12.5, 0.05, 'percent'],
    ['18 per cent', 18, 0.5, 'percent'],
    ['12 invoices', 12, 0.5, 'count'],
    ['20 invoices', 20, 0.5, 'count'],
    ['पाँच लाख', 500000, 50000, 'money'],
    ['डेढ़ करोड़', 15000000, 2500000, 'money'],
    ['AUD 1,250.50', 1250.5, 0.005, 'money'],
    ['1,250 usd', 1250, 5, 'money'],
    ['12.5 pc', 12.5, 0.05, 'percent'],
    ['₹4 lakh 20 hazaar', 420000, 5000, 'money'],
    ['1 crore 20 lakh', 12000000, 500000, 'money'],
    ['2 lakh 50 thousand', 250000, 5000, 'money'],
    ['3 overdue bills', 3, 0.5, 'count'],
    ['a total of 4,56,789.10', 456789.1, 0.005, 'number'],
    ['current ratio 1.85', 1.85, 0.005, 'number'],
  ])('%s is %d ± %d (%s)', (text, value, precision, kind) => {
    const f = one(text);
    expect(f.value).toBeCloseTo(value, 6);
    expect(f.precision).toBeCloseTo(precision, 9);
    expect(f.kind).toBe(kind);
  });

  it('names a figure as written, its currency with it', () => {
    expect(extractFigures('Acme owes ₹4,50,000 and Beta 1.2 lakh.').map((f) => f.text)).toEqual([
      '₹4,50,000',
      '1.2 lakh',
    ]);
  });

  it.each([
    'INV-0042 was sent on 12/03/2025.',
    'Due 2025-04-11, paid on 15 March 2025, next on March 31, 2025.',
    'For FY 2024-25 (April 2024 to March 2025), Q1 and H2.',
    'GSTIN 27AAPFU0939F1ZV, PAN AAPFU0939F.',
    'Call +91 98765 43210 or 9876543210.',
    '1. Acme Corp\n2. Beta Traders\n3) Gamma Ltd',
    'The top 5 customers, page 2, step 3.',
    'INV-0042 is 45 days overdue; it has been 3 months.',
    'Bill BILL/2025/0007 and #42 and No. 7.',
    'The meeting is at 10:30 am, or 5 pm.',
    'Section 80C and GSTR-3B, form 16, rule 36(4).',
    '| # | Invoice |\n| 1 | INV-001 |\n| 2 | INV-002 |',
    'In 2025 you did well.',
    'HSN 998314 and SAC 998313, pincode 400001.',
    'UTR 123456789012 from A/c 50100123456789, PO 4500012345.',
    'See invoice 1042, cheque no 004512.',
    'Aging: 0-30 days, 31-60 days, 91-180 days.',
    'It is 1.2x last year, on the 15th.',
  ])('no figure in %j', (text) => {
    expect(extractFigures(text)).toEqual([]);
  });

  it('reads every way the business formats money as the amount it is', () => {
    const f = formatsFor();
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 99_999_999_99 }), (paise) => {
        const value = paise / 100;
        const money = one(`Total: ${f.money(value)}.`);
        expect(Math.abs(money.value - value)).toBeLessThanOrEqual(money.precision + 1e-6);
        const whole = extractFigures(`Total: ${f.large(value)}.`);
        for (const figure of whole)
          expect(Math.abs(figure.value - value), figure.text).toBeLessThanOrEqual(
            figure.precision * 2 + 1e-6,
          );
      }),
    );
  });
});
