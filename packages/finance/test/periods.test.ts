import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  addMonths,
  customPeriod,
  dayPeriod,
  daysIn,
  financialYearOf,
  fyPeriod,
  fyQuarter,
  monthPeriod,
  nextPeriod,
  type Period,
  previousPeriod,
  quarterOf,
  samePeriodLastYear,
  spanLabel,
  toDate,
  weekOf,
} from '../src/periods.ts';

const span = (p: Period) => [p.from, p.to, p.label];

describe('financial years and quarters', () => {
  it('names an April year by both calendar years and finds it from any day', () => {
    expect(span(financialYearOf('2026-11-28', 4))).toEqual(['2026-04-01', '2027-03-31', 'FY 2026-27']);
    expect(span(financialYearOf('2026-03-31', 4))).toEqual(['2025-04-01', '2026-03-31', 'FY 2025-26']);
    expect(span(financialYearOf('2026-04-01', 4))).toEqual(['2026-04-01', '2027-03-31', 'FY 2026-27']);
    expect(span(fyPeriod(2099, 4))).toEqual(['2099-04-01', '2100-03-31', 'FY 2099-00']);
  });

  it('is the calendar year when the year starts in January', () => {
    expect(span(financialYearOf('2025-12-31', 1))).toEqual(['2025-01-01', '2025-12-31', 'FY 2025']);
    expect(span(quarterOf('2025-05-10', 1))).toEqual([
      '2025-04-01',
      '2025-06-30',
      'Q2 FY 2025 (Apr–Jun 2025)',
    ]);
  });

  it('ends a leap year in February on the 29th (July start, Australian style)', () => {
    expect(span(fyPeriod(2023, 3))).toEqual(['2023-03-01', '2024-02-29', 'FY 2023-24']);
    expect(span(fyPeriod(2023, 7))).toEqual(['2023-07-01', '2024-06-30', 'FY 2023-24']);
  });

  it('numbers quarters from the FY start: Q1 is Apr–Jun, Q4 FY 2025-26 is Jan–Mar 2026', () => {
    expect(span(quarterOf('2026-05-15', 4))).toEqual([
      '2026-04-01',
      '2026-06-30',
      'Q1 FY 2026-27 (Apr–Jun 2026)',
    ]);
    expect(span(quarterOf('2026-08-01', 4))).toEqual([
      '2026-07-01',
      '2026-09-30',
      'Q2 FY 2026-27 (Jul–Sep 2026)',
    ]);
    expect(span(quarterOf('2026-02-10', 4))).toEqual([
      '2026-01-01',
      '2026-03-31',
      'Q4 FY 2025-26 (Jan–Mar 2026)',
    ]);
    expect(span(fyQuarter(2025, 4, 4))).toEqual(['2026-01-01', '2026-03-31', 'Q4 FY 2025-26 (Jan–Mar 2026)']);
    // A quarter across the new year when the year starts in November.
    expect(span(quarterOf('2026-01-15', 11))).toEqual([
      '2025-11-01',
      '2026-01-31',
      'Q1 FY 2025-26 (Nov 2025–Jan 2026)',
    ]);
  });

  it('refuses a start month outside 1..12', () => {
    expect(() => fyPeriod(2025, 0)).toThrow(RangeError);
    expect(() => financialYearOf('2025-01-01', 13)).toThrow(RangeError);
  });
});

describe('months and their neighbours', () => {
  it('has 29 days in February 2024 and 28 in February 2025', () => {
    expect(span(monthPeriod(2024, 2))).toEqual(['2024-02-01', '2024-02-29', 'February 2024']);
    expect(daysIn(monthPeriod(2025, 2))).toBe(28);
    expect(span(samePeriodLastYear(monthPeriod(2025, 2)))).toEqual([
      '2024-02-01',
      '2024-02-29',
      'February 2024',
    ]);
  });

  it('goes back across the financial year: April 2026 follows March 2026', () => {
    expect(span(previousPeriod(monthPeriod(2026, 4)))).toEqual(['2026-03-01', '2026-03-31', 'March 2026']);
    expect(span(previousPeriod(quarterOf('2026-04-10', 4)))).toEqual([
      '2026-01-01',
      '2026-03-31',
      'Q4 FY 2025-26 (Jan–Mar 2026)',
    ]);
    expect(span(previousPeriod(financialYearOf('2026-04-10', 4)))).toEqual([
      '2025-04-01',
      '2026-03-31',
      'FY 2025-26',
    ]);
    expect(span(previousPeriod(monthPeriod(2026, 1)))).toEqual(['2025-12-01', '2025-12-31', 'December 2025']);
  });

  it('moves 29 February a year to the 28th, either way', () => {
    const leapDay = customPeriod('2024-02-29', '2024-02-29');
    expect(samePeriodLastYear(leapDay).from).toBe('2023-02-28');
    expect(samePeriodLastYear({ ...leapDay, grain: 'day' }).from).toBe('2023-02-28');
    expect(samePeriodLastYear(customPeriod('2025-02-01', '2025-02-28'))).toMatchObject({
      from: '2024-02-01',
      to: '2024-02-29',
    });
    expect(addMonths('2024-02-29', 12)).toBe('2025-02-28');
    expect(addMonths('2026-03-31', -1)).toBe('2026-02-28');
  });

  it('compares a month to date with the same days of the month before and a year before', () => {
    const mtd = toDate(monthPeriod(2026, 11), '2026-11-28');
    expect(span(mtd)).toEqual(['2026-11-01', '2026-11-28', 'November 2026 to date (1–28 Nov 2026)']);
    expect(mtd.toDate).toBe(true);
    expect(previousPeriod(mtd)).toMatchObject({ from: '2026-10-01', to: '2026-10-28', grain: 'month' });
    expect(samePeriodLastYear(mtd)).toMatchObject({ from: '2025-11-01', to: '2025-11-28' });
    // 30 March to date against February: cut at its end.
    expect(previousPeriod(toDate(monthPeriod(2025, 3), '2025-03-30'))).toMatchObject({
      from: '2025-02-01',
      to: '2025-02-28',
    });
    const ytd = toDate(financialYearOf('2026-11-28', 4), '2026-11-28');
    expect(ytd.label).toBe('FY 2026-27 to date (1 Apr – 28 Nov 2026)');
    expect(previousPeriod(ytd)).toMatchObject({ from: '2025-04-01', to: '2025-11-28' });
  });

  it('leaves a period alone that has ended or not begun', () => {
    const march = monthPeriod(2026, 3);
    expect(toDate(march, '2026-11-28')).toEqual(march);
    expect(toDate(march, '2026-01-01')).toEqual(march);
    expect(toDate(march, '2026-03-31')).toEqual(march);
  });

  it('shifts a custom span by its length, or by months when it is whole months', () => {
    expect(previousPeriod(customPeriod('2026-11-10', '2026-11-19'))).toMatchObject({
      from: '2026-10-31',
      to: '2026-11-09',
    });
    expect(span(previousPeriod(customPeriod('2026-08-01', '2026-10-31')))).toEqual([
      '2026-05-01',
      '2026-07-31',
      'May–Jul 2026',
    ]);
  });

  it('reads spans as a finance person writes them', () => {
    expect(spanLabel('2026-04-01', '2026-11-28')).toBe('1 Apr – 28 Nov 2026');
    expect(spanLabel('2025-12-15', '2026-01-10')).toBe('15 Dec 2025 – 10 Jan 2026');
    expect(spanLabel('2026-11-01', '2026-11-28')).toBe('1–28 Nov 2026');
    expect(weekOf('2026-11-28')).toMatchObject({ from: '2026-11-23', to: '2026-11-29' });
  });
});

