import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  dueIn,
  type OpenDoc,
  owedBy,
  portfolioDaysLate,
  type Settlement,
  topDebtors,
  usualDaysLate,
} from '../src/index.ts';

/**
 * Receivables and payables checked against figures worked out by hand on small books (a leap
 * February, a financial year turning on 1 April), and on generated books against sums taken here.
 */

const invoice = (
  party: string,
  date: string,
  dueDate: string | undefined,
  due: number,
  number?: string,
): OpenDoc => ({
  kind: 'invoice',
  party,
  date,
  ...(dueDate !== undefined ? { dueDate } : {}),
  ...(number !== undefined ? { number } : {}),
  total: due,
  due,
});

describe('who owes what', () => {
  // today 1 Mar 2028: 14 Feb → 1 Mar is 16 days (15 to 29 Feb, one more to 1 Mar).
  const docs: OpenDoc[] = [
    invoice('Acme Traders', '2028-01-15', '2028-02-14', 10_000, 'INV-1'),
    invoice('acme  traders ', '2028-02-01', '2028-02-29', 5_000.5, 'INV-2'),
    invoice('Bharat Stores', '2028-02-20', '2028-03-20', 20_000, 'INV-3'),
    invoice('Chetan & Co', '2028-03-01', undefined, 1_500, 'INV-4'),
    invoice('Acme Traders', '2028-01-01', '2028-01-31', 0, 'INV-5'),
    { kind: 'bill', party: 'Supplier', date: '2028-01-01', dueDate: '2028-01-31', total: 9_999, due: 9_999 },
  ];

  it('sums per party, overdue as of today, largest first', () => {
    const r = owedBy(docs, { today: '2028-03-01', kind: 'invoice' });
    expect(r.kind).toBe('invoice');
    expect(r.parties.map((p) => [p.party, p.due, p.overdue, p.oldestDaysOverdue, p.count])).toEqual([
      ['Bharat Stores', 20_000, 0, null, 1],
      ['Acme Traders', 15_000.5, 15_000.5, 16, 2],
      ['Chetan & Co', 1_500, 0, null, 1],
    ]);
    expect(r.total).toBe(36_500.5);
    expect(r.overdue).toBe(15_000.5);
    expect(r.count).toBe(4);
    const acme = r.parties[1];
    expect(acme?.documents.map((d) => [d.number, d.dueDate, d.daysOverdue])).toEqual([
      ['INV-1', '2028-02-14', 16],
      ['INV-2', '2028-02-29', 1],
    ]);
    // Chetan's invoice has no due date: due on its date, today, so not overdue yet.
    expect(r.parties[2]?.documents[0]?.dueDate).toBe('2028-03-01');
  });

  it('serves payables the same way', () => {
    const r = owedBy(docs, { today: '2028-03-01', kind: 'bill' });
    expect(r.parties).toHaveLength(1);
    expect(r.parties[0]).toMatchObject({
      party: 'Supplier',
      due: 9_999,
      overdue: 9_999,
      oldestDaysOverdue: 30,
    });
  });

  it('names the top debtors, leaving out credits', () => {
    const withCredit = [...docs, invoice('Dev', '2028-02-01', '2028-02-10', -700)];
    expect(topDebtors(withCredit, 2, { kind: 'invoice' }).map((p) => p.party)).toEqual([
      'Bharat Stores',
      'Acme Traders',
    ]);
    expect(topDebtors(withCredit, 10, { kind: 'invoice' }).map((p) => p.party)).not.toContain('Dev');
    expect(topDebtors(withCredit, 0)).toEqual([]);
  });

  it('rejects days that do not exist', () => {
    expect(() => owedBy([invoice('X', '2027-02-29', undefined, 1)], { today: '2027-03-01' })).toThrow(
      RangeError,
    );
    expect(() => owedBy([], { today: '1 March 2028' })).toThrow(RangeError);
  });
});

