// Closed periods: the date of a write is found by what its fields mean, in any naming style and
// nested document, and compared with the lock date; a write with no date is dated today where the
// business is. Real servers' shapes beside generated names, styles and dates.
import { describe, expect, it } from 'vitest';
import { calendarDay, closedPeriodIssue, lockedDate, longDate, writeDates } from '../src/write-dates.ts';

const INDIA = { dateFormat: 'DD/MM/YYYY', timezone: 'Asia/Kolkata' };
const US = { dateFormat: 'MM/DD/YYYY', timezone: 'America/New_York' };
const LOCK = '2026-10-31';

/** Today (YYYY-MM-DD) in `timeZone`. */
const todayIn = (timeZone: string, now: Date) => now.toLocaleDateString('en-CA', { timeZone });

/** The write's date inside the closed period up to LOCK, for a business like `biz`, `now`. */
const lockAt = (args: unknown, biz: typeof INDIA, now = new Date()) =>
  lockedDate(args, { date: LOCK, today: todayIn(biz.timezone, now), dateFormat: biz.dateFormat });

/** `invoice date` in the naming styles servers use. */
const STYLES: ((words: string[]) => string)[] = [
  (w) => w.map((x) => x[0]?.toUpperCase() + x.slice(1)).join(''),
  (w) =>
    w[0] +
    w
      .slice(1)
      .map((x) => x[0]?.toUpperCase() + x.slice(1))
      .join(''),
  (w) => w.join('_'),
  (w) => w.join('-'),
  (w) => w.join('_').toUpperCase(),
];
const PREFIXES = [[], ['invoice'], ['txn'], ['payment'], ['voucher'], ['posting'], ['document'], ['entry']];

describe('the date of a value', () => {
  it('reads ISO, compact, the business’s short form, /Date()/ and words', () => {
    expect(calendarDay('2026-10-31')).toBe('2026-10-31');
    expect(calendarDay('2026-10-31T23:30:00+05:30')).toBe('2026-10-31');
    expect(calendarDay('20261031')).toBe('2026-10-31');
    expect(calendarDay('31/10/2026')).toBe('2026-10-31');
    expect(calendarDay('10/31/2026', US.dateFormat)).toBe('2026-10-31');
    expect(calendarDay('31-10-2026')).toBe('2026-10-31');
    expect(calendarDay(`/Date(${Date.UTC(2026, 9, 31)})/`)).toBe('2026-10-31');
    expect(calendarDay('31 October 2026')).toBe('2026-10-31');
    for (const bad of ['2026-02-30', '31/02/2026', 'soon', '', 'Oct 2026', 42, null, '2026']) {
      expect(calendarDay(bad), String(bad)).toBeUndefined();
    }
  });
});

describe('the dates of a write', () => {
  it('finds when it happened in any style, nested documents and lines included, never when it falls due', () => {
    expect(writeDates({ Date: '2026-10-15', DueDate: '2026-11-14', Amount: 10 })).toEqual([
      { field: 'Date', date: '2026-10-15' },
    ]);
    expect(writeDates({ Invoice: { TxnDate: '2026-10-15', DueDate: '2026-11-01' } })).toEqual([
      { field: 'Invoice.TxnDate', date: '2026-10-15' },
    ]);
    expect(writeDates({ VOUCHER: { DATE: '20261015', NARRATION: 'x' } })).toEqual([
      { field: 'VOUCHER.DATE', date: '2026-10-15' },
    ]);
    expect(writeDates({ lines: [{ amount: 1 }, { service_date: '2026-09-01' }] })).toEqual([
      { field: 'lines[1].service_date', date: '2026-09-01' },
    ]);
    expect(
      writeDates({ due_date: '2026-09-01', expiryDate: '2026-09-01', validUntilDate: '2026-01-01' }),
    ).toEqual([]);
  });

  it('blocks a generated field in every style dated on or before the lock, and passes one after it', () => {
    let checked = 0;
    for (const style of STYLES) {
      for (const prefix of PREFIXES) {
        const key = style([...prefix, 'date']);
        for (const [date, locked] of [
          ['2026-10-31', true],
          ['2026-01-01', true],
          ['2025-04-01', true],
          ['2026-11-01', false],
          ['2027-03-31', false],
        ] as const) {
          const nested = checked % 2 === 0 ? { [key]: date } : { header: { [key]: date }, amount: 5 };
          const hit = lockAt(nested, INDIA);
          expect(Boolean(hit), `${key}=${date}`).toBe(locked);
          if (hit) expect(hit).toMatchObject({ date, undated: false });
          checked += 1;
        }
      }
    }
    expect(checked).toBe(STYLES.length * PREFIXES.length * 5);
  });

  it('reads the short form as the business writes it: day first in India, month first in the US', () => {
    // 05/11/2026 is 5 November in India (open) and 11 May in the US (closed).
    expect(lockAt({ date: '05/11/2026' }, INDIA)).toBeUndefined();
    expect(lockAt({ date: '05/11/2026' }, US)).toMatchObject({ date: '2026-05-11' });
  });

  it('counts an undated write as dated today where the business is', () => {
    const evening = new Date('2026-10-31T20:00:00Z');
    // 1 November already in Kolkata, still 31 October in New York.
    expect(lockAt({ Amount: 5 }, INDIA, evening)).toBeUndefined();
    expect(lockAt({ Amount: 5 }, US, evening)).toEqual({
      field: 'date',
      date: '2026-10-31',
      undated: true,
    });
    // A write with only a due date has no date of its own.
    expect(lockAt({ DueDate: '2026-01-01' }, US, evening)).toMatchObject({ undated: true });
  });

  it('names the first date inside the closed period when a write has several', () => {
    expect(lockAt({ Date: '2026-11-05', Lines: [{ ServiceDate: '2026-10-20' }] }, INDIA)).toMatchObject({
      field: 'Lines[0].ServiceDate',
      date: '2026-10-20',
    });
  });
});

describe('dates in words', () => {
  it('writes a date in full as the locale does', () => {
    expect(longDate('2026-10-31', 'en-IN')).toBe('31 October 2026');
    expect(longDate('2026-10-31', 'en-US')).toBe('October 31, 2026');
    expect(longDate('2025-03-31', 'en-GB')).toBe('31 March 2025');
  });
});

describe('the period_locked issue', () => {
  it('names the field, both dates and the lock in the business’s words; nothing outside the period', () => {
    const period = { date: LOCK, today: '2026-11-28', dateFormat: 'DD/MM/YYYY', locale: 'en-IN' };
    expect(closedPeriodIssue({ Date: '2026-10-15' }, period)).toMatchObject({
      field: 'Date',
      code: 'period_locked',
      received: '2026-10-15',
      message: expect.stringMatching(/closed up to 31 October 2026: Date is 15 October 2026/),
    });
    expect(closedPeriodIssue({ Amount: 5 }, { ...period, today: '2026-10-31' })?.message).toMatch(
      /carries no date, so it counts as dated today, 31 October 2026/,
    );
    expect(closedPeriodIssue({ Date: '2026-11-01' }, period)).toBeNull();
    expect(closedPeriodIssue({ Amount: 5 }, period)).toBeNull();
    expect(
      closedPeriodIssue({ date: '10/15/2026' }, { ...period, dateFormat: 'MM/DD/YYYY', locale: 'en-US' })
        ?.message,
    ).toMatch(/October 31, 2026/);
  });
});
