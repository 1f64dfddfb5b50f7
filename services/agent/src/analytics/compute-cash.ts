/** The measures of cash ahead and of what stands out: the 13-week forecast, runway, anomalies. */
import type { AnalyticPeriod, AnalyticRequest, BookRole } from '@munim/contracts';
import {
  cashForecast,
  cashToday,
  fromPaise,
  paymentsOutOfPattern,
  runway,
  unusualExpenses,
} from '@munim/finance';
import {
  type AnalyticResultIn,
  type Computed,
  openDocs,
  partial,
  pnlOf,
  type Side,
  totalsOf,
  unreadable,
} from './common.ts';
import { readBalanceSheet, readCashFlow } from './inputs.ts';
import { isComplete, readDocuments, readPayments, settlementsOf } from './records.ts';

/** Cash week by week for 13 weeks: today's cash, open invoices at each customer's habit, open bills, recurring spend. */
export function forecast(
  request: AnalyticRequest,
  results: readonly AnalyticResultIn[],
  currency: string,
): Computed {
  const of = (...roles: BookRole[]) => results.find((r) => roles.includes(r.input.role));
  const bs = of('balance_sheet');
  const balance = bs ? readBalanceSheet(bs.result) : undefined;
  if (!balance || balance.accounts.length === 0) return unreadable('balance_sheet');
  const notes: string[] = [];
  const payments = of('payments');
  const readPaid = payments ? readPayments(payments.result) : undefined;
  const paid = readPaid ?? [];
  if (!payments)
    notes.push('Your books give no payment list, so no recurring expenses or payment habits are used.');
  else if (!readPaid)
    notes.push("The payment list couldn't be read, so no recurring expenses or payment habits are used.");
  else if (!isComplete(payments.result))
    notes.push(
      'Only the most recent payments could be read: recurring expenses and payment habits come from those.',
    );
  const docsOf = (side: Side) => {
    const input = of(
      side === 'receivables' ? 'invoices' : 'bills',
      side === 'receivables' ? 'aged_receivables' : 'aged_payables',
    );
    const kind = side === 'receivables' ? 'invoice' : 'bill';
    if (input && (input.input.role === 'invoices' || input.input.role === 'bills')) {
      if (!isComplete(input.result)) return partial(input.input.role);
      const read = readDocuments(input.result, kind, request.today) ?? unreadable(input.input.role);
      return { open: read.open, settlements: settlementsOf(read.paid, paid) };
    }
    return { open: openDocs(input, side, request.today).docs, settlements: [] };
  };
  const receivables = docsOf('receivables');
  const payables = docsOf('payables');
  return {
    kind: 'forecast',
    forecast: cashForecast({
      today: request.today,
      opening: balance.accounts,
      receivables: receivables.open,
      payables: payables.open,
      settlements: [...receivables.settlements, ...payables.settlements],
      movements: paid.map((p) => p.movement),
      currency,
    }),
    notes,
  };
}

const monthsIn = (p: AnalyticPeriod) => {
  const [fy, fm] = [Number(p.from.slice(0, 4)), Number(p.from.slice(5, 7))];
  const [ty, tm] = [Number(p.to.slice(0, 4)), Number(p.to.slice(5, 7))];
  return (ty - fy) * 12 + tm - fm + 1;
};

/** Months of cash at the burn of the trailing months (cash flow, else the net loss). */
export function runwayOf(request: AnalyticRequest, results: readonly AnalyticResultIn[]): Computed {
  const bs = results.find((r) => r.input.role === 'balance_sheet');
  const balance = bs ? readBalanceSheet(bs.result) : undefined;
  if (!balance || balance.accounts.length === 0) return unreadable('balance_sheet');
  const cash = cashToday(balance.accounts).total;
  const trailing = results.find((r) => r.input.role === 'cash_flow' || r.input.role === 'profit_and_loss');
  const period = trailing?.input.period ?? request.period;
  if (!trailing || !period) return unreadable('cash_flow');
  const months = Math.max(1, monthsIn(period));
  let net: number;
  const notes: string[] = [];
  if (trailing.input.role === 'cash_flow') {
    const flow = readCashFlow(trailing.result) ?? unreadable('cash_flow');
    net = flow.outflow - flow.inflow;
    notes.push(
      `Cash out less cash in over ${period.label}, from the cash flow statement, ${months} month${months === 1 ? '' : 's'}.`,
    );
  } else {
    net = -totalsOf(pnlOf(trailing)).netProfit;
    notes.push(
      `Burn is read from the net loss of ${period.label} (no cash flow statement): profit is not cash, so take it as a rough guide.`,
    );
  }
  const monthlyBurn = fromPaise(Math.round((net * 100) / months));
  return { kind: 'kpi', name: 'runway', kpi: runway({ cash, monthlyBurn }), label: period.label, notes };
}

/** Synthetic months, oldest first, standing for the periods compared (any grain). */
const slot = (i: number) => `2000-${String(i + 1).padStart(2, '0')}`;

/** Expense lines at twice or more their usual (the periods before), and payments out of pattern. */
export function anomalies(results: readonly AnalyticResultIn[]): Computed {
  const pnls = results.filter((r) => r.input.role === 'profit_and_loss');
  if (pnls.length < 2) return unreadable('profit_and_loss');
  const [current, ...priors] = pnls as [AnalyticResultIn, ...AnalyticResultIn[]];
  const ordered = [...priors].reverse();
  const columns = [...ordered, current];
  const movements = columns.flatMap((r, i) =>
    pnlOf(r)
      .filter(
        (l) => l.section === 'expense' || l.section === 'cost_of_sales' || l.section === 'other_expense',
      )
      .map((l) => ({ date: `${slot(i)}-01`, amount: -l.amount, category: l.name })),
  );
  const found = unusualExpenses(movements, {
    month: slot(columns.length - 1),
    trailingMonths: priors.length,
  });
  const payments = results.find((r) => r.input.role === 'payments');
  const period = current.input.period;
  // Payments out of pattern are a second look: without a readable list, the expense lines still stand.
  const paid = payments ? (readPayments(payments.result) ?? []) : [];
  const out = paymentsOutOfPattern(
    paid.map((p) => p.movement),
    period ? { from: period.from, to: period.to } : {},
  );
  return {
    kind: 'anomalies',
    label: period?.label ?? 'the period',
    priors: found.monthsCounted.map((mo) => columns[Number(mo.slice(5)) - 1]?.input.period?.label ?? mo),
    unusual: found.unusual,
    fresh: found.new,
    payments: out,
  };
}