describe('what falls due in a window', () => {
  // The window crosses the financial year: 25 Mar 2027 → 7 Apr 2027.
  const docs: OpenDoc[] = [
    invoice('A', '2027-03-01', '2027-03-31', 1_000, 'last-day-of-FY'),
    invoice('B', '2027-03-02', '2027-04-01', 2_000.25, 'first-day-of-FY'),
    invoice('C', '2027-02-22', '2027-03-24', 3_000, 'overdue'),
    invoice('D', '2027-03-09', '2027-04-08', 4_000, 'after'),
    invoice('E', '2027-03-25', undefined, 500, 'on-receipt'),
  ];

  it('lists due dates in the window and, apart, those overdue when it opens', () => {
    const r = dueIn(docs, { from: '2027-03-25', to: '2027-04-07' });
    expect(r.due.map((d) => d.number)).toEqual(['on-receipt', 'last-day-of-FY', 'first-day-of-FY']);
    expect(r.total).toBe(3_500.25);
    expect(r.overdue.map((d) => [d.number, d.daysOverdue])).toEqual([['overdue', 1]]);
    expect(r.overdueTotal).toBe(3_000);
  });

  it('refuses a window that ends before it starts', () => {
    expect(() => dueIn(docs, { from: '2027-04-01', to: '2027-03-31' })).toThrow(RangeError);
  });
});

describe('usual days late', () => {
  const settlements: Settlement[] = [
    { kind: 'invoice', party: 'Acme', dueDate: '2028-01-31', paidDate: '2028-02-10', amount: 1 }, // 10
    { kind: 'invoice', party: 'ACME', dueDate: '2028-02-28', paidDate: '2028-03-02', amount: 1 }, // 3 (29 Feb)
    { kind: 'invoice', party: 'Acme', dueDate: '2028-01-10', paidDate: '2028-01-05', amount: 1 }, // early: 0
    { kind: 'invoice', party: 'Bharat', date: '2027-03-20', paidDate: '2027-04-09', amount: 1 }, // 20, by its date
    { kind: 'invoice', party: 'Bharat', paidDate: '2027-04-09', amount: 1 }, // no dates: not counted
    { kind: 'bill', party: 'Acme', dueDate: '2028-01-01', paidDate: '2028-03-01', amount: 1 }, // 60, a bill
  ];

  it('is the median of days late, early counted as 0', () => {
    expect(usualDaysLate(settlements, 'acme', { kind: 'invoice' })).toEqual({
      party: 'acme',
      medianDaysLate: 3,
      sample: 3,
      daysLate: [10, 3, 0],
    });
    // With the bill too: [10, 3, 0, 60] → (3 + 10) / 2.
    expect(usualDaysLate(settlements, 'Acme')?.medianDaysLate).toBe(6.5);
    expect(usualDaysLate(settlements, 'Bharat')).toMatchObject({ medianDaysLate: 20, sample: 1 });
  });

  it('is null for a customer with no history', () => {
    expect(usualDaysLate(settlements, 'Chetan')).toBeNull();
    expect(usualDaysLate([], 'Acme')).toBeNull();
  });

  it('has a portfolio median for the fallback', () => {
    expect(portfolioDaysLate(settlements, { kind: 'invoice' })).toEqual({ medianDaysLate: 6.5, sample: 4 });
    expect(portfolioDaysLate([])).toBeNull();
  });
});

const DAY = 86_400_000;
const isoOf = (n: number) => new Date(n * DAY).toISOString().slice(0, 10);
const dayArb = fc.integer({ min: Date.UTC(2026, 0, 1) / DAY, max: Date.UTC(2030, 11, 31) / DAY });
const docArb = fc.record({
  party: fc.constantFrom('Acme', 'Bharat', 'Chetan', 'Dev', 'Esha'),
  date: dayArb,
  term: fc.option(fc.integer({ min: 0, max: 90 }), { nil: undefined }),
  paise: fc.integer({ min: -50_000, max: 5_000_000 }),
});

