import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cashForecast, type Movement, type OpenDoc, type Settlement } from '../src/index.ts';

/**
 * The 13-week cash forecast, against a table worked by hand over February–May 2028 (a leap year:
 * week 3 runs 24 Feb – 1 Mar through 29 Feb), and on generated books against the rules restated here.
 */

const doc = (
  kind: 'invoice' | 'bill',
  party: string,
  dueDate: string,
  due: number,
  number: string,
): OpenDoc => ({
  kind,
  number,
  party,
  date: '2027-12-01',
  dueDate,
  total: due,
  due,
});
const paid = (party: string, dueDate: string, paidDate: string): Settlement => ({
  kind: 'invoice',
  party,
  dueDate,
  paidDate,
  amount: 1,
});
const out = (date: string, amount: number, party: string | undefined, category: string): Movement => ({
  date,
  amount: -amount,
  ...(party !== undefined ? { party } : {}),
  category,
});

describe('13 weeks from 10 Feb 2028', () => {
  const settlements: Settlement[] = [
    paid('Acme', '2028-01-31', '2028-02-10'), // 10 days late
    paid('Acme', '2028-02-28', '2028-03-02'), // 3, across 29 Feb
    paid('Acme', '2028-01-10', '2028-01-05'), // early: 0
    paid('Dev', '2027-12-01', '2028-01-10'), // 40
  ];
  const receivables: OpenDoc[] = [
    doc('invoice', 'Acme', '2028-02-20', 30_000, 'A1'), // +3 → 23 Feb, week 2
    doc('invoice', 'Bharat', '2028-01-31', 12_000, 'B1'), // no history: portfolio [0,3,10,40] → 6.5 → 7 → 7 Feb, past: week 1
    doc('invoice', 'Dev', '2028-01-20', 8_000, 'D1'), // overdue, but +40 → 29 Feb, week 3
    doc('invoice', 'Acme', '2028-05-20', 10_000, 'A2'), // +3 → 23 May, after the horizon (10 May)
    doc('invoice', 'Esha', '2028-03-01', 0, 'E1'), // nothing outstanding
  ];
  const payables: OpenDoc[] = [
    doc('bill', 'Supplier S', '2028-02-29', 45_000, 'S1'), // week 3
    doc('bill', 'Supplier T', '2028-02-01', 5_000, 'T1'), // overdue: week 1
  ];
  const movements: Movement[] = [
    out('2027-11-05', 19_000, 'Landlord', 'Rent'),
    out('2027-12-06', 20_000, 'Landlord', 'Rent'),
    out('2028-01-05', 21_000.5, 'Landlord', 'Rent'),
    out('2028-02-03', 20_000, 'Landlord', 'Rent'), // paid this month: next is March
    out('2027-11-30', 50_000, undefined, 'Salaries'),
    out('2027-12-31', 50_000, undefined, 'Salaries'),
    out('2028-01-31', 50_000, undefined, 'Salaries'), // day 31: 29 Feb, 31 Mar, 30 Apr
    out('2027-11-12', 3_000, 'Stationer', 'Office'),
    out('2028-01-12', 3_000, 'Stationer', 'Office'), // not every month: not recurring
    { date: '2028-01-15', amount: 90_000, party: 'Acme' }, // money in: not an expense
  ];
  const f = cashForecast({
    today: '2028-02-10',
    opening: 50_000,
    receivables,
    payables,
    settlements,
    movements,
  });

  it('has 13 weeks of 7 days through 29 February', () => {
    expect(f.weeks).toHaveLength(13);
    expect(f.horizon).toEqual({ from: '2028-02-10', to: '2028-05-10' });
    expect(f.weeks.map((w) => `${w.from}..${w.to}`).slice(0, 4)).toEqual([
      '2028-02-10..2028-02-16',
      '2028-02-17..2028-02-23',
      '2028-02-24..2028-03-01',
      '2028-03-02..2028-03-08',
    ]);
    expect(f.weeks[7]?.from).toBe('2028-03-30');
    expect(f.weeks[12]?.from).toBe('2028-05-04');
  });

  it('matches the table worked by hand', () => {
    // Rent: (19,000 + 20,000 + 21,000.50) / 3 = 20,000.1666… → 20,000.17, on day 5 (median of 5, 6, 5).
    const table = f.weeks.map((w) => [w.week, w.opening, w.inflows, w.outflows, w.closing]);
    expect(table).toEqual([
      [1, 50_000, 12_000, 5_000, 57_000],
      [2, 57_000, 30_000, 0, 87_000],
      [3, 87_000, 8_000, 95_000, 0],
      [4, 0, 0, 20_000.17, -20_000.17],
      [5, -20_000.17, 0, 0, -20_000.17],
      [6, -20_000.17, 0, 0, -20_000.17],
      [7, -20_000.17, 0, 0, -20_000.17],
      [8, -20_000.17, 0, 70_000.17, -90_000.34],
      [9, -90_000.34, 0, 0, -90_000.34],
      [10, -90_000.34, 0, 0, -90_000.34],
      [11, -90_000.34, 0, 0, -90_000.34],
      [12, -90_000.34, 0, 50_000, -140_000.34],
      [13, -140_000.34, 0, 20_000.17, -160_000.51],
    ]);
    expect(f.totalInflows).toBe(50_000);
    expect(f.totalOutflows).toBe(260_000.51);
    expect(f.closing).toBe(-160_000.51);
    // Week 3 closes at exactly 0: not short. Week 4 is the first below zero.
    expect(f.firstNegativeWeek?.week).toBe(4);
    expect(f.lowestClosing).toEqual({ week: 13, closing: -160_000.51 });
  });

  it('shows its working per item', () => {
    const byNumber = Object.fromEntries(f.weeks.flatMap((w) => w.items).map((i) => [i.number ?? i.party, i]));
    expect(byNumber.A1).toMatchObject({ expectedDate: '2028-02-23', daysLate: 3, week: 2 });
    expect(byNumber.B1).toMatchObject({ expectedDate: '2028-02-10', daysLate: 7, week: 1 });
    expect(byNumber.D1).toMatchObject({ expectedDate: '2028-02-29', daysLate: 40, week: 3 });
    expect(byNumber.T1).toMatchObject({ expectedDate: '2028-02-10', week: 1 });
    expect(f.beyondHorizon.map((i) => [i.number, i.expectedDate])).toEqual([['A2', '2028-05-23']]);
    expect(f.noHistory).toEqual({ parties: ['Bharat'], daysLateUsed: 7, basis: 'portfolio' });
    expect(f.recurring.map((r) => [r.name, r.by, r.monthlyAverage, r.dayOfMonth, r.projected])).toEqual([
      ['Salaries', 'category', 50_000, 31, ['2028-02-29', '2028-03-31', '2028-04-30']],
      ['Landlord', 'party', 20_000.17, 5, ['2028-03-05', '2028-04-05', '2028-05-05']],
    ]);
    expect(f.assumptions.join('\n')).toMatch(
      /Bharat has no payment history: the median over all customers' 4 paid/,
    );
    expect(f.assumptions.join('\n')).toMatch(/Landlord 20,000\.17 on day 5/);
    expect(f.assumptions.join('\n')).toMatch(/After the forecast ends: 1 invoice \(10,000\.00\)/);
  });

  it('takes each document by its kind when given all of them twice', () => {
    const all = [...receivables, ...payables];
    const g = cashForecast({
      today: '2028-02-10',
      opening: 50_000,
      receivables: all,
      payables: all,
      settlements,
      movements,
    });
    expect(g.weeks).toEqual(f.weeks);
  });

  it('leaves out a recurring payment an open bill already stands for', () => {
    const g = cashForecast({
      today: '2028-02-10',
      opening: 0,
      payables: [doc('bill', 'landlord', '2028-03-04', 20_000, 'R3')],
      movements,
      currency: '₹',
    });
    const rent = g.recurring.find((r) => r.name === 'Landlord');
    expect(rent?.coveredByBills).toEqual(['2028-03-05']);
    expect(rent?.projected).toEqual(['2028-04-05', '2028-05-05']);
    expect(g.weeks[3]?.outflows).toBe(20_000);
    expect(g.assumptions[0]).toContain('₹0.00');
  });
});

