import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BudgetLine, budgetVsActual } from '../src/index.ts';

/**
 * Budget against actual: pro-rating worked by hand (a financial year holding 29 Feb 2028, a period
 * across 1 April, a zero budget) and generated periods whose parts must add up to the whole.
 */

const fy2728: BudgetLine = {
  name: 'Rent',
  period: { from: '2027-04-01', to: '2028-03-31' },
  amount: 1_200_000,
};

describe('budget against actual', () => {
  it('gives a whole month its twelfth of a yearly budget', () => {
    const r = budgetVsActual(
      [fy2728],
      { rent: 110_000, Travel: 5_000 },
      { from: '2028-02-01', to: '2028-02-29' },
    );
    expect(r?.lines).toEqual([
      {
        name: 'Rent',
        budget: 100_000,
        actual: 110_000,
        variance: 10_000,
        variancePct: 10,
        basis: [{ period: fy2728.period, amount: 1_200_000, share: '1/12 months', counted: 100_000 }],
      },
    ]);
    expect(r?.unbudgeted).toEqual([{ name: 'Travel', actual: 5_000 }]);
    expect(r?.totals).toEqual({ budget: 100_000, actual: 110_000, variance: 10_000, variancePct: 10 });
    expect(r?.assumptions.join('\n')).toMatch(/in whole calendar months/);
    expect(r?.assumptions.join('\n')).toMatch(/Travel had spending but no budget/);
  });

  it('reads actuals as a list too, the same name adding up', () => {
    const r = budgetVsActual(
      [fy2728],
      [
        { name: 'Rent', amount: 60_000 },
        { name: ' RENT ', amount: 40_000.5 },
      ],
      { from: '2028-03-01', to: '2028-03-31' },
    );
    expect(r?.lines[0]).toMatchObject({ budget: 100_000, actual: 100_000.5, variance: 0.5, variancePct: 0 });
  });

  it('pro-rates by days otherwise, the leap year having 366', () => {
    // 1–15 Feb 2028: 15/366 × 12,00,000 = 49,180.327… → 49,180.33.
    const r = budgetVsActual([fy2728], new Map([['Rent', 40_000]]), { from: '2028-02-01', to: '2028-02-15' });
    expect(r?.lines[0]).toMatchObject({ budget: 49_180.33, actual: 40_000, variance: -9_180.33 });
    expect(r?.lines[0]?.variancePct).toBe(-18.67); // −9,180.33 / 49,180.33 = −18.666…%
    expect(r?.lines[0]?.basis[0]?.share).toBe('15/366 days');
  });

  it('adds monthly budgets across the financial year', () => {
    const budget: BudgetLine[] = [
      { name: 'Power', period: { from: '2028-03-01', to: '2028-03-31' }, amount: 31_000 },
      { name: 'Power', period: { from: '2028-04-01', to: '2028-04-30' }, amount: 30_000 },
      { name: 'Power', period: { from: '2028-05-01', to: '2028-05-31' }, amount: 99_999 },
    ];
    // 16–31 Mar: 16/31 × 31,000 = 16,000; 1–15 Apr: 15/30 × 30,000 = 15,000; May: not in the period.
    const r = budgetVsActual(budget, { Power: 31_000 }, { from: '2028-03-16', to: '2028-04-15' });
    expect(r?.lines.map((l) => [l.name, l.budget, l.actual, l.variance, l.variancePct])).toEqual([
      ['Power', 31_000, 31_000, 0, 0],
    ]);
    expect(r?.lines[0]?.basis.map((b) => b.counted)).toEqual([16_000, 15_000]);
    // The quarter Apr–Jun as whole months: April's and May's budgets in full.
    expect(budgetVsActual(budget, {}, { from: '2028-04-01', to: '2028-06-30' })?.totals.budget).toBe(129_999);
  });

  it('has no percentage against a zero budget, and nothing without budgets', () => {
    const zero: BudgetLine = { name: 'Gifts', period: { from: '2028-04-01', to: '2028-04-30' }, amount: 0 };
    const r = budgetVsActual([zero], { Gifts: 2_000 }, { from: '2028-04-01', to: '2028-04-30' });
    expect(r?.lines[0]).toMatchObject({ budget: 0, actual: 2_000, variance: 2_000, variancePct: null });
    expect(budgetVsActual([], { Gifts: 1 }, { from: '2028-04-01', to: '2028-04-30' })).toBeUndefined();
    expect(budgetVsActual(undefined, {}, { from: '2028-04-01', to: '2028-04-30' })).toBeUndefined();
    expect(() => budgetVsActual([zero], {}, { from: '2028-04-30', to: '2028-04-01' })).toThrow(RangeError);
  });

  it('splits a budget over the parts of its period to within a paisa each', () => {
    const DAY = 86_400_000;
    const iso = (n: number) => new Date(n * DAY).toISOString().slice(0, 10);
    const base = Date.UTC(2027, 0, 2) / DAY; // day 2 of a month: never whole months, so by days
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 800 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.integer({ min: 0, max: 399 }),
        (offset, length, paise, cut) => {
          const from = base + offset;
          const to = from + length - 1;
          const split = from + (cut % length);
          const line: BudgetLine = {
            name: 'X',
            period: { from: iso(from), to: iso(to) },
            amount: paise / 100,
          };
          const whole = budgetVsActual([line], {}, { from: iso(from), to: iso(to) });
          expect(Math.round((whole?.totals.budget ?? Number.NaN) * 100)).toBe(paise);
          const a = budgetVsActual([line], {}, { from: iso(from), to: iso(split) })?.totals.budget ?? 0;
          const b =
            budgetVsActual([line], {}, { from: iso(split + 1), to: iso(to + 30) })?.totals.budget ?? 0;
          expect(Math.abs(Math.round(a * 100) + Math.round(b * 100) - paise)).toBeLessThanOrEqual(1);
        },
      ),
    );
  });
});
