/**
 * Cash ahead: a weekly forecast from today's cash, open invoices (adjusted by how late each customer
 * pays), open bills and the recurring expenses the bank shows, with its assumptions in words.
 */
import { type CashAccount, cashToday, type Movement } from './cash.ts';
import {
  addDays,
  addMonths,
  type DaysLate,
  dayNumber,
  daysInMonth,
  effectiveDueDate,
  formatPaise,
  fromPaise,
  isoDay,
  median,
  monthOf,
  type OpenDoc,
  partyKey,
  portfolioDaysLate,
  type Settlement,
  toPaise,
  usualDaysLate,
} from './receivables.ts';

/** What the forecast is computed from. */
export interface ForecastInput {
  /** The first day of week 1, `YYYY-MM-DD`. */
  today: string;
  /** Cash and bank today: an amount, or the accounts (summed as by `cashToday`). */
  opening: number | readonly CashAccount[];
  /** Open invoices (bills among them are left out). */
  receivables?: readonly OpenDoc[];
  /** Open bills (invoices among them are left out). */
  payables?: readonly OpenDoc[];
  /** Documents paid in full; the invoices among them give customers' usual days late. */
  settlements?: readonly Settlement[];
  /** Bank and cash movements up to today, read for recurring expenses. */
  movements?: readonly Movement[];
  /** Weeks ahead; 13 unless given. */
  weeks?: number;
  /** Complete months a spend must appear in, each of them, to count as recurring; 3 unless given. */
  recurringMonths?: number;
  /** Written before amounts in the assumptions, e.g. "₹" or "INR "; nothing unless given. */
  currency?: string;
}

/** One expected receipt or payment. */
export interface ForecastItem {
  source: 'receivable' | 'payable' | 'recurring';
  party: string;
  number?: string;
  /** Positive: money in for a receivable, money out for a payable or recurring expense. */
  amount: number;
  /** The document's due date (its date when it has none); the usual day for a recurring expense. */
  dueDate: string;
  expectedDate: string;
  /** 1-based week it falls in; null when after the horizon. */
  week: number | null;
  /** Days late added to the due date (receivables only). */
  daysLate?: number;
  /** How the expected date was set, in words. */
  rule: string;
}

/** One week of the forecast: 7 days from `from` to `to`, both included. */
export interface ForecastWeek {
  week: number;
  from: string;
  to: string;
  opening: number;
  inflows: number;
  outflows: number;
  closing: number;
  items: ForecastItem[];
}

/** A spend found to recur monthly, and what was projected from it. */
export interface RecurringExpense {
  name: string;
  by: 'party' | 'category';
  /** Spend in each month it was found in: the last complete months, or the run ending this month. */
  months: { month: string; amount: number }[];
  monthlyAverage: number;
  /** Median day of the month it is paid on. */
  dayOfMonth: number;
  projected: string[];
  /** Projected days left out because an open bill of the same party falls due within 15 days of them. */
  coveredByBills: string[];
}

/** The forecast: weeks, the first week that closes below zero, and what it assumed. */
export interface CashForecast {
  today: string;
  horizon: { from: string; to: string };
  opening: number;
  weeks: ForecastWeek[];
  totalInflows: number;
  totalOutflows: number;
  closing: number;
  /** The first week whose closing balance is negative: when cash runs short; null if it never does. */
  firstNegativeWeek: ForecastWeek | null;
  lowestClosing: { week: number; closing: number };
  /** Open documents expected after the horizon, not in any week. */
  beyondHorizon: ForecastItem[];
  recurring: RecurringExpense[];
  /** Customers with open invoices and no payment history, and the days late used for them. */
  noHistory: { parties: string[]; daysLateUsed: number; basis: 'portfolio' | 'none' };
  assumptions: string[];
}

const COVER_DAYS = 15;

interface Projected {
  expense: RecurringExpense;
  key: string;
  paise: number;
  dates: string[];
}

