/**
 * Budgets of any books read by meaning, and budget against actual computed from them: Xero's
 * `Budgets[].BudgetLines[].BudgetBalances[]` (`{ Period: "2026-11", Amount }`), QuickBooks'
 * `Budget[].BudgetDetail[]` (`BudgetDate`, `AccountRef`), a plain list of `{ account, month,
 * amount }` or of lines with their own from and to days — each becomes budget lines with the days
 * they cover, matched to the profit and loss's lines by name (case, punctuation, "&" and "and").
 */
import { type AnalyticRequest, isRecord } from '@munim/contracts';
import {
  type BudgetLine,
  budgetVsActual,
  calendarYear,
  fyPeriod,
  monthPeriod,
  type PnlLine,
  spanLabel,
} from '@munim/finance';
import { amount, pick, type Rec, str } from '../render/shape.ts';
import {
  type AnalyticResultIn,
  type BudgetSide,
  type Computed,
  Decline,
  partial,
  pnlOf,
  unreadable,
} from './common.ts';
import { dayOf, payload } from './inputs.ts';
import { isComplete } from './records.ts';

const NAME = [
  'AccountName',
  'Account',
  'AccountRef',
  'LineName',
  'Line',
  'Category',
  'LedgerName',
  'Ledger',
  'Head',
  'Name',
  'Description',
];
const AMOUNT = [
  'Amount',
  'BudgetAmount',
  'BudgetedAmount',
  'Budgeted',
  'Budget',
  'Planned',
  'Target',
  'Value',
];
const FROM = ['From', 'FromDate', 'DateFrom', 'StartDate', 'PeriodStart', 'Start', 'StartsOn'];
const TO = ['To', 'ToDate', 'DateTo', 'EndDate', 'PeriodEnd', 'End', 'EndsOn'];
const MONTH = ['Period', 'Month', 'BudgetMonth', 'PeriodName', 'BudgetDate', 'Date'];
const YEAR = ['Year', 'BudgetYear', 'CalendarYear'];
const FY = ['FinancialYear', 'FiscalYear', 'FY', 'FinYear'];
const KIND = ['Type', 'BudgetType'];

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

type Span = { from: string; to: string };

const span = (p: Span): Span => ({ from: p.from, to: p.to });

/** A month as written: "2026-11", "Nov 2026", "November 2026", or a day in it ("2026-11-01"). */
function monthOf(v: unknown): Span | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  const ym = /^(\d{4})-(\d{1,2})$/.exec(t);
  if (ym) return span(monthPeriod(Number(ym[1]), Number(ym[2])));
  const named = /^([a-z]{3})[a-z]*\.?[\s-]+(\d{4})$/i.exec(t);
  const m = named ? MONTH_NAMES.indexOf((named[1] as string).toLowerCase()) : -1;
  if (named && m >= 0) return span(monthPeriod(Number(named[2]), m + 1));
  const day = dayOf(t);
  if (day) return span(monthPeriod(Number(day.slice(0, 4)), Number(day.slice(5, 7))));
  return undefined;
}

const yearOf = (v: unknown): Span | undefined => {
  const y = typeof v === 'number' ? v : typeof v === 'string' && /^\d{4}$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isInteger(y) && y > 1900 && y < 3000 ? span(calendarYear(y)) : undefined;
};

/** A financial year as written: "FY 2026-27", "2026-27", "2026/2027", or its starting year. */
function fyOf(fyStartMonth: number) {
  return (v: unknown): Span | undefined => {
    const t = typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '';
    const y = /^(?:FY\s*)?(\d{4})(?:\s*[-/–]\s*(\d{2}|\d{4}))?$/i.exec(t.trim());
    return y ? span(fyPeriod(Number(y[1]), fyStartMonth)) : undefined;
  };
}

/** The days a budget record covers by its own fields: from and to days, a month, a year or an FY. */
function periodOf(row: Rec, fyStartMonth: number): Span | undefined {
  const nested = pick(row, ['Period'], (v) => (isRecord(v) ? v : undefined));
  if (nested) return periodOf(nested, fyStartMonth);
  const from = pick(row, FROM, dayOf);
  const to = pick(row, TO, dayOf);
  if (from && to) return { from, to };
  return pick(row, MONTH, monthOf) ?? pick(row, FY, fyOf(fyStartMonth)) ?? pick(row, YEAR, yearOf);
}

/** Of several budgets, the overall ones when the books mark them (Xero's OVERALL beside tracking ones). */
function overall(rows: Rec[]): Rec[] {
  const kinds = rows.map((r) => str(r, KIND) ?? '');
  if (!kinds.some((k) => /overall/i.test(k))) return rows;
  return rows.filter((_, i) => /overall/i.test(kinds[i] as string));
}

