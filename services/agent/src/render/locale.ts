import { type BusinessContext, DEFAULT_BUSINESS_CONTEXT } from '@munim/db';

/** Money, numbers, dates and periods as the business writes them (its business context). */
export interface Formats {
  readonly business: BusinessContext;
  /** ₹1,25,000.50 — in `currency` when a record states its own. */
  money(value: number, currency?: string): string;
  /** ₹12,34,567 (12.35 lakh): whole units, with the large-number words past a lakh or a million. */
  large(value: number, currency?: string): string;
  number(value: number): string;
  /** 0.459 → 45.9% */
  percent(fraction: number): string;
  /** A short date (01/12/2025 in en-IN), or undefined when `value` is no date. */
  date(value: unknown): string | undefined;
  /** A date in words (1 Dec 2025). */
  longDate(value: unknown): string | undefined;
  /** "1 Dec 2025 to 24 Nov 2026", naming the financial year when the period is one. */
  period(from: unknown, to: unknown): string | undefined;
  /** FY 2026-27 (or FY 2026 when the year starts in January) of a date. */
  financialYear(value: Date | string): string;
}

const MONTHS = [
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

/** The month a financial year starting in `fyStartMonth` runs to. */
export function fyMonths(fyStartMonth: number): string {
  return `${MONTHS[fyStartMonth - 1]} to ${MONTHS[(fyStartMonth + 10) % 12]}`;
}

function region(locale: string): string | undefined {
  try {
    return new Intl.Locale(locale).maximize().region;
  } catch {
    return undefined;
  }
}

/**
 * The locale numbers are grouped in: Intl groups by locale, so the Indian system (12,34,567) needs
 * an Indian locale and the international one (1,234,567) a non-Indian one.
 */
function numberLocale(b: BusinessContext): string {
  const indianLocale = region(b.locale) === 'IN';
  if (b.numberSystem === 'indian') return indianLocale ? b.locale : 'en-IN';
  return indianLocale ? 'en' : b.locale;
}

/** A date from an ISO date or timestamp, or a Microsoft JSON date (`/Date(1518685950940+0000)/`). */
export function parseDate(value: unknown): { date: Date; dateOnly: boolean } | undefined {
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? undefined : { date: value, dateOnly: false };
  if (typeof value !== 'string') return undefined;
  const ms = /^\/Date\((-?\d+)([+-]\d{4})?\)\/$/.exec(value);
  if (ms) return { date: new Date(Number(ms[1])), dateOnly: false };
  const iso = /^(\d{4})-(\d{2})-(\d{2})(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.exec(value);
  if (!iso) return undefined;
  // A bare date is a calendar day: read and shown in UTC so no time zone moves it.
  const date = iso[4] ? new Date(value) : new Date(Date.UTC(+iso[1]!, +iso[2]! - 1, +iso[3]!));
  if (Number.isNaN(date.getTime())) return undefined;
  return { date, dateOnly: !iso[4] || /^T00:00(:00(\.0+)?)?$/.test(iso[4]) };
}

function fyStart(date: Date, startMonth: number): number {
  const y = date.getUTCFullYear();
  return date.getUTCMonth() + 1 >= startMonth ? y : y - 1;
}

const built = new Map<string, Formats>();
/** Tenants whose formats are kept; Intl formatters are costly to make and every answer uses them. */
const FORMATS_KEPT = 256;

export function formatsFor(business: BusinessContext = DEFAULT_BUSINESS_CONTEXT): Formats {
  const key = JSON.stringify(business);
  let formats = built.get(key);
  if (formats) {
    // Most recently used last: the oldest goes first when the map is full.
    built.delete(key);
  } else {
    formats = buildFormats(business);
    if (built.size >= FORMATS_KEPT) built.delete(built.keys().next().value as string);
  }
  built.set(key, formats);
  return formats;
}

function buildFormats(business: BusinessContext): Formats {
  const locale = numberLocale(business);
  const cache = new Map<string, Intl.NumberFormat>();
  const nf = (key: string, make: () => Intl.NumberFormat) => {
    let f = cache.get(key);
    if (!f) {
      f = make();
      cache.set(key, f);
    }
    return f;
  };
  const currencyFormat = (currency: string, digits: number) =>
    nf(`${currency}:${digits}`, () => {
      try {
        return new Intl.NumberFormat(locale, {
          style: 'currency',
          currency,
          minimumFractionDigits: digits,
          maximumFractionDigits: digits,
        });
      } catch {
        // Not an ISO currency code: the number, then the code as the books gave it.
        return new Intl.NumberFormat(locale, {
          minimumFractionDigits: digits,
          maximumFractionDigits: digits,
        });
      }
    });
  const isCurrency = new WeakMap<Intl.NumberFormat, boolean>();
  const withCode = (text: string, currency: string, f: Intl.NumberFormat) => {
    let style = isCurrency.get(f);
    if (style === undefined) {
      style = f.resolvedOptions().style === 'currency';
      isCurrency.set(f, style);
    }
    return style ? text : `${text} ${currency}`;
  };
  const compact = nf('compact', () => {
    return new Intl.NumberFormat(locale, {
      notation: 'compact',
      compactDisplay: 'long',
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    });
  });
  const compactFrom = business.numberSystem === 'indian' ? 1e5 : 1e6;
  const dates = new Map<string, Intl.DateTimeFormat>();
  const dateFormat = (kind: 'short' | 'long', zone: string) => {
    const key = `${kind}:${zone}`;
    let f = dates.get(key);
    if (!f) {
      f = new Intl.DateTimeFormat(business.locale, {
        day: kind === 'short' ? '2-digit' : 'numeric',
        month: kind === 'short' ? '2-digit' : 'short',
        year: 'numeric',
        timeZone: zone,
      });
      dates.set(key, f);
    }
    return f;
  };
  const short = (zone: string) => dateFormat('short', zone);
  const long = (zone: string) => dateFormat('long', zone);
  const dateWith = (make: (zone: string) => Intl.DateTimeFormat) => (value: unknown) => {
    const parsed = parseDate(value);
    if (!parsed) return undefined;
    return make(parsed.dateOnly ? 'UTC' : business.timezone).format(parsed.date);
  };
  const financialYear = (value: Date | string) => {
    const date = typeof value === 'string' ? parseDate(value)?.date : value;
    if (!date) return '';
    const start = fyStart(date, business.fyStartMonth);
    if (business.fyStartMonth === 1) return `FY ${start}`;
    return `FY ${start}-${String((start + 1) % 100).padStart(2, '0')}`;
  };
  const longDate = dateWith(long);

  return {
    business,
    money(value, currency = business.currency) {
      const f = currencyFormat(currency, 2);
      return withCode(f.format(value), currency, f);
    },
    large(value, currency = business.currency) {
      const f = currencyFormat(currency, 0);
      const whole = withCode(f.format(value), currency, f);
      // Intl puts a narrow no-break space before "lakh"; chat text reads better with a plain one.
      return Math.abs(value) >= compactFrom
        ? `${whole} (${compact.format(value).replace(/[\u00a0\u202f]/g, ' ')})`
        : whole;
    },
    number: (value) => nf('number', () => new Intl.NumberFormat(locale)).format(value),
    percent: (fraction) =>
      nf(
        'percent',
        () => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }),
      ).format(fraction),
    date: dateWith(short),
    longDate,
    period(from, to) {
      const a = parseDate(from)?.date;
      const b = parseDate(to)?.date;
      if (!a && !b) return undefined;
      if (!a) return `to ${longDate(to)}`;
      if (!b) return `from ${longDate(from)}`;
      const startsFy = a.getUTCDate() === 1 && a.getUTCMonth() + 1 === business.fyStartMonth;
      const fy = financialYear(a);
      const fyEnd = new Date(Date.UTC(fyStart(a, business.fyStartMonth) + 1, business.fyStartMonth - 1, 0));
      const range = `${longDate(from)} to ${longDate(to)}`;
      if (startsFy && b.getTime() === fyEnd.getTime()) return `${fy} (${range})`;
      if (startsFy && b < fyEnd) return `${fy} to date (${range})`;
      return range;
    },
    financialYear,
  };
}