function detectRecurring(
  movements: readonly Movement[],
  today: string,
  months: number,
  horizonEnd: string,
): Projected[] {
  const thisMonth = monthOf(today);
  // The last `months` complete months, or the same run ending this month once this month is paid.
  const windows = [1, 0].map((end) =>
    Array.from({ length: months }, (_, i) => addMonths(thisMonth, i - months + 1 - end)),
  );
  const groups = new Map<string, { name: string; by: 'party' | 'category'; rows: Movement[] }>();
  for (const m of movements) {
    if (toPaise(m.amount) >= 0 || m.date > today) continue;
    dayNumber(m.date);
    const by = m.party?.trim() ? 'party' : m.category?.trim() ? 'category' : undefined;
    if (by === undefined) continue;
    const name = (by === 'party' ? m.party : m.category)?.trim() ?? '';
    const key = `${by}:${partyKey(name)}`;
    const g = groups.get(key) ?? { name, by, rows: [] };
    g.rows.push(m);
    groups.set(key, g);
  }
  const out: Projected[] = [];
  for (const [key, g] of groups) {
    const spentIn = (month: string) =>
      -g.rows.filter((r) => monthOf(r.date) === month).reduce((s, r) => s + toPaise(r.amount), 0);
    const trailing = windows.find((w) => w.every((month) => spentIn(month) > 0));
    if (trailing === undefined) continue;
    const perMonth = trailing.map((month) => ({ month, paise: spentIn(month) }));
    const paise = Math.round(perMonth.reduce((s, p) => s + p.paise, 0) / months);
    const days = g.rows.filter((r) => trailing.includes(monthOf(r.date))).map((r) => Number(r.date.slice(8)));
    const dayOfMonth = Math.round(median(days) ?? 1);
    const paidThisMonth = g.rows.some((r) => monthOf(r.date) === thisMonth);
    const dates: string[] = [];
    for (let month = paidThisMonth ? addMonths(thisMonth, 1) : thisMonth; ; month = addMonths(month, 1)) {
      const day = `${month}-${String(Math.min(dayOfMonth, daysInMonth(month))).padStart(2, '0')}`;
      const date = day < today ? today : day;
      if (date > horizonEnd) break;
      dates.push(date);
    }
    out.push({
      key,
      paise,
      dates,
      expense: {
        name: g.name,
        by: g.by,
        months: perMonth.map((p) => ({ month: p.month, amount: fromPaise(p.paise) })),
        monthlyAverage: fromPaise(paise),
        dayOfMonth,
        projected: [],
        coveredByBills: [],
      },
    });
  }
  return out.sort((a, b) => b.paise - a.paise || a.expense.name.localeCompare(b.expense.name));
}

/**
 * A weekly cash forecast. Week 1 starts `today`; each week is 7 calendar days; `weeks` (13) of them.
 * Each week's closing = opening + inflows − outflows, and the next week opens at that closing.
 *
 * Inflows: each open invoice (outstanding > 0) is expected on its due date (its date when it has
 * none) plus its customer's usual days late — the median over the customer's paid invoices, rounded
 * to a whole day. A customer with no history takes the median over all paid invoices; with no paid
 * invoices at all, 0 days. An expected date before today (overdue, and history does not put it later)
 * is moved to today, so it lands in week 1. Invoices expected after the horizon are listed apart.
 *
 * Outflows: each open bill on its due date (overdue ones in week 1); and recurring expenses — an
 * outflow of the same party (or, without a party, the same category) in each of the last
 * `recurringMonths` (3) complete calendar months (or of as many months ending with this one, once
 * paid this month) is projected once a month at its average monthly total over them, on the median
 * day of the month it was paid (clamped to the month's length: 31 → 29 February in a leap year), from
 * this month unless already paid this month; a projected day already past is moved to today. A projected payment
 * is dropped when an open bill of the same party falls due within 15 days of it, as the bill is that
 * payment. Nothing else is assumed: no new sales or bills, no loans, taxes or other receipts.
 * Computed in paise.
 */
