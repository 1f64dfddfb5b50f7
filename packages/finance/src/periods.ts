/**
 * Periods of the books: calendar days as ISO `YYYY-MM-DD` strings, inclusive at both ends, with UTC-only
 * arithmetic so no time zone can move a day. Financial years start on the first of `fyStartMonth` (1..12;
 * 4 for India); a financial year is named by its start year ("FY 2025-26" starts 1 Apr 2025).
 */

export type Grain = 'day' | 'week' | 'month' | 'quarter' | 'fy' | 'year' | 'custom';

/** A span of whole days with the words a finance person reads for it. */
export interface Period {
  from: string;
  to: string;
  grain: Grain;
  label: string;
  /** The financial year's first month, kept on quarters and financial years so neighbours are named alike. */
  fyStartMonth?: number;
  /** Set when the period was cut at today before its natural end (see {@link toDate}). */
  toDate?: boolean;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTHS_LONG = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAY_MS = 86_400_000;

/** Year, month (1..12) and day of an ISO date; throws on anything that is not a real calendar day. */
export function parseDate(date: string): { y: number; m: number; d: number } {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new RangeError(`not an ISO date: ${date}`);
  const y = Number(match[1]);
  const m = Number(match[2]);
  const d = Number(match[3]);
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) throw new RangeError(`not a calendar day: ${date}`);
  return { y, m, d };
}

