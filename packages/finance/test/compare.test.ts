import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changeOf, comparePnl, type PnlLine, pnlTotalsPaise, toPaise, variance } from '../src/compare.ts';

// February 2025 against February 2024 (the leap month), hand-computed.
const feb2025: PnlLine[] = [
  { section: 'income', name: 'Sales', amount: 250000 },
  { section: 'income', name: 'Service income', amount: 40000.5 },
  { section: 'cost_of_sales', name: 'Purchases', amount: 150000.25 },
  { section: 'expense', name: 'Rent', amount: 30000 },
  { section: 'expense', name: 'Salaries', amount: 45000 },
  { section: 'other_income', name: 'Interest received', amount: 1200 },
  { section: 'other_expense', name: 'Bank charges', amount: 350.1 },
];
const feb2024: PnlLine[] = [
  { section: 'income', name: 'Sales', amount: 200000 },
  { section: 'cost_of_sales', name: 'Purchases', amount: 120000 },
  { section: 'expense', name: 'Rent', amount: 30000 },
  { section: 'expense', name: 'salaries ', amount: 40000 },
  { section: 'expense', name: 'Travel', amount: 5000 },
];

describe('comparePnl', () => {
  it('totals each period and the change, by hand: Feb 2025 vs Feb 2024', () => {
    const c = comparePnl([
      { label: 'February 2025', lines: feb2025 },
      { label: 'February 2024', lines: feb2024 },
    ]);
    // Income 290000.50 vs 200000; gross 140000.25 vs 80000; net 140000.25 − 75000 + 1200 − 350.10 = 65850.15 vs 5000.
    expect(c.totals.income.values).toEqual([290000.5, 200000]);
    expect(c.totals.income.changes[0]).toEqual({ amount: 90000.5, percent: 45.00025 });
    expect(c.totals.grossProfit.values).toEqual([140000.25, 80000]);
    expect(c.totals.expenses.values).toEqual([75000, 75000]);
    expect(c.totals.expenses.changes[0]).toEqual({ amount: 0, percent: 0 });
    expect(c.totals.netProfit.values).toEqual([65850.15, 5000]);
    expect(c.totals.netProfit.changes[0]?.amount).toBe(60850.15);
    expect(c.totals.netProfit.changes[0]?.percent).toBeCloseTo(1217.003, 3);
    expect(c.columns).toEqual(['February 2025', 'February 2024']);
  });

  it('matches lines by section and name, and a line new from zero has no percent', () => {
    const c = comparePnl([
      { label: 'now', lines: feb2025 },
      { label: 'before', lines: feb2024 },
    ]);
    const line = (name: string) => c.lines.find((l) => l.name === name)!;
    expect(line('Salaries').values).toEqual([45000, 40000]);
    expect(line('Salaries').changes[0]).toEqual({ amount: 5000, percent: 12.5 });
    expect(line('Service income').changes[0]).toEqual({ amount: 40000.5, percent: null });
    expect(line('Travel').values).toEqual([0, 5000]);
    expect(line('Travel').changes[0]).toEqual({ amount: -5000, percent: -100 });
    expect(c.lines.map((l) => l.section)).toEqual([
      'income',
      'income',
      'cost_of_sales',
      'expense',
      'expense',
      'expense',
      'other_income',
      'other_expense',
    ]);
  });

  it('takes three columns (previous and a year ago) and a zero prior period', () => {
    const c = comparePnl([
      { label: 'April 2026', lines: [{ section: 'income', name: 'Sales', amount: 100 }] },
      { label: 'March 2026', lines: [] },
      { label: 'April 2025', lines: [{ section: 'income', name: 'Sales', amount: 80 }] },
    ]);
    expect(c.totals.income.changes).toEqual([
      { amount: 100, percent: null },
      { amount: 20, percent: 25 },
    ]);
    expect(c.totals.netProfit.changes[0]).toEqual({ amount: 100, percent: null });
    expect(() => comparePnl([{ label: 'one', lines: [] }])).toThrow(RangeError);
  });

  it('measures percent against the size of a loss', () => {
    expect(changeOf(5000, -10000)).toEqual({ amount: 150, percent: 150 });
    expect(changeOf(-20000, -10000)).toEqual({ amount: -100, percent: -100 });
  });

  it('adds to the paisa where floats drift', () => {
    const lines = Array.from({ length: 10 }, () => ({
      section: 'expense' as const,
      name: 'Tea',
      amount: 0.1,
    }));
    expect(
      comparePnl([
        { label: 'a', lines },
        { label: 'b', lines: [] },
      ]).totals.expenses.values[0],
    ).toBe(1);
    expect(toPaise(1.005)).toBe(101);
    expect(toPaise(-2.675)).toBe(-268);
  });
});

describe('variance', () => {
  const c = comparePnl([
    { label: 'now', lines: feb2025 },
    { label: 'before', lines: feb2024 },
  ]);

  it('lists the lines that moved most above both thresholds, largest first', () => {
    const v = variance(c.lines, { materialityAmount: 4000, materialityPercent: 10 });
    expect(v.map((l) => [l.name, l.change.amount, l.direction, l.favourable])).toEqual([
      ['Sales', 50000, 'up', true],
      ['Service income', 40000.5, 'up', true],
      ['Purchases', 30000.25, 'up', false],
      ['Salaries', 5000, 'up', false],
      ['Travel', -5000, 'down', true],
    ]);
    expect(variance(c.lines, { materialityAmount: 4000, materialityPercent: 20 }).map((l) => l.name)).toEqual(
      ['Sales', 'Service income', 'Purchases', 'Travel'],
    );
    expect(variance(c.lines, { top: 2 }).map((l) => l.name)).toEqual(['Sales', 'Service income']);
    expect(variance(c, { top: 2 })).toEqual(variance(c.lines, { top: 2 }));
    // Rent did not move at all: never listed.
    expect(variance(c.lines).some((l) => l.name === 'Rent')).toBe(false);
  });

  it('is sorted by absolute change and never lists more than top', () => {
    const amount = fc.integer({ min: 0, max: 10_000_000 }).map((p) => p / 100);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(amount, amount), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 0, max: 25 }),
        (pairs, top) => {
          const now = pairs.map(([a], i) => ({ section: 'expense' as const, name: `L${i}`, amount: a }));
          const before = pairs.map(([, b], i) => ({ section: 'expense' as const, name: `L${i}`, amount: b }));
          const cmp = comparePnl([
            { label: 'now', lines: now },
            { label: 'before', lines: before },
          ]);
          const v = variance(cmp.lines, { top });
          expect(v.length).toBeLessThanOrEqual(top);
          for (let i = 1; i < v.length; i++) {
            expect(Math.abs(v[i - 1]!.change.amount)).toBeGreaterThanOrEqual(Math.abs(v[i]!.change.amount));
          }
          const totals = pnlTotalsPaise(now);
          // Compared as numbers: with nothing spent the sum is 0, and -0 is the same amount.
          expect(totals.netProfit === -now.reduce((s, l) => s + toPaise(l.amount), 0)).toBe(true);
          for (const line of cmp.lines) {
            const p = line.changes[0]!.percent;
            expect(p === null || Number.isFinite(p)).toBe(true);
          }
        },
      ),
    );
  });
});
