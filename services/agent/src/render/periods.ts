/** A reporting period: a month, a quarter or a year, in order. */
export interface Period {
  grain: 'month' | 'quarter' | 'year';
  /** Position in time within its grain; periods without a year only order within one year. */
  ordinal: number;
  hasYear: boolean;
  /** The period in words: "Dec 2025" for "2025-12"; other forms as given. */
  words: string;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const fullYear = (y: string) => (y.length === 2 ? 2000 + Number(y) : Number(y));

/**
 * The period a label names — "2025-12", "Dec 2025", "January", "Q3 2026", "2026-Q1", "FY 2025-26",
 * "2025" — or undefined for anything else, days included: a day's date names a record, not a period.
 */
export function periodOf(value: unknown): Period | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const v = String(value).trim();
  let m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(v);
  if (m) {
    const [y, mo] = [Number(m[1]), Number(m[2])];
    const name = MONTHS[mo - 1] ?? '';
    return {
      grain: 'month',
      ordinal: y * 12 + mo - 1,
      hasYear: true,
      words: `${name[0]?.toUpperCase()}${name.slice(1)} ${y}`,
    };
  }
  m =
    /^(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?(?:[\s,'-]+'?(\d{4}|\d{2}))?$/i.exec(
      v,
    );
  const month = m ? MONTHS.indexOf(m[1]?.slice(0, 3).toLowerCase() ?? '') : -1;
  if (m && month >= 0) {
    const y = m[2] ? fullYear(m[2]) : 0;
    return { grain: 'month', ordinal: y * 12 + month, hasYear: !!m[2], words: v };
  }
  m = /^(?:(\d{4})\s*-?\s*)?Q([1-4])(?:\s*(?:FY)?\s*'?(\d{4}|\d{2})(?:\s*[-/]\s*\d{2,4})?)?$/i.exec(v);
  if (m) {
    const y = m[1] ? Number(m[1]) : m[3] ? fullYear(m[3]) : 0;
    return { grain: 'quarter', ordinal: y * 4 + Number(m[2]) - 1, hasYear: y > 0, words: v };
  }
  m = /^(FY\s*'?)?(\d{4}|\d{2})(?:\s*[-/]\s*(\d{4}|\d{2}))?$/i.exec(v);
  if (m && (m[1] || (m[2] as string).length === 4)) {
    const y = fullYear(m[2] as string);
    if (y < 1900 || y > 2200) return undefined;
    return { grain: 'year', ordinal: y, hasYear: true, words: v };
  }
  return undefined;
}

/**
 * The rows as a period series: every row's `key` names a period of one grain, each period once.
 * Sorted oldest first; undefined when the rows are not such a series.
 */
export function periodSeries<T extends Record<string, unknown>>(
  rows: T[],
  key: string,
): { row: T; period: Period }[] | undefined {
  const parsed = rows.map((row) => ({ row, period: periodOf(row[key]) }));
  if (parsed.some((p) => !p.period)) return undefined;
  const series = parsed as { row: T; period: Period }[];
  const first = series[0]?.period;
  if (!first || series.some((p) => p.period.grain !== first.grain || p.period.hasYear !== first.hasYear))
    return undefined;
  if (new Set(series.map((p) => p.period.ordinal)).size !== series.length) return undefined;
  // Months without a year order only within one year, as given: keep their order.
  return first.hasYear ? [...series].sort((a, b) => a.period.ordinal - b.period.ordinal) : series;
}