describe('recurring expenses', () => {
  it('counts a run of months ending this month once it is paid, clamping the day to the month', () => {
    // Today 20 Jan 2028: October is missing, but November, December and January (paid on the 15th) run on.
    const f = cashForecast({
      today: '2028-01-20',
      opening: 100_000,
      movements: [
        out('2027-11-15', 900, 'Telecom', 'Phone'),
        out('2027-12-15', 1_000, 'Telecom', 'Phone'),
        out('2028-01-15', 1_100, 'Telecom', 'Phone'),
        out('2027-11-30', 2_000, 'Cloud', 'Hosting'),
        out('2027-12-31', 2_000, 'Cloud', 'Hosting'), // skipped January: not recurring
        out('2027-10-31', 500, 'Gym', 'Welfare'),
        out('2027-11-30', 500, 'Gym', 'Welfare'),
        out('2027-12-31', 500, 'Gym', 'Welfare'), // Oct–Dec: due on 31 Jan, then 29 Feb, 31 Mar
      ],
    });
    expect(
      f.recurring.map((r) => [r.name, r.months.map((m) => m.month), r.monthlyAverage, r.projected]),
    ).toEqual([
      ['Telecom', ['2027-11', '2027-12', '2028-01'], 1_000, ['2028-02-15', '2028-03-15', '2028-04-15']],
      ['Gym', ['2027-10', '2027-11', '2027-12'], 500, ['2028-01-31', '2028-02-29', '2028-03-31']],
    ]);
    expect(f.totalOutflows).toBe(4_500);
    expect(f.firstNegativeWeek).toBeNull();
  });
});

