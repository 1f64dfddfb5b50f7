/**
 * Anomalies in spending: expense lines and vendors at a multiple of their trailing average, and
 * payments out of a party's pattern (far above its usual, a large first payment, a likely duplicate).
 */
import type { Movement } from './cash.ts';
import {
  addMonths,
  dayNumber,
  daysBetween,
  fromPaise,
  median,
  monthOf,
  partyKey,
  toPaise,
} from './receivables.ts';

/** One expense line (a category) or vendor (a party) in the month examined, against its history. */
export interface ExpenseLineFinding {
  dimension: 'category' | 'vendor';
  name: string;
  /** Spend in the month examined. */
  amount: number;
  /** Average monthly spend over the trailing months counted (months without spend count as zero). */
  trailingAverage: number;
  /** amount ÷ trailingAverage; null for a new line (average 0). */
  ratio: number | null;
  trailing: { month: string; amount: number }[];
}

/** The month examined, the history it was compared with, and what stood out. */
export interface UnusualExpenses {
  month: string;
  factor: number;
  minAmount: number;
  /** The trailing months averaged over: those the books cover, up to `trailingMonths` of them. */
  monthsCounted: string[];
  /** Lines at `factor` × their trailing average or more, by ratio, largest first (categories before vendors). */
  unusual: ExpenseLineFinding[];
  /** Lines with spend this month and none in any trailing month counted: new, not anomalies. */
  new: ExpenseLineFinding[];
}

/** Options of {@link unusualExpenses}. */
export interface UnusualExpenseOptions {
  /** `YYYY-MM` (a `YYYY-MM-DD` day stands for its month). */
  month: string;
  trailingMonths?: number;
  factor?: number;
  /** Lines spending less than this in the month are not reported. */
  minAmount?: number;
}

/**
 * Expense lines (by category) and vendors (by party) whose spend in `month` is at least `factor`
 * (2) × their trailing monthly average. Spend is the sum of outflows (negative movements) — refunds
 * and receipts do not offset it. The average is over the `trailingMonths` (3) calendar months before
 * `month`, a month without spend on the line counting as zero (the line's monthly run-rate), but
 * only months the books cover: months before the earliest movement given are unknown, not zero, and
 * are not counted. A line with spend this month and none in the months counted has no average: it is
 * reported as new, not as an anomaly. Lines below `minAmount` (0) this month are not reported.
 * Compared exactly in paise: amount × months ≥ factor × trailing total.
 */
export function unusualExpenses(
  movements: readonly Movement[],
  options: UnusualExpenseOptions,
): UnusualExpenses {
  // A day stands for its month.
  const month = /^\d{4}-\d{2}-\d{2}$/.test(options.month)
    ? monthOf(options.month)
    : addMonths(options.month, 0);
  const trailingMonths = options.trailingMonths ?? 3;
  const factor = options.factor ?? 2;
  const minAmount = options.minAmount ?? 0;
  if (!Number.isInteger(trailingMonths) || trailingMonths < 1) {
    throw new RangeError(`trailingMonths must be a positive whole number: ${trailingMonths}`);
  }
  if (!(factor > 0)) throw new RangeError(`factor must be positive: ${factor}`);
  const first = movements.reduce<string | undefined>((lo, m) => {
    const mo = monthOf(m.date);
    return lo === undefined || mo < lo ? mo : lo;
  }, undefined);
  const monthsCounted = Array.from({ length: trailingMonths }, (_, i) =>
    addMonths(month, i - trailingMonths),
  ).filter((m) => first !== undefined && m >= first);
  const wanted = new Set([month, ...monthsCounted]);

  const lines = new Map<
    string,
    { dimension: 'category' | 'vendor'; name: string; byMonth: Map<string, number> }
  >();
  const put = (dimension: 'category' | 'vendor', name: string | undefined, mo: string, paise: number) => {
    if (!name?.trim()) return;
    const key = `${dimension}:${partyKey(name)}`;
    const line = lines.get(key) ?? { dimension, name: name.trim(), byMonth: new Map<string, number>() };
    line.byMonth.set(mo, (line.byMonth.get(mo) ?? 0) + paise);
    lines.set(key, line);
  };
  for (const m of movements) {
    const paise = -toPaise(m.amount);
    const mo = monthOf(m.date);
    if (paise <= 0 || !wanted.has(mo)) continue;
    put('category', m.category, mo, paise);
    put('vendor', m.party, mo, paise);
  }

  const minPaise = toPaise(minAmount);
  const unusual: ExpenseLineFinding[] = [];
  const fresh: ExpenseLineFinding[] = [];
  for (const line of lines.values()) {
    const now = line.byMonth.get(month) ?? 0;
    if (now <= 0 || now < minPaise) continue;
    const trailing = monthsCounted.map((mo) => ({ month: mo, paise: line.byMonth.get(mo) ?? 0 }));
    const total = trailing.reduce((s, t) => s + t.paise, 0);
    const finding: ExpenseLineFinding = {
      dimension: line.dimension,
      name: line.name,
      amount: fromPaise(now),
      trailingAverage: total === 0 ? 0 : fromPaise(Math.round(total / trailing.length)),
      ratio: total === 0 ? null : (now * trailing.length) / total,
      trailing: trailing.map((t) => ({ month: t.month, amount: fromPaise(t.paise) })),
    };
    if (total === 0) fresh.push(finding);
    else if (now * trailing.length >= factor * total) unusual.push(finding);
  }
  const tie = (a: ExpenseLineFinding, b: ExpenseLineFinding) =>
    a.dimension.localeCompare(b.dimension) || a.name.localeCompare(b.name);
  unusual.sort((a, b) => (b.ratio ?? 0) - (a.ratio ?? 0) || tie(a, b));
  fresh.sort((a, b) => b.amount - a.amount || tie(a, b));
  return { month, factor, minAmount, monthsCounted, unusual, new: fresh };
}