export function cashForecast(input: ForecastInput): CashForecast {
  const today = input.today;
  const start = dayNumber(today);
  const weeks = input.weeks ?? 13;
  if (!Number.isInteger(weeks) || weeks < 1)
    throw new RangeError(`weeks must be a positive whole number: ${weeks}`);
  const recurringMonths = input.recurringMonths ?? 3;
  if (!Number.isInteger(recurringMonths) || recurringMonths < 1) {
    throw new RangeError(`recurringMonths must be a positive whole number: ${recurringMonths}`);
  }
  const horizonEnd = addDays(today, weeks * 7 - 1);
  const money = (p: number) => `${input.currency ?? ''}${formatPaise(p)}`;
  const openingPaise =
    typeof input.opening === 'number' ? toPaise(input.opening) : toPaise(cashToday(input.opening).total);
  const settlements = input.settlements ?? [];
  const portfolio = portfolioDaysLate(settlements, { kind: 'invoice' });
  const fallback = portfolio === null ? 0 : Math.round(portfolio.medianDaysLate);
  const history = new Map<string, DaysLate | null>();
  const noHistory = new Map<string, string>();

  const weekOf = (date: string): number | null => {
    const w = Math.floor((dayNumber(date) - start) / 7);
    return w < weeks ? w + 1 : null;
  };
  const items: { item: ForecastItem; paise: number; inflow: boolean }[] = [];
  const add = (item: Omit<ForecastItem, 'week'>, paise: number, inflow: boolean) => {
    items.push({ item: { ...item, week: weekOf(item.expectedDate) }, paise, inflow });
  };

  for (const doc of input.receivables ?? []) {
    const paise = toPaise(doc.due);
    if (paise <= 0 || doc.kind === 'bill') continue;
    const dueDate = effectiveDueDate(doc);
    const key = partyKey(doc.party);
    if (!history.has(key)) history.set(key, usualDaysLate(settlements, doc.party, { kind: 'invoice' }));
    const own = history.get(key) ?? null;
    if (own === null && !noHistory.has(key)) noHistory.set(key, doc.party.trim());
    const late = own === null ? fallback : Math.round(own.medianDaysLate);
    const expected = addDays(dueDate, late);
    const moved = expected < today;
    const basis =
      own !== null
        ? `its median over ${own.sample} paid invoice${own.sample === 1 ? '' : 's'}`
        : portfolio !== null
          ? 'no history of its own: the median of all customers'
          : 'no payment history at all';
    add(
      {
        source: 'receivable',
        party: doc.party.trim(),
        ...(doc.number !== undefined ? { number: doc.number } : {}),
        amount: fromPaise(paise),
        dueDate,
        expectedDate: moved ? today : expected,
        daysLate: late,
        rule: `due ${dueDate} + ${late} day${late === 1 ? '' : 's'} late (${basis})${moved ? ', already past: expected in week 1' : ''}`,
      },
      paise,
      true,
    );
  }

  const billDates = new Map<string, number[]>();
  for (const doc of input.payables ?? []) {
    const paise = toPaise(doc.due);
    if (paise <= 0 || doc.kind === 'invoice') continue;
    const dueDate = effectiveDueDate(doc);
    const key = `party:${partyKey(doc.party)}`;
    billDates.set(key, [...(billDates.get(key) ?? []), dayNumber(dueDate)]);
    const moved = dueDate < today;
    add(
      {
        source: 'payable',
        party: doc.party.trim(),
        ...(doc.number !== undefined ? { number: doc.number } : {}),
        amount: fromPaise(paise),
        dueDate,
        expectedDate: moved ? today : dueDate,
        rule: moved ? `overdue since ${dueDate}: paid in week 1` : `paid on its due date ${dueDate}`,
      },
      paise,
      false,
    );
  }

  const recurring = detectRecurring(input.movements ?? [], today, recurringMonths, horizonEnd);
  for (const r of recurring) {
    const bills = billDates.get(r.key) ?? [];
    for (const date of r.dates) {
      const d = dayNumber(date);
      if (bills.some((b) => Math.abs(b - d) <= COVER_DAYS)) {
        r.expense.coveredByBills.push(date);
        continue;
      }
      r.expense.projected.push(date);
      add(
        {
          source: 'recurring',
          party: r.expense.name,
          amount: fromPaise(r.paise),
          dueDate: date,
          expectedDate: date,
          rule: `recurring monthly: average of ${r.expense.months.map((m) => m.month).join(', ')} on day ${r.expense.dayOfMonth}`,
        },
        r.paise,
        false,
      );
    }
  }

  items.sort(
    (a, b) =>
      a.item.expectedDate.localeCompare(b.item.expectedDate) ||
      a.item.source.localeCompare(b.item.source) ||
      a.item.party.localeCompare(b.item.party),
  );
  const out: ForecastWeek[] = [];
  let balance = openingPaise;
  let totalIn = 0;
  let totalOut = 0;
  for (let w = 1; w <= weeks; w++) {
    const inWeek = items.filter((i) => i.item.week === w);
    const inflows = inWeek.filter((i) => i.inflow).reduce((s, i) => s + i.paise, 0);
    const outflows = inWeek.filter((i) => !i.inflow).reduce((s, i) => s + i.paise, 0);
    const opening = balance;
    balance = opening + inflows - outflows;
    totalIn += inflows;
    totalOut += outflows;
    out.push({
      week: w,
      from: isoDay(start + (w - 1) * 7),
      to: isoDay(start + (w - 1) * 7 + 6),
      opening: fromPaise(opening),
      inflows: fromPaise(inflows),
      outflows: fromPaise(outflows),
      closing: fromPaise(balance),
      items: inWeek.map((i) => i.item),
    });
  }
  const firstNegativeWeek = out.find((w) => w.closing < 0) ?? null;
  const lowest = out.reduce((lo, w) => (w.closing < lo.closing ? w : lo), out[0] as ForecastWeek);
  const beyond = items.filter((i) => i.item.week === null);
  const beyondIn = beyond.filter((i) => i.inflow);
  const beyondOut = beyond.filter((i) => !i.inflow);
  const noHistoryParties = [...noHistory.values()].sort();

  const assumptions = [
    `Opening cash is ${money(openingPaise)}, today's cash and bank, on ${today}; week 1 runs ${today} to ${addDays(today, 6)} and the forecast ends ${horizonEnd} (${weeks} weeks of 7 days).`,
    "Each open invoice is expected on its due date (its date when it has none) plus its customer's usual days late: the median of how late the customer paid its past invoices, rounded to a whole day.",
    noHistoryParties.length === 0
      ? 'Every customer with an open invoice has a payment history.'
      : portfolio !== null
        ? `${noHistoryParties.join(', ')} ${noHistoryParties.length === 1 ? 'has' : 'have'} no payment history: the median over all customers' ${portfolio.sample} paid invoice${portfolio.sample === 1 ? '' : 's'} is used, ${fallback} day${fallback === 1 ? '' : 's'} late.`
        : `No customer has a payment history, so ${noHistoryParties.join(', ')} ${noHistoryParties.length === 1 ? 'is' : 'are'} expected to pay on the due date (0 days late).`,
    'An invoice whose expected date has already passed is expected in week 1; an overdue invoice is expected later only when its customer usually pays later than that.',
    'Open bills are paid on their due dates; overdue bills in week 1.',
    recurring.length === 0
      ? `No recurring expense found: none was paid in each of ${recurringMonths} months in a row up to now.`
      : `Recurring expenses, paid in each of ${recurringMonths} months in a row up to now, are projected monthly at their average on their usual day of the month: ${recurring
          .map((r) => `${r.expense.name} ${money(r.paise)} on day ${r.expense.dayOfMonth}`)
          .join(
            '; ',
          )}. A projected payment is left out when an open bill of the same party falls due within ${COVER_DAYS} days of it.`,
    'Nothing else is assumed: no new sales or bills, no loans, taxes, salaries or other receipts and payments beyond those listed.',
  ];
  if (beyond.length > 0) {
    assumptions.push(
      `After the forecast ends: ${beyondIn.length} invoice${beyondIn.length === 1 ? '' : 's'} (${money(beyondIn.reduce((s, i) => s + i.paise, 0))}) and ${beyondOut.length} bill${beyondOut.length === 1 ? '' : 's'} (${money(beyondOut.reduce((s, i) => s + i.paise, 0))}) are expected, not counted.`,
    );
  }

  return {
    today,
    horizon: { from: today, to: horizonEnd },
    opening: fromPaise(openingPaise),
    weeks: out,
    totalInflows: fromPaise(totalIn),
    totalOutflows: fromPaise(totalOut),
    closing: fromPaise(balance),
    firstNegativeWeek,
    lowestClosing: { week: lowest.week, closing: lowest.closing },
    beyondHorizon: beyond.map((i) => i.item),
    recurring: recurring.map((r) => r.expense),
    noHistory: {
      parties: noHistoryParties,
      daysLateUsed: fallback,
      basis: portfolio === null ? 'none' : 'portfolio',
    },
    assumptions,
  };
}