describe('across the financial year, with no history at all', () => {
  it('expects invoices on their due dates and says so', () => {
    const f = cashForecast({
      today: '2027-03-29',
      opening: [
        { name: 'Bank', balance: 1_000 },
        { name: 'Petty cash', balance: 200.5 },
      ],
      receivables: [
        doc('invoice', 'New Customer', '2027-04-01', 2_000, 'N1'),
        doc('invoice', 'Old Customer', '2027-03-31', 300, 'N2'),
      ],
      payables: [doc('bill', 'Vendor', '2027-04-05', 5_000, 'V1')],
      weeks: 2,
    });
    expect(f.opening).toBe(1_200.5);
    expect(f.weeks.map((w) => [w.from, w.to, w.inflows, w.outflows, w.closing])).toEqual([
      ['2027-03-29', '2027-04-04', 2_300, 0, 3_500.5],
      ['2027-04-05', '2027-04-11', 0, 5_000, -1_499.5],
    ]);
    expect(f.firstNegativeWeek?.week).toBe(2);
    expect(f.noHistory).toEqual({
      parties: ['New Customer', 'Old Customer'],
      daysLateUsed: 0,
      basis: 'none',
    });
    expect(f.assumptions.join('\n')).toMatch(/No customer has a payment history.*0 days late/);
    expect(f.assumptions.join('\n')).toMatch(/No recurring expense found/);
  });

  it('refuses a horizon of no weeks', () => {
    expect(() => cashForecast({ today: '2027-03-29', opening: 0, weeks: 0 })).toThrow(RangeError);
  });
});

const DAY = 86_400_000;
const isoOf = (n: number) => new Date(n * DAY).toISOString().slice(0, 10);
const TODAY = Date.UTC(2028, 1, 10) / DAY;
const parties = ['Acme', 'Bharat', 'Chetan', 'Dev'];