describe('generated books', () => {
  it('owedBy totals are the sum of what is outstanding, overdue the part past due', () => {
    fc.assert(
      fc.property(fc.array(docArb, { maxLength: 40 }), dayArb, (rows, todayN) => {
        const today = isoOf(todayN);
        const docs = rows.map((r) =>
          invoice(
            r.party,
            isoOf(r.date),
            r.term === undefined ? undefined : isoOf(r.date + r.term),
            r.paise / 100,
          ),
        );
        const r = owedBy(docs, { today });
        const sum = rows.reduce((s, x) => s + x.paise, 0);
        const overdue = rows.filter((x) => x.date + (x.term ?? 0) < todayN).reduce((s, x) => s + x.paise, 0);
        expect(Math.round(r.total * 100)).toBe(sum);
        expect(Math.round(r.overdue * 100)).toBe(overdue);
        expect(Math.round(r.parties.reduce((s, p) => s + p.due * 100, 0))).toBe(sum);
        expect(r.count).toBe(rows.filter((x) => x.paise !== 0).length);
        for (let i = 1; i < r.parties.length; i++) {
          expect(r.parties[i - 1]?.due).toBeGreaterThanOrEqual(r.parties[i]?.due ?? 0);
        }
        const top = topDebtors(docs, 3);
        expect(top.length).toBeLessThanOrEqual(3);
        expect(top.every((p) => p.due > 0)).toBe(true);
      }),
    );
  });

  it('dueIn splits documents into overdue, in the window and later, losing none', () => {
    fc.assert(
      fc.property(
        fc.array(docArb, { maxLength: 40 }),
        dayArb,
        fc.integer({ min: 0, max: 60 }),
        (rows, fromN, len) => {
          const docs = rows.map((r) =>
            invoice(
              r.party,
              isoOf(r.date),
              r.term === undefined ? undefined : isoOf(r.date + r.term),
              r.paise / 100,
            ),
          );
          const r = dueIn(docs, { from: isoOf(fromN), to: isoOf(fromN + len) });
          const open = rows.filter((x) => x.paise !== 0);
          const inWindow = open.filter(
            (x) => x.date + (x.term ?? 0) >= fromN && x.date + (x.term ?? 0) <= fromN + len,
          );
          const before = open.filter((x) => x.date + (x.term ?? 0) < fromN);
          expect(r.due).toHaveLength(inWindow.length);
          expect(r.overdue).toHaveLength(before.length);
          expect(Math.round(r.total * 100)).toBe(inWindow.reduce((s, x) => s + x.paise, 0));
          expect(r.overdue.every((d) => d.daysOverdue > 0)).toBe(true);
        },
      ),
    );
  });

  it("usual days late lies within the party's own history, and is null without one", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            party: fc.constantFrom('Acme', 'Bharat', 'Chetan'),
            due: dayArb,
            late: fc.integer({ min: -30, max: 200 }),
          }),
          { maxLength: 30 },
        ),
        (rows) => {
          const settlements: Settlement[] = rows.map((r) => ({
            kind: 'invoice',
            party: r.party,
            dueDate: isoOf(r.due),
            paidDate: isoOf(r.due + r.late),
            amount: 1,
          }));
          for (const party of ['Acme', 'Bharat', 'Chetan']) {
            const own = rows.filter((r) => r.party === party).map((r) => Math.max(0, r.late));
            const u = usualDaysLate(settlements, party);
            if (own.length === 0) {
              expect(u).toBeNull();
              continue;
            }
            expect(u?.sample).toBe(own.length);
            expect(u?.medianDaysLate).toBeGreaterThanOrEqual(Math.min(...own));
            expect(u?.medianDaysLate).toBeLessThanOrEqual(Math.max(...own));
            const below = own.filter((d) => d < (u?.medianDaysLate ?? 0)).length;
            const above = own.filter((d) => d > (u?.medianDaysLate ?? 0)).length;
            expect(below).toBeLessThanOrEqual(own.length / 2);
            expect(above).toBeLessThanOrEqual(own.length / 2);
          }
        },
      ),
    );
  });
});