const day = fc
  .integer({ min: Date.UTC(1990, 0, 1) / 86_400_000, max: Date.UTC(2100, 0, 1) / 86_400_000 })
  .map((n) => new Date(n * 86_400_000).toISOString().slice(0, 10));
const fsm = fc.integer({ min: 1, max: 12 });
const wholePeriod = fc
  .tuple(day, fsm, fc.constantFrom('day', 'week', 'month', 'quarter', 'fy', 'year'))
  .map(([d, m, grain]): Period => {
    const [y, mo] = [Number(d.slice(0, 4)), Number(d.slice(5, 7))];
    if (grain === 'day') return dayPeriod(d);
    if (grain === 'week') return weekOf(d);
    if (grain === 'month') return monthPeriod(y, mo);
    if (grain === 'quarter') return quarterOf(d, m);
    if (grain === 'fy') return financialYearOf(d, m);
    return { from: `${y}-01-01`, to: `${y}-12-31`, grain: 'year', label: String(y) };
  });

describe('properties', () => {
  it('previous then next: contiguous days, no gap, no overlap, back where it began', () => {
    fc.assert(
      fc.property(wholePeriod, (p) => {
        const prev = previousPeriod(p);
        expect(addDays(prev.to, 1)).toBe(p.from);
        expect(prev.grain).toBe(p.grain);
        const next = nextPeriod(p);
        expect(addDays(p.to, 1)).toBe(next.from);
        expect([nextPeriod(prev).from, nextPeriod(prev).to]).toEqual([p.from, p.to]);
      }),
    );
  });

  it('a custom span and the one before it tile the calendar', () => {
    fc.assert(
      fc.property(day, fc.integer({ min: 0, max: 400 }), (from, n) => {
        const p = customPeriod(from, addDays(from, n));
        const prev = previousPeriod(p);
        expect(addDays(prev.to, 1)).toBe(p.from);
        const wholeMonths = p.from.endsWith('-01') && addDays(p.to, 1).endsWith('-01');
        if (wholeMonths) {
          // Whole months go back by as many months: 1 Jul–31 Jul next year is preceded by 1 Jun a year before.
          expect(prev.from.endsWith('-01') && addDays(prev.to, 1).endsWith('-01')).toBe(true);
        } else {
          expect(daysIn(prev)).toBe(daysIn(p));
        }
      }),
    );
  });

  it('a date lies in its own FY and quarter, and the four quarters make the year', () => {
    fc.assert(
      fc.property(day, fsm, (d, m) => {
        const fy = financialYearOf(d, m);
        const q = quarterOf(d, m);
        expect(fy.from <= d && d <= fy.to).toBe(true);
        expect(q.from <= d && d <= q.to).toBe(true);
        const y = Number(fy.from.slice(0, 4));
        expect(fyQuarter(y, 1, m).from).toBe(fy.from);
        expect(addDays(fyQuarter(y, 4, m).to, 0)).toBe(fy.to);
        expect(daysIn(fy)).toBeGreaterThanOrEqual(365);
      }),
    );
  });

  it('the same period last year is a year earlier and a cut period stays within its whole', () => {
    fc.assert(
      fc.property(wholePeriod, day, (p, today) => {
        const ly = samePeriodLastYear(p);
        expect(ly.from <= ly.to).toBe(true);
        if (p.grain === 'week') expect(addDays(ly.from, 364)).toBe(p.from);
        else expect(Number(p.from.slice(0, 4)) - Number(ly.from.slice(0, 4))).toBe(1);
        const cut = toDate(p, today);
        expect(cut.from).toBe(p.from);
        expect(cut.to <= p.to && cut.from <= cut.to).toBe(true);
      }),
    );
  });
});