function medianOf(xs: number[]): number | undefined {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

describe('generated books', () => {
  const arb = fc.record({
    opening: fc.integer({ min: -1_000_000, max: 10_000_000 }),
    invoices: fc.array(
      fc.record({
        party: fc.constantFrom(...parties),
        due: fc.integer({ min: TODAY - 120, max: TODAY + 150 }),
        paise: fc.integer({ min: -1000, max: 2_000_000 }),
      }),
      { maxLength: 25 },
    ),
    bills: fc.array(
      fc.record({
        due: fc.integer({ min: TODAY - 60, max: TODAY + 120 }),
        paise: fc.integer({ min: 1, max: 900_000 }),
      }),
      { maxLength: 15 },
    ),
    history: fc.array(
      fc.record({
        party: fc.constantFrom(...parties, 'Gone'),
        due: fc.integer({ min: TODAY - 400, max: TODAY - 1 }),
        late: fc.integer({ min: -10, max: 90 }),
      }),
      { maxLength: 20 },
    ),
    spends: fc.array(
      fc.record({
        day: fc.integer({ min: TODAY - 130, max: TODAY }),
        party: fc.constantFrom('Landlord', 'Telecom', 'Cafe'),
        paise: fc.integer({ min: 1, max: 500_000 }),
      }),
      { maxLength: 30 },
    ),
    weeks: fc.integer({ min: 1, max: 20 }),
  });

  it('rolls each week forward and counts every receivable the rules put in the horizon', () => {
    fc.assert(
      fc.property(arb, (g) => {
        const f = cashForecast({
          today: isoOf(TODAY),
          opening: g.opening / 100,
          receivables: g.invoices.map((x, i) =>
            doc('invoice', x.party, isoOf(x.due), x.paise / 100, `I${i}`),
          ),
          payables: g.bills.map((x, i) => doc('bill', 'Supplier', isoOf(x.due), x.paise / 100, `B${i}`)),
          settlements: g.history.map((h) => paid(h.party, isoOf(h.due), isoOf(h.due + h.late))),
          movements: g.spends.map((s) => out(isoOf(s.day), s.paise / 100, s.party, 'Expenses')),
          weeks: g.weeks,
        });
        const p = (x: number) => Math.round(x * 100);
        expect(f.weeks).toHaveLength(g.weeks);
        expect(p(f.weeks[0]?.opening ?? Number.NaN)).toBe(g.opening);
        f.weeks.forEach((w, i) => {
          expect(p(w.closing)).toBe(p(w.opening) + p(w.inflows) - p(w.outflows));
          if (i > 0) expect(p(w.opening)).toBe(p(f.weeks[i - 1]?.closing ?? Number.NaN));
        });
        expect(p(f.closing)).toBe(g.opening + p(f.totalInflows) - p(f.totalOutflows));

        const lateOf = (party: string) =>
          medianOf(g.history.filter((h) => h.party === party).map((h) => Math.max(0, h.late)));
        const all = medianOf(g.history.map((h) => Math.max(0, h.late)));
        const end = TODAY + g.weeks * 7 - 1;
        const expected = g.invoices
          .filter((x) => x.paise > 0)
          .filter((x) => x.due + Math.round(lateOf(x.party) ?? all ?? 0) <= end)
          .reduce((s, x) => s + x.paise, 0);
        expect(p(f.totalInflows)).toBe(expected);
        expect(p(f.weeks.reduce((s, w) => s + w.inflows, 0))).toBe(expected);
        const billsIn = g.bills.filter((b) => b.due <= end).reduce((s, b) => s + b.paise, 0);
        const recurringOut = f.weeks
          .flatMap((w) => w.items)
          .filter((i) => i.source === 'recurring')
          .reduce((s, i) => s + p(i.amount), 0);
        expect(p(f.totalOutflows)).toBe(billsIn + recurringOut);
        const neg = f.weeks.find((w) => w.closing < 0);
        expect(f.firstNegativeWeek?.week).toBe(neg?.week);
      }),
      { numRuns: 200 },
    );
  });
});
