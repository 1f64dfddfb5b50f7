import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cashToday } from '../src/index.ts';

/** Cash today: balances summed to the paisa, bank apart from cash. */
describe('cash today', () => {
  it('sums bank and cash, reading the kind from the name when not given', () => {
    const r = cashToday([
      { name: 'HDFC Current', balance: 125_000.1, kind: 'bank' },
      { name: 'Petty Cash', balance: 2_500.25 },
      { name: 'ICICI OD', balance: -5_000 },
      { name: 'Cash in hand', balance: 0.1 },
      { name: 'Drawer', balance: 100, kind: 'cash' },
    ]);
    expect(r.total).toBe(122_600.45);
    expect(r.bank).toBe(120_000.1);
    expect(r.cash).toBe(2_600.35);
    expect(r.accounts.map((a) => [a.name, a.kind, a.kindInferred])).toEqual([
      ['HDFC Current', 'bank', false],
      ['Petty Cash', 'cash', true],
      ['ICICI OD', 'bank', true],
      ['Cash in hand', 'cash', true],
      ['Drawer', 'cash', false],
    ]);
  });

  it('is zero with no accounts', () => {
    expect(cashToday([])).toEqual({ total: 0, bank: 0, cash: 0, accounts: [] });
  });

  it('total is bank plus cash and the sum of the balances, to the paisa', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.string(),
            paise: fc.integer({ min: -10_000_000, max: 1_000_000_000 }),
            kind: fc.constantFrom('bank' as const, 'cash' as const),
          }),
        ),
        (rows) => {
          const r = cashToday(rows.map((x) => ({ name: x.name, balance: x.paise / 100, kind: x.kind })));
          const sum = rows.reduce((s, x) => s + x.paise, 0);
          expect(Math.round(r.total * 100)).toBe(sum);
          expect(Math.round(r.bank * 100) + Math.round(r.cash * 100)).toBe(sum);
        },
      ),
    );
  });
});