/**
 * Budget lines under `value`: a record with a name, an amount and the days it covers (its own or a
 * parent's) is one; a record whose lists hold lines (a line's monthly balances) is read through them
 * only, so a yearly total beside its months is not counted twice.
 */
function collect(
  value: unknown,
  inherited: { name?: string; period?: Span },
  fyStartMonth: number,
  out: BudgetLine[],
  depth = 0,
): void {
  if (depth > 10) return;
  if (Array.isArray(value)) {
    const rows = overall(value.filter(isRecord));
    for (const r of rows) collect(r, inherited, fyStartMonth, out, depth + 1);
    return;
  }
  if (!isRecord(value)) return;
  const name = str(value, NAME) ?? inherited.name;
  const period = periodOf(value, fyStartMonth) ?? inherited.period;
  const before = out.length;
  for (const v of Object.values(value))
    if (Array.isArray(v))
      collect(v, { ...(name ? { name } : {}), ...(period ? { period } : {}) }, fyStartMonth, out, depth + 1);
  if (out.length > before) return;
  const given = pick(value, AMOUNT, amount);
  if (name && period && given !== undefined) out.push({ name: name.trim(), period, amount: given });
}

/** A budgets result as budget lines; undefined when it holds none that can be read. */
export function readBudgets(result: unknown, fyStartMonth = 4): BudgetLine[] | undefined {
  const value = payload(result);
  const out: BudgetLine[] = [];
  collect(value, {}, fyStartMonth, out);
  return out.length ? out : undefined;
}

/** A line's name by meaning: "Rent & Rates", "rent and rates" and "Rent/Rates" are one. */
const lineKey = (name: string) =>
  name
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

const INCOME_NAME = /\b(sales|revenue|income|turnover|fees earned)\b/i;
const INCOME_SECTIONS = new Set<PnlLine['section']>(['income', 'other_income']);

/**
 * Budget against actual for the request's period: the profit and loss's lines against the budgets,
 * spending and income apart (their totals mean nothing added together). A budget line takes the
 * profit and loss line of the same name by meaning, and its section; one with no such line is income
 * when its name says so, else spending.
 */
export function budgetAgainstActual(
  request: AnalyticRequest,
  results: readonly AnalyticResultIn[],
  fyStartMonth = 4,
): Computed {
  const pnl = results.find((r) => r.input.role === 'profit_and_loss');
  const budgets = results.find((r) => r.input.role === 'budgets');
  if (!pnl) return unreadable('profit_and_loss');
  const period = request.period ?? pnl.input.period;
  if (!period) return unreadable('profit_and_loss');
  const lines = pnlOf(pnl);
  if (!budgets) return unreadable('budgets');
  if (!isComplete(budgets.result)) return partial('budgets');
  const read = payload(budgets.result);
  const budget = readBudgets(budgets.result, fyStartMonth);
  if (!budget) {
    const empty = Array.isArray(read) ? read.length === 0 : isRecord(read) && emptyLists(read);
    if (empty)
      throw new Decline("Your books have no budgets set up, so there's nothing to compare actual with.");
    return unreadable('budgets');
  }
  const byKey = new Map<string, PnlLine>();
  for (const l of lines) if (!byKey.has(lineKey(l.name))) byKey.set(lineKey(l.name), l);
  const named = budget.map((b) => ({ ...b, name: byKey.get(lineKey(b.name))?.name ?? b.name }));
  const isIncome = (b: BudgetLine) => {
    const line = byKey.get(lineKey(b.name));
    return line ? INCOME_SECTIONS.has(line.section) : INCOME_NAME.test(b.name);
  };
  const sides: BudgetSide[] = [];
  for (const side of ['expenses', 'income'] as const) {
    const mine = named.filter((b) => isIncome(b) === (side === 'income'));
    const actual = lines.filter((l) => INCOME_SECTIONS.has(l.section) === (side === 'income'));
    const result = budgetVsActual(mine, actual, period);
    if (result && result.lines.length > 0) sides.push({ side, result });
  }
  if (sides.length === 0) {
    const from = budget.map((b) => b.period.from).sort()[0] as string;
    const to = budget.map((b) => b.period.to).sort()[budget.length - 1] as string;
    throw new Decline(
      `Your books have budgets, but none covers ${period.label}: they cover ${spanLabel(from, to)}. Ask about a period inside it.`,
    );
  }
  return { kind: 'budget', label: period.label, period: { from: period.from, to: period.to }, sides };
}

/** A result whose lists are all empty: the books answered, with no budgets. */
const emptyLists = (r: Rec): boolean => {
  const lists = Object.values(r).filter(Array.isArray);
  return lists.length > 0 && lists.every((l) => l.length === 0);
};