/** A payment that does not fit its party's pattern, and why. */
export interface PaymentFinding {
  reason: 'above-usual' | 'first-large' | 'duplicate';
  payment: Movement;
  party: string;
  amount: number;
  /** Median of the party's earlier payments (above-usual). */
  usual?: number;
  /** How many earlier payments the usual is read from (above-usual). */
  sample?: number;
  /** amount ÷ usual (above-usual). */
  ratio?: number;
  /** The earlier payment this one repeats (duplicate). */
  duplicateOf?: Movement;
  /** Days between the two (duplicate). */
  daysApart?: number;
  explanation: string;
}

/** Options of {@link paymentsOutOfPattern}. */
export interface PaymentPatternOptions {
  /** Only payments on or after this day are examined (earlier ones still make the history). */
  from?: string;
  /** Only payments on or before this day are examined. */
  to?: string;
  /** A payment above factor × its party's median earlier payment is out of pattern; 2 unless given. */
  factor?: number;
  /** Earlier payments needed before a party has a usual amount; 2 unless given. */
  minHistory?: number;
  /** A first payment to a party at or above this is reported; no limit unless given. */
  firstPaymentThreshold?: number;
  /** Same party, same amount within this many days: a likely duplicate; 3 unless given. */
  duplicateWithinDays?: number;
}

/**
 * Payments (outflows with a party) that do not fit the party's pattern, each with its reason:
 * - above-usual: more than `factor` (2) × the median of the party's earlier payments (those on
 *   earlier days), when it has at least `minHistory` (2) of them;
 * - first-large: the first payment to a party, at or above `firstPaymentThreshold` when one is given;
 * - duplicate: the same party and the same amount to the paisa as an earlier payment at most
 *   `duplicateWithinDays` (3) days before (the same day included; compared with the closest one).
 * Parties are matched ignoring case and extra spaces. Only payments within `from`–`to` are examined;
 * all earlier ones form the history. Findings come in date order.
 */
export function paymentsOutOfPattern(
  movements: readonly Movement[],
  options: PaymentPatternOptions = {},
): PaymentFinding[] {
  const factor = options.factor ?? 2;
  const minHistory = Math.max(1, options.minHistory ?? 2);
  const window = options.duplicateWithinDays ?? 3;
  const threshold =
    options.firstPaymentThreshold === undefined ? undefined : toPaise(options.firstPaymentThreshold);
  const from = options.from === undefined ? -Infinity : dayNumber(options.from);
  const to = options.to === undefined ? Infinity : dayNumber(options.to);
  const byParty = new Map<string, { m: Movement; day: number; paise: number }[]>();
  for (const m of movements) {
    const paise = -toPaise(m.amount);
    if (paise <= 0 || !m.party?.trim()) continue;
    const key = partyKey(m.party);
    byParty.set(key, [...(byParty.get(key) ?? []), { m, day: dayNumber(m.date), paise }]);
  }
  const findings: PaymentFinding[] = [];
  for (const rows of byParty.values()) {
    rows.sort((a, b) => a.day - b.day);
    rows.forEach((row, i) => {
      if (row.day < from || row.day > to) return;
      const party = (row.m.party ?? '').trim();
      const base = { payment: row.m, party, amount: fromPaise(row.paise) };
      const earlierDays = rows.filter((r) => r.day < row.day);
      const usual = median(earlierDays.map((r) => r.paise));
      if (usual !== undefined && earlierDays.length >= minHistory && row.paise > factor * usual) {
        const ratio = row.paise / usual;
        findings.push({
          ...base,
          reason: 'above-usual',
          usual: fromPaise(Math.round(usual)),
          sample: earlierDays.length,
          ratio,
          explanation: `${fromPaise(row.paise)} to ${party} is ${ratio.toFixed(1)}× its usual ${fromPaise(Math.round(usual))} (median of ${earlierDays.length} earlier payments)`,
        });
      }
      if (i === 0 && threshold !== undefined && row.paise >= threshold) {
        findings.push({
          ...base,
          reason: 'first-large',
          explanation: `first payment to ${party}, ${fromPaise(row.paise)}, is at or above ${fromPaise(threshold)}`,
        });
      }
      const twin = rows
        .slice(0, i)
        .filter((r) => r.paise === row.paise && row.day - r.day <= window)
        .at(-1);
      if (twin) {
        const daysApart = daysBetween(twin.m.date, row.m.date);
        findings.push({
          ...base,
          reason: 'duplicate',
          duplicateOf: twin.m,
          daysApart,
          explanation: `${fromPaise(row.paise)} to ${party} on ${row.m.date} repeats the same amount paid ${daysApart === 0 ? 'the same day' : `${daysApart} day${daysApart === 1 ? '' : 's'} before`}`,
        });
      }
    });
  }
  return findings.sort(
    (a, b) => a.payment.date.localeCompare(b.payment.date) || a.party.localeCompare(b.party),
  );
}