/** The ISO date of year, month (1..12, may overflow either way) and day (clamped to the month's length). */
export function isoDate(y: number, m: number, d: number): string {
  const months = y * 12 + (m - 1);
  const year = Math.floor(months / 12);
  const month = (months % 12) + 1;
  const day = Math.min(d, daysInMonth(year, month));
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(y: number, m: number): number {
  return [31, isLeapYear(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

function epochDay(date: string): number {
  const { y, m, d } = parseDate(date);
  // setUTCFullYear, unlike Date.UTC, does not read years 0..99 as 1900..1999.
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d);
  return t.getTime() / DAY_MS;
}

function fromEpochDay(n: number): string {
  return new Date(n * DAY_MS).toISOString().slice(0, 10);
}

/** The date `n` days after `date` (before, when negative). */
export function addDays(date: string, n: number): string {
  return fromEpochDay(epochDay(date) + n);
}

/** The same day `n` months later (earlier, when negative), clamped to the month's end: 31 Mar − 1 month = 28/29 Feb. */
export function addMonths(date: string, n: number): string {
  const { y, m, d } = parseDate(date);
  return isoDate(y, m + n, d);
}

/** Days from `from` to `to`, both counted: a period's length. */
export function daysIn(p: { from: string; to: string }): number {
  return epochDay(p.to) - epochDay(p.from) + 1;
}

/** `1` when a is later, `-1` when earlier, `0` when the same day. */
export function compareDates(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function lastOfMonth(date: string): string {
  const { y, m } = parseDate(date);
  return isoDate(y, m, 31);
}

function isFirstOfMonth(date: string): boolean {
  return date.endsWith('-01');
}

function isLastOfMonth(date: string): boolean {
  return lastOfMonth(date) === date;
}

function checkFyStart(fyStartMonth: number): void {
  if (!Number.isInteger(fyStartMonth) || fyStartMonth < 1 || fyStartMonth > 12) {
    throw new RangeError(`fyStartMonth must be 1..12, got ${fyStartMonth}`);
  }
}

/** "FY 2025-26" for a year starting in April 2025; "FY 2026" when the financial year is the calendar year. */
export function fyName(startYear: number, fyStartMonth: number): string {
  if (fyStartMonth === 1) return `FY ${startYear}`;
  return `FY ${startYear}-${String((startYear + 1) % 100).padStart(2, '0')}`;
}

/** The start year of the financial year holding `date`. */
export function fyStartYear(date: string, fyStartMonth: number): number {
  checkFyStart(fyStartMonth);
  const { y, m } = parseDate(date);
  return m >= fyStartMonth ? y : y - 1;
}

/** The financial year starting on the first of `fyStartMonth` in `startYear`. */
export function fyPeriod(startYear: number, fyStartMonth: number): Period {
  checkFyStart(fyStartMonth);
  const from = isoDate(startYear, fyStartMonth, 1);
  return {
    from,
    to: addDays(addMonths(from, 12), -1),
    grain: 'fy',
    label: fyName(startYear, fyStartMonth),
    fyStartMonth,
  };
}

/** The financial year holding `date`. */
export function financialYearOf(date: string, fyStartMonth: number): Period {
  return fyPeriod(fyStartYear(date, fyStartMonth), fyStartMonth);
}

function monthSpan(from: string, to: string): string {
  const a = parseDate(from);
  const b = parseDate(to);
  if (a.y === b.y) return `${MONTHS[a.m - 1]}–${MONTHS[b.m - 1]} ${a.y}`;
  return `${MONTHS[a.m - 1]} ${a.y}–${MONTHS[b.m - 1]} ${b.y}`;
}

/** Quarter `q` (1..4) of the financial year starting in `startYear`: with an April start, Q1 is Apr–Jun. */
export function fyQuarter(startYear: number, q: number, fyStartMonth: number): Period {
  checkFyStart(fyStartMonth);
  if (!Number.isInteger(q) || q < 1 || q > 4) throw new RangeError(`quarter must be 1..4, got ${q}`);
  const from = isoDate(startYear, fyStartMonth + (q - 1) * 3, 1);
  const to = addDays(addMonths(from, 3), -1);
  return {
    from,
    to,
    grain: 'quarter',
    label: `Q${q} ${fyName(startYear, fyStartMonth)} (${monthSpan(from, to)})`,
    fyStartMonth,
  };
}

/** The financial-year quarter holding `date`. */
export function quarterOf(date: string, fyStartMonth: number): Period {
  const startYear = fyStartYear(date, fyStartMonth);
  const { m } = parseDate(date);
  const q = Math.floor(((((m - fyStartMonth) % 12) + 12) % 12) / 3) + 1;
  return fyQuarter(startYear, q, fyStartMonth);
}

/** The calendar month `m` (1..12) of year `y`: "November 2026". */
export function monthPeriod(y: number, m: number): Period {
  const from = isoDate(y, m, 1);
  const { y: year, m: month } = parseDate(from);
  return { from, to: lastOfMonth(from), grain: 'month', label: `${MONTHS_LONG[month - 1]} ${year}` };
}

/** The calendar year `y`, 1 Jan to 31 Dec. */
export function calendarYear(y: number): Period {
  return { from: isoDate(y, 1, 1), to: isoDate(y, 12, 31), grain: 'year', label: `Calendar year ${y}` };
}

/** One day: "28 Nov 2026". */
export function dayPeriod(date: string): Period {
  parseDate(date);
  return { from: date, to: date, grain: 'day', label: dayLabel(date) };
}

/** The week, Monday to Sunday, holding `date`. */
export function weekOf(date: string): Period {
  const dow = (new Date(epochDay(date) * DAY_MS).getUTCDay() + 6) % 7;
  const from = addDays(date, -dow);
  const to = addDays(from, 6);
  return { from, to, grain: 'week', label: `Week of ${spanLabel(from, to)}` };
}

function dayLabel(date: string): string {
  const { y, m, d } = parseDate(date);
  return `${d} ${MONTHS[m - 1]} ${y}`;
}

/** Words for any span of days: "1 Apr – 28 Nov 2026", "1–28 Nov 2026", "15 Dec 2025 – 10 Jan 2026". */
export function spanLabel(from: string, to: string): string {
  const a = parseDate(from);
  const b = parseDate(to);
  if (from === to) return dayLabel(from);
  if (isFirstOfMonth(from) && isLastOfMonth(to) && !(a.y === b.y && a.m === b.m)) return monthSpan(from, to);
  if (a.y !== b.y) return `${dayLabel(from)} – ${dayLabel(to)}`;
  if (a.m === b.m) return `${a.d}–${b.d} ${MONTHS[a.m - 1]} ${a.y}`;
  return `${a.d} ${MONTHS[a.m - 1]} – ${b.d} ${MONTHS[b.m - 1]} ${b.y}`;
}

/** Any span of days as a custom period. */
export function customPeriod(from: string, to: string): Period {
  if (compareDates(from, to) > 0) throw new RangeError(`period ends before it starts: ${from} to ${to}`);
  return { from, to, grain: 'custom', label: spanLabel(from, to) };
}

function fyStartOf(p: Period): number {
  if (p.fyStartMonth !== undefined) return p.fyStartMonth;
  // A quarter built elsewhere without its FY start: April when it lines up with April, else its own alignment.
  const m = parseDate(p.from).m;
  return (m - 4) % 3 === 0 ? 4 : ((m - 1) % 3) + 1;
}

/** The same kind of period beginning on `from` (the full one: month, quarter, FY, year, week, day). */
function periodStarting(p: Period, from: string): Period {
  const { y, m } = parseDate(from);
  switch (p.grain) {
    case 'day':
      return dayPeriod(from);
    case 'week':
      return weekOf(from);
    case 'month':
      return monthPeriod(y, m);
    case 'quarter':
      return quarterOf(from, fyStartOf(p));
    case 'fy':
      return financialYearOf(from, p.fyStartMonth ?? m);
    case 'year':
      return calendarYear(y);
    case 'custom':
      return customPeriod(from, addDays(from, daysIn(p) - 1));
  }
}

const GRAIN_MONTHS: Partial<Record<Grain, number>> = { month: 1, quarter: 3, fy: 12, year: 12 };

/** Months covered by a custom span of whole months (1 Aug–31 Oct: 3), else undefined. */
function wholeMonths(p: Period): number | undefined {
  if (!isFirstOfMonth(p.from) || !isLastOfMonth(p.to)) return undefined;
  const a = parseDate(p.from);
  const b = parseDate(p.to);
  return (b.y - a.y) * 12 + (b.m - a.m) + 1;
}

/** A period shifted by whole months, keeping its kind: a cut period keeps the same days into its span. */
function shiftMonths(p: Period, months: number): Period {
  const from = addMonths(p.from, months);
  if (p.grain === 'custom') {
    const to =
      isLastOfMonth(p.to) && isFirstOfMonth(p.from)
        ? lastOfMonth(addMonths(p.to, months))
        : addMonths(p.to, months);
    return customPeriod(from, to);
  }
  const whole = periodStarting(p, from);
  return p.toDate ? cutAt(whole, addMonths(p.to, months)) : whole;
}

function shiftDays(p: Period, days: number): Period {
  const from = addDays(p.from, days);
  if (p.grain === 'custom') return customPeriod(from, addDays(p.to, days));
  const whole = periodStarting(p, from);
  return p.toDate ? cutAt(whole, addDays(p.to, days)) : whole;
}

/**
 * The period of the same kind just before: the previous month, FY quarter, financial year, week or day.
 * A period cut at today compares with the same days of the one before ("1–28 Nov" with "1–28 Oct"); a custom
 * span of whole months with as many months before it, any other custom span with as many days before it.
 */
export function previousPeriod(p: Period): Period {
  const months = GRAIN_MONTHS[p.grain] ?? (p.grain === 'custom' ? wholeMonths(p) : undefined);
  if (months !== undefined) return shiftMonths(p, -months);
  if (p.grain === 'week') return shiftDays(p, -7);
  return shiftDays(p, -daysIn(p));
}

/** The period of the same kind just after (the inverse of {@link previousPeriod} for whole periods). */
export function nextPeriod(p: Period): Period {
  const months = GRAIN_MONTHS[p.grain] ?? (p.grain === 'custom' ? wholeMonths(p) : undefined);
  if (months !== undefined) return shiftMonths(p, months);
  if (p.grain === 'week') return shiftDays(p, 7);
  return shiftDays(p, daysIn(p));
}

/**
 * The same period a year earlier. Days move by twelve months, so 29 Feb 2024 becomes 28 Feb 2023 and the
 * 28 Feb 2025 of a span becomes 28 Feb 2024; months, quarters and years stay whole (February 2025 against
 * February 2024 with its 29th). A week becomes the week 52 weeks before, so weekdays line up.
 */
export function samePeriodLastYear(p: Period): Period {
  if (p.grain === 'week') return shiftDays(p, -364);
  if (p.grain === 'day') return dayPeriod(addMonths(p.from, -12));
  return shiftMonths(p, -12);
}

function cutAt(p: Period, today: string): Period {
  if (compareDates(today, p.to) >= 0 || compareDates(today, p.from) < 0) return p;
  // "Q3 FY 2026-27 (Oct–Dec 2026)" cut is "Q3 FY 2026-27 to date (1 Oct – 28 Nov 2026)".
  const name = p.label.replace(/ \(.*\)$/, '');
  return { ...p, to: today, toDate: true, label: `${name} to date (${spanLabel(p.from, today)})` };
}

/**
 * A period that has not ended by `today` cut at today, its label saying "to date"; a period already over,
 * or not yet begun, comes back as it was.
 */
export function toDate(p: Period, today: string): Period {
  parseDate(today);
  return cutAt(p, today);
}

/** Whether `date` falls within the period. */
export function contains(p: Period, date: string): boolean {
  return compareDates(date, p.from) >= 0 && compareDates(date, p.to) <= 0;
}
