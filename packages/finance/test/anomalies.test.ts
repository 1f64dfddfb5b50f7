import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Movement, paymentsOutOfPattern, unusualExpenses } from '../src/index.ts';

/**
 * Unusual spending, against figures worked by hand (a leap February in the history, a month that
 * opens a financial year, a line with nothing spent before), and on generated books against the
 * rule restated here: flagged exactly when the month is at least factor × the trailing average.
 */

const spend = (date: string, amount: number, category?: string, party?: string): Movement => ({
  date,
  amount: -amount,
  ...(category !== undefined ? { category } : {}),
  ...(party !== undefined ? { party } : {}),
});

describe('unusual expense lines', () => {
  const movements: Movement[] = [
    spend('2028-01-10', 10_000, 'Rent', 'Landlord'),
    spend('2028-02-29', 10_000, 'Rent', 'Landlord'),
    spend('2028-03-10', 10_000, 'Rent', 'Landlord'),
    spend('2028-04-10', 20_000, 'Rent', 'Landlord'), // 2 × 10,000: flagged (at the factor counts)
    spend('2028-01-05', 1_000, 'Marketing', 'Ads Co'),
    spend('2028-03-05', 2_000, 'Marketing', 'Ads Co'), // Feb nothing: average (1,000 + 0 + 2,000) / 3 = 1,000
    spend('2028-04-05', 1_999.99, 'Marketing', 'Ads Co'), // below 2,000: not flagged
    spend('2028-04-20', 5_000, 'Legal', 'Lawyer'), // nothing before: new
    spend('2028-04-21', 50, 'Tea'), // new, but below minAmount when given
    { date: '2028-03-15', amount: 500_000, category: 'Sales', party: 'Acme' }, // money in: not spend
    { date: '2028-04-15', amount: 5_000, category: 'Rent', party: 'Landlord' }, // a refund does not offset spend
  ];

  it('flags lines at twice their trailing average and reports new lines apart', () => {
    const r = unusualExpenses(movements, { month: '2028-04' });
    expect(r.monthsCounted).toEqual(['2028-01', '2028-02', '2028-03']);
    expect(r.unusual.map((f) => [f.dimension, f.name, f.amount, f.trailingAverage, f.ratio])).toEqual([
      ['category', 'Rent', 20_000, 10_000, 2],
      ['vendor', 'Landlord', 20_000, 10_000, 2],
    ]);
    expect(r.unusual[0]?.trailing).toEqual([
      { month: '2028-01', amount: 10_000 },
      { month: '2028-02', amount: 10_000 },
      { month: '2028-03', amount: 10_000 },
    ]);
    expect(r.new.map((f) => [f.dimension, f.name, f.amount, f.trailingAverage, f.ratio])).toEqual([
      ['category', 'Legal', 5_000, 0, null],
      ['vendor', 'Lawyer', 5_000, 0, null],
      ['category', 'Tea', 50, 0, null],
    ]);
    expect(
      unusualExpenses(movements, { month: '2028-04', minAmount: 100 }).new.map((f) => f.name),
    ).not.toContain('Tea');
    expect(
      unusualExpenses(movements, { month: '2028-04', factor: 1.9 }).unusual.map((f) => f.name),
    ).toContain('Marketing');
  });

  it('counts only months the books cover', () => {
    // The books start in February: January is unknown, not a month of zero spend.
    const r = unusualExpenses(
      movements.filter((m) => m.date >= '2028-02-01'),
      { month: '2028-04' },
    );
    expect(r.monthsCounted).toEqual(['2028-02', '2028-03']);
    expect(r.unusual.find((f) => f.name === 'Marketing')).toBeUndefined(); // (0 + 2,000) / 2 = 1,000
    expect(unusualExpenses(movements, { month: '2028-01' })).toMatchObject({
      monthsCounted: [],
      unusual: [],
    });
  });

  it('looks back across the financial year', () => {
    const r = unusualExpenses(
      [
        spend('2027-01-31', 3_000, 'Audit'),
        spend('2027-03-31', 3_000, 'Audit'),
        spend('2027-04-01', 4_000, 'Audit'), // average (3,000 + 0 + 3,000) / 3 = 2,000; 4,000 is 2×
      ],
      { month: '2027-04' },
    );
    expect(r.unusual.map((f) => [f.name, f.trailingAverage, f.ratio])).toEqual([['Audit', 2_000, 2]]);
  });

  it('takes a day for its month', () => {
    expect(unusualExpenses(movements, { month: '2028-04-30' }).month).toBe('2028-04');
  });

  it('refuses a month that is not one', () => {
    expect(() => unusualExpenses(movements, { month: '2028-13' })).toThrow(RangeError);
  });

  it('never flags a line below factor × its average, and flags every line at or above it', () => {
    const DAY = 86_400_000;
    const start = Date.UTC(2027, 10, 1) / DAY; // 1 Nov 2027 … 30 Apr 2028
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            day: fc.integer({ min: start, max: start + 181 }),
            cat: fc.constantFrom('Rent', 'Power', 'Fuel', 'Travel'),
            paise: fc.integer({ min: -100_000, max: 2_000_000 }),
          }),
          { maxLength: 60 },
        ),
        fc.constantFrom(1.5, 2, 3),
        fc.integer({ min: 1, max: 4 }),
        (rows, factor, trailingMonths) => {
          const ms = rows.map((r) => ({
            date: new Date(r.day * DAY).toISOString().slice(0, 10),
            amount: -r.paise / 100,
            category: r.cat,
          }));
          const month = '2028-04';
          const res = unusualExpenses(ms, { month, factor, trailingMonths });
          const first = ms.map((m) => m.date.slice(0, 7)).sort()[0] ?? month;
          const months = ['2027-12', '2028-01', '2028-02', '2028-03']
            .slice(4 - trailingMonths)
            .filter((m) => m >= first);
          expect(res.monthsCounted).toEqual(months);
          for (const cat of ['Rent', 'Power', 'Fuel', 'Travel']) {
            const paise = (mo: string) =>
              rows
                .filter((r, i) => r.cat === cat && r.paise > 0 && ms[i]?.date.startsWith(mo))
                .reduce((s, r) => s + r.paise, 0);
            const now = paise(month);
            const total = months.reduce((s, mo) => s + paise(mo), 0);
            const flagged = res.unusual.some((f) => f.name === cat);
            const isNew = res.new.some((f) => f.name === cat);
            expect(flagged).toBe(now > 0 && total > 0 && now * months.length >= factor * total);
            expect(isNew).toBe(now > 0 && total === 0);
            if (flagged) {
              const f = res.unusual.find((x) => x.name === cat);
              const avg = (f?.trailing ?? []).reduce((s, t) => s + t.amount, 0) / months.length;
              expect((f?.amount ?? 0) + 1e-9).toBeGreaterThanOrEqual(factor * avg);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('payments out of pattern', () => {
  const movements: Movement[] = [
    spend('2028-01-03', 1_000, 'Courier', 'Courier Co'),
    spend('2028-01-17', 1_200, 'Courier', 'Courier Co'),
    spend('2028-02-01', 1_100, 'Courier', 'Courier Co'),
    spend('2028-02-29', 3_000, 'Courier', 'courier co'), // median 1,100 → 3,000 > 2,200
    spend('2028-03-10', 2_100, 'Courier', 'Courier Co'), // median of 4: (1,100 + 1,200) / 2 = 1,150 → 2,100 < 2,300
    spend('2028-02-26', 5_000, 'Printing', 'Printer'),
    spend('2028-03-01', 5_000, 'Printing', 'Printer'), // 4 days after 26 Feb in a leap year: not a duplicate
    spend('2028-03-03', 5_000, 'Printing', 'Printer'), // 2 days after 1 Mar: a duplicate
    spend('2028-03-05', 90_000, 'Consulting', 'New Consultant'), // a first payment
    { date: '2028-03-06', amount: 90_000, party: 'Customer' }, // money in
  ];

  it('finds a payment far above its usual, a repeat within days, and a large first payment', () => {
    const r = paymentsOutOfPattern(movements, { firstPaymentThreshold: 50_000 });
    expect(r.map((f) => [f.reason, f.party, f.payment.date, f.amount])).toEqual([
      ['above-usual', 'courier co', '2028-02-29', 3_000],
      ['duplicate', 'Printer', '2028-03-03', 5_000],
      ['first-large', 'New Consultant', '2028-03-05', 90_000],
    ]);
    expect(r[0]).toMatchObject({ usual: 1_100, sample: 3 });
    expect(r[0]?.ratio).toBeCloseTo(3_000 / 1_100, 10);
    expect(r[1]).toMatchObject({ daysApart: 2, duplicateOf: { date: '2028-03-01' } });
  });

  it('examines only the window asked, with all earlier payments as history', () => {
    const r = paymentsOutOfPattern(movements, { from: '2028-03-01', to: '2028-03-31' });
    expect(r.map((f) => [f.reason, f.payment.date])).toEqual([['duplicate', '2028-03-03']]);
    // In 2027, 26 Feb → 1 Mar is 3 days: a duplicate then.
    const y2027 = paymentsOutOfPattern([
      spend('2027-02-26', 5_000, 'P', 'Printer'),
      spend('2027-03-01', 5_000, 'P', 'Printer'),
    ]);
    expect(y2027.map((f) => [f.reason, f.daysApart])).toEqual([['duplicate', 3]]);
  });

  it('needs a history before judging an amount', () => {
    const two = [spend('2028-01-01', 100, 'X', 'Vendor'), spend('2028-02-01', 1_000, 'X', 'Vendor')];
    expect(paymentsOutOfPattern(two)).toEqual([]);
    expect(paymentsOutOfPattern(two, { minHistory: 1 }).map((f) => f.reason)).toEqual(['above-usual']);
  });
});
