import { z } from 'zod';
import { fieldKey, isDateKey } from './money-fields.ts';
import { isRecord } from './values.ts';

// The dates a write is dated by, found by meaning, and the closed period they may not fall in.

/** Words of a date field that say when something falls due or ends, not when it happened. */
const NOT_WHEN = new Set([
  'due',
  'expiry',
  'expiration',
  'expire',
  'expires',
  'valid',
  'validity',
  'until',
  'delivery',
  'ship',
  'shipping',
  'shipment',
  'reminder',
  'follow',
  'next',
  'birth',
  'promised',
  'promise',
  'created',
  'modified',
  'updated',
]);

/** A date of the write: where it is in the call, and the calendar day (`YYYY-MM-DD`). */
export interface WriteDate {
  field: string;
  date: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD` of a real calendar day, else undefined. */
function day(year: number, month: number, date: number): string | undefined {
  const at = new Date(Date.UTC(year, month - 1, date));
  if (at.getUTCFullYear() !== year || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== date)
    return undefined;
  return `${year}-${pad(month)}-${pad(date)}`;
}

/**
 * The calendar day a date value names: ISO (`2026-10-31`, `2026-10-31T09:00:00+05:30`), compact
 * (`20261031`), the business's own short form (`31/10/2026`, or `10/31/2026` where the month comes
 * first), `/Date(ms)/`, or in words (`31 October 2026`).
 */
export function calendarDay(value: unknown, dateFormat = 'DD/MM/YYYY'): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  let m = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T ])/.exec(text);
  if (m) return day(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  if (m) return day(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(text);
  if (m) {
    const monthFirst = dateFormat.toUpperCase().startsWith('MM');
    const [a, b] = [Number(m[1]), Number(m[2])];
    return day(Number(m[3]), monthFirst ? a : b, monthFirst ? b : a);
  }
  m = /^\/Date\((-?\d+)(?:[+-]\d{4})?\)\/$/.exec(text);
  if (m) return new Date(Number(m[1])).toISOString().slice(0, 10);
  if (/[A-Za-z]{3,}/.test(text) && /\b\d{4}\b/.test(text) && /\b\d{1,2}(?:st|nd|rd|th)?\b/.test(text)) {
    const parsed = new Date(text);
    if (!Number.isNaN(parsed.getTime()))
      return day(parsed.getFullYear(), parsed.getMonth() + 1, parsed.getDate());
  }
  return undefined;
}

/** Whether a date field says when the write happened (not when it falls due or ends). */
function isWhenKey(name: string): boolean {
  return (
    isDateKey(name) &&
    !fieldKey(name)
      .split('_')
      .some((w) => NOT_WHEN.has(w))
  );
}

/** Every date of a call that says when it happened, nested documents and lines included, in order. */
export function writeDates(args: unknown, dateFormat?: string): WriteDate[] {
  const found: WriteDate[] = [];
  const walk = (value: unknown, path: string, depth: number) => {
    if (depth > 6) return;
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) walk(item, `${path}[${i}]`, depth + 1);
      return;
    }
    if (!isRecord(value)) return;
    for (const [key, inner] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      const date = isWhenKey(key) ? calendarDay(inner, dateFormat) : undefined;
      if (date) found.push({ field: at, date });
      else walk(inner, at, depth + 1);
    }
  };
  walk(args, '', 0);
  return found;
}

const IsoDay = z.iso.date();

/** A tenant's closed period, as a write's validation checks it (`closedUpTo` of a validate request). */
export const ClosedPeriodSchema = z.object({
  /** The lock date (`YYYY-MM-DD`): writes dated on or before it are refused (`period_locked`). */
  date: IsoDay,
  /** Today where the business is (`YYYY-MM-DD`): the date of a write that carries none. */
  today: IsoDay,
  /** How the business writes short dates (`DD/MM/YYYY`, `MM/DD/YYYY`). */
  dateFormat: z.string().max(20),
  /** BCP 47 locale dates are said in (`en-IN`). */
  locale: z.string().max(35),
});
export type ClosedPeriod = z.infer<typeof ClosedPeriodSchema>;

/** A day (`YYYY-MM-DD`) in words, as the business writes it (`31 October 2026`). */
export function longDate(isoDate: string, locale: string): string {
  const [year, month, date] = isoDate.split('-').map(Number) as [number, number, number];
  const at = new Date(Date.UTC(year, month - 1, date));
  try {
    return new Intl.DateTimeFormat(locale, {
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      timeZone: 'UTC',
    }).format(at);
  } catch {
    return isoDate;
  }
}

/** The first date of the write on or before the lock date (an undated write is dated today), if any. */
export function lockedDate(
  args: unknown,
  period: Pick<ClosedPeriod, 'date' | 'today' | 'dateFormat'>,
): (WriteDate & { undated: boolean }) | undefined {
  const dates = writeDates(args, period.dateFormat);
  if (dates.length === 0)
    return period.today <= period.date ? { field: 'date', date: period.today, undated: true } : undefined;
  const inside = dates.find((d) => d.date <= period.date);
  return inside ? { ...inside, undated: false } : undefined;
}

/** The `period_locked` issue of a write dated inside the closed period, naming the lock date in words; null outside it. */
export function closedPeriodIssue(
  args: unknown,
  period: ClosedPeriod,
): { field: string; expected: string; received: string; code: 'period_locked'; message: string } | null {
  const hit = lockedDate(args, period);
  if (!hit) return null;
  const words = (iso: string) => longDate(iso, period.locale);
  const dated = hit.undated
    ? `this change carries no date, so it counts as dated today, ${words(hit.date)}`
    : `${hit.field} is ${words(hit.date)}`;
  const message =
    `The books are closed up to ${words(period.date)}: ${dated}, inside the closed period, so it cannot be ` +
    `recorded. It may be dated after ${words(period.date)} only if the person asking says so, or an admin may ` +
    'move the lock date.';
  return {
    field: hit.field,
    expected: `a date after ${period.date}`,
    received: hit.date,
    code: 'period_locked',
    message,
  };
}
