/** Budget against actual, with budgets pro-rated to the period asked about. */
import { addDays, dayNumber, fromPaise, isoDay, partyKey, toPaise } from './receivables.ts';

/** A budgeted amount for a line over a period (both days included). */
export interface BudgetLine {
  name: string;
  period: { from: string; to: string };
  amount: number;
}

/** One line's budget for the period, what was spent, and the difference. */
export interface BudgetVariance {
  name: string;
  budget: number;
  actual: number;
  /** actual − budget: positive is over budget. */
  variance: number;
  /** variance ÷ budget × 100, to 2 decimals; null when the budget is 0. */
  variancePct: number | null;
  /** How each budget line was brought to the period. */
  basis: { period: { from: string; to: string }; amount: number; share: string; counted: number }[];
}

/** Budget against actual for a period. */
export interface BudgetVsActual {
  period: { from: string; to: string };
  lines: BudgetVariance[];
  /** Actual lines with no budget overlapping the period. */
  unbudgeted: { name: string; actual: number }[];
  /** Over the budgeted lines (unbudgeted actuals are not in them). */
  totals: { budget: number; actual: number; variance: number; variancePct: number | null };
  /** How the budgets were brought to the period, in words. */
  assumptions: string[];
}

function isMonthStart(iso: string): boolean {
  return iso.endsWith('-01');
}

function isMonthEnd(iso: string): boolean {
  return addDays(iso, 1).endsWith('-01');
}

function monthIndex(iso: string): number {
  return Number(iso.slice(0, 4)) * 12 + Number(iso.slice(5, 7)) - 1;
}

function wholeMonths(p: { from: string; to: string }): boolean {
  return isMonthStart(p.from) && isMonthEnd(p.to);
}

/** Share of a budget period falling in `period`: [numerator, denominator, unit]. */
function share(
  budget: { from: string; to: string },
  period: { from: string; to: string },
): [number, number, 'month' | 'day'] {
  const from = Math.max(dayNumber(budget.from), dayNumber(period.from));
  const to = Math.min(dayNumber(budget.to), dayNumber(period.to));
  if (wholeMonths(budget) && wholeMonths(period)) {
    const span = monthIndex(budget.to) - monthIndex(budget.from) + 1;
    return [from > to ? 0 : monthIndex(isoDay(to)) - monthIndex(isoDay(from)) + 1, span, 'month'];
  }
  const span = dayNumber(budget.to) - dayNumber(budget.from) + 1;
  return [from > to ? 0 : to - from + 1, span, 'day'];
}

function pct(variance: number, budget: number): number | null {
  return budget === 0 ? null : Math.round((variance / budget) * 10_000) / 100;
}

function checkPeriod(p: { from: string; to: string }, what: string): void {
  if (dayNumber(p.to) < dayNumber(p.from))
    throw new RangeError(`${what} ends (${p.to}) before it starts (${p.from})`);
}

/**
 * Budget against actual for `period` (both days included). Each budget line is pro-rated to the part
 * of its period that falls in `period`: by whole calendar months when both periods are whole months
 * (a yearly budget of 12,00,000 gives 1,00,000 to any month), otherwise by calendar days (a leap
 * year's 366 days, February's 28 or 29). Budget lines of the same name (ignoring case and spaces) add
 * up, so monthly budgets sum over a quarter; a line whose period misses `period` is not counted.
 * Actuals are taken as given, by line name (a record, a map, or a list of name and amount; the same
 * name twice adds up); variance = actual − budget (positive: over budget) and
 * its percentage of the budget (null when the budget is 0). Actual lines without a budget for the
 * period are listed apart as unbudgeted. Computed in paise. No budgets at all → undefined.
 */
export function budgetVsActual(
  budget: readonly BudgetLine[] | undefined,
  actualByLine:
    | Readonly<Record<string, number>>
    | ReadonlyMap<string, number>
    | readonly { name: string; amount: number }[],
  period: { from: string; to: string },
): BudgetVsActual | undefined {
  if (budget === undefined || budget.length === 0) return undefined;
  checkPeriod(period, 'period');
  const actuals = new Map<string, { name: string; paise: number }>();
  const entries: [string, number][] = Array.isArray(actualByLine)
    ? actualByLine.map((a: { name: string; amount: number }) => [a.name, a.amount])
    : actualByLine instanceof Map
      ? [...actualByLine.entries()]
      : Object.entries(actualByLine);
  for (const [name, amount] of entries) {
    const key = partyKey(name);
    const prev = actuals.get(key);
    actuals.set(key, { name: prev?.name ?? name.trim(), paise: (prev?.paise ?? 0) + toPaise(amount) });
  }
  const lines = new Map<string, { name: string; paise: number; basis: BudgetVariance['basis'] }>();
  for (const b of budget) {
    checkPeriod(b.period, `budget ${b.name}`);
    const [num, den, unit] = share(b.period, period);
    if (num === 0) continue;
    const counted = Math.round((toPaise(b.amount) * num) / den);
    const key = partyKey(b.name);
    const line = lines.get(key) ?? { name: b.name.trim(), paise: 0, basis: [] };
    line.paise += counted;
    line.basis.push({
      period: { from: b.period.from, to: b.period.to },
      amount: b.amount,
      share: `${num}/${den} ${unit}s`,
      counted: fromPaise(counted),
    });
    lines.set(key, line);
  }
  const out: BudgetVariance[] = [...lines.entries()].map(([key, l]) => {
    const actual = actuals.get(key)?.paise ?? 0;
    return {
      name: l.name,
      budget: fromPaise(l.paise),
      actual: fromPaise(actual),
      variance: fromPaise(actual - l.paise),
      variancePct: pct(actual - l.paise, l.paise),
      basis: l.basis,
    };
  });
  const unbudgeted = [...actuals.entries()]
    .filter(([key]) => !lines.has(key))
    .map(([, a]) => ({ name: a.name, actual: fromPaise(a.paise) }));
  const budgetTotal = [...lines.values()].reduce((s, l) => s + l.paise, 0);
  const actualTotal = [...lines.keys()].reduce((s, k) => s + (actuals.get(k)?.paise ?? 0), 0);
  const units = new Set(out.flatMap((l) => l.basis.map((b) => b.share.split(' ')[1])));
  const assumptions = [
    units.size === 0
      ? `No budget covers ${period.from} to ${period.to}.`
      : `Each budget counts for the share of its period that falls in ${period.from} – ${period.to}, ${[
          units.has('months') ? 'in whole calendar months (both periods being whole months)' : '',
          units.has('days') ? 'in calendar days' : '',
        ]
          .filter(Boolean)
          .join('; ')}.`,
    'Variance is actual minus budget: positive means over budget.',
  ];
  if (unbudgeted.length > 0) {
    assumptions.push(
      `${unbudgeted.map((u) => u.name).join(', ')} had spending but no budget for the period; not in the totals.`,
    );
  }
  return {
    period: { from: period.from, to: period.to },
    lines: out,
    unbudgeted,
    totals: {
      budget: fromPaise(budgetTotal),
      actual: fromPaise(actualTotal),
      variance: fromPaise(actualTotal - budgetTotal),
      variancePct: pct(actualTotal - budgetTotal, budgetTotal),
    },
    assumptions,
  };
}
