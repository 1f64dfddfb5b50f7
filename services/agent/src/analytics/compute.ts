/**
 * Each analytic measure computed from the books' results by code: its figures and its working, or a
 * decline saying why it cannot be answered (an input that cannot be read, a party not found or not
 * one). A filtered question is answered for its party only, never with everyone's figure.
 */
import type { AnalyticInput, AnalyticPeriod, AnalyticRequest, BookRole } from '@munim/contracts';
import {
  type CashForecast,
  type CashToday,
  cashForecast,
  cashToday,
  comparePnl,
  currentRatio,
  type DueIn,
  dpo,
  dso,
  dueIn,
  type ExpenseLineFinding,
  fromPaise,
  grossMargin,
  type Kpi,
  netMargin,
  type OpenDoc,
  type OwedBy,
  owedBy,
  type PaymentFinding,
  type PnlComparison,
  type PnlLine,
  paymentsOutOfPattern,
  pnlTotalsPaise,
  runway,
  type TotalKey,
  unusualExpenses,
} from '@munim/finance';
import {
  isComplete,
  readAging,
  readBalanceSheet,
  readCashFlow,
  readDocuments,
  readGst,
  readPayments,
  readPnl,
  settlementsOf,
} from './inputs.ts';
import { matchParty, partyWords } from './party.ts';

/** One fetched result and the input it was planned as. */
export interface AnalyticResultIn {
  input: AnalyticInput;
  result: unknown;
}

/** Receivables (invoices, customers) or payables (bills, vendors). */
export type Side = 'receivables' | 'payables';

/** A measure computed: what words.ts turns into an answer, and the model is given as facts. */
export type Computed =
  | { kind: 'owed'; side: Side; owed: OwedBy; party?: string; byDocument: boolean }
  | { kind: 'due'; side: Side; due: DueIn; party?: string; label: string }
  | { kind: 'cash'; cash: CashToday; asOf: string }
  | { kind: 'forecast'; forecast: CashForecast; notes: string[] }
  | {
      kind: 'pnl';
      columns: string[];
      totals: Record<TotalKey, number>[];
      comparison?: PnlComparison;
      lines: PnlLine[];
      /** Gross and net margin of the first period, with their working (kpi.margin). */
      margins?: { gross: Kpi<Record<string, number>>; net: Kpi<Record<string, number>> };
    }
  | {
      kind: 'party_sales';
      party: string;
      label: string;
      invoices: { number?: string; date: string; amount: number }[];
      total: number;
      taxIncluded: boolean;
    }
  | { kind: 'gst'; label: string; output: number; input: number; net: number }
  | {
      kind: 'kpi';
      name: 'dso' | 'dpo' | 'current_ratio' | 'runway';
      kpi: Kpi<Record<string, unknown>>;
      label?: string;
      notes: string[];
    }
  | {
      kind: 'anomalies';
      label: string;
      priors: string[];
      unusual: ExpenseLineFinding[];
      fresh: ExpenseLineFinding[];
      payments: PaymentFinding[];
    }
  | { kind: 'decline'; words: string };

const ROLE_WORDS: Readonly<Record<BookRole, string>> = {
  profit_and_loss: 'profit and loss',
  balance_sheet: 'balance sheet',
  aged_receivables: 'aged receivables report',
  aged_payables: 'aged payables report',
  cash_flow: 'cash flow statement',
  gst_summary: 'GST summary',
  invoices: 'invoice list',
  bills: 'bill list',
  payments: 'payment list',
  accounts: 'chart of accounts',
};

/** Thrown inside a measure's computation: the answer is this decline. */
class Decline extends Error {}

const unreadable = (role: BookRole): never => {
  throw new Decline(
    `I couldn't read the ${ROLE_WORDS[role]} your books returned, so I can't work this out without guessing. Ask me to show the ${ROLE_WORDS[role]} instead.`,
  );
};

const partial = (role: BookRole): never => {
  throw new Decline(
    `Your books gave me only part of the ${ROLE_WORDS[role]}, so a total from it would be wrong. Ask me to list them instead, page by page.`,
  );
};

const SIDE_WORDS = {
  receivables: { party: 'customer', docs: 'open invoices' },
  payables: { party: 'vendor', docs: 'open bills' },
} as const;

/** Documents with each party under one spelling: "Tata Steel Ltd" and "Tata Steel Limited" are one. */
function oneSpelling<T extends { party: string }>(docs: readonly T[]): T[] {
  const names = new Map<string, string>();
  return docs.map((d) => {
    const key = partyWords(d.party) || d.party;
    const name = names.get(key) ?? d.party.trim();
    names.set(key, name);
    return name === d.party ? d : { ...d, party: name };
  });
}

/** The documents a party filter keeps, or a decline naming what was asked. */
function forParty<T extends { party: string }>(
  docs: T[],
  asked: string | undefined,
  side: Side,
  what: string,
): { docs: T[]; party?: string } {
  if (!asked) return { docs };
  const match = matchParty(
    asked,
    docs.map((d) => d.party),
  );
  const kind = SIDE_WORDS[side].party;
  if (match.kind === 'one') {
    const key = match.name.trim().toLowerCase().replace(/\s+/g, ' ');
    return {
      docs: docs.filter((d) => d.party.trim().toLowerCase().replace(/\s+/g, ' ') === key),
      party: match.name,
    };
  }
  if (match.kind === 'several')
    throw new Decline(
      `"${asked}" matches more than one ${kind} in your books: ${match.names.join(', ')}. Which one do you mean?`,
    );
  const near = match.near.length ? ` Did you mean ${match.near.join(' or ')}?` : '';
  throw new Decline(`I couldn't find a ${kind} named "${asked}" with ${what} in your books.${near}`);
}

/** Open documents of a receivables or payables input, by what the input is. */
function openDocs(
  input: AnalyticResultIn | undefined,
  side: Side,
  today: string,
): { docs: OpenDoc[]; byDocument: boolean } {
  const kind = side === 'receivables' ? 'invoice' : 'bill';
  if (!input) return unreadable(side === 'receivables' ? 'aged_receivables' : 'aged_payables');
  const role = input.input.role;
  if (role === 'invoices' || role === 'bills') {
    if (!isComplete(input.result)) return partial(role);
    const read = readDocuments(input.result, kind, today);
    return read ? { docs: oneSpelling(read.open), byDocument: true } : unreadable(role);
  }
  const docs = readAging(input.result, kind, input.input.asOf ?? today);
  if (!docs) return unreadable(role);
  return { docs: oneSpelling(docs), byDocument: docs.every((d) => d.number !== undefined) };
}

const pnlOf = (input: AnalyticResultIn): PnlLine[] => readPnl(input.result) ?? unreadable('profit_and_loss');

function totalsOf(lines: readonly PnlLine[]): Record<TotalKey, number> {
  const paise = pnlTotalsPaise(lines);
  return Object.fromEntries(Object.entries(paise).map(([k, v]) => [k, fromPaise(v)])) as Record<
    TotalKey,
    number
  >;
}

const daysIn = (p: AnalyticPeriod) => Math.round((Date.parse(p.to) - Date.parse(p.from)) / 86_400_000) + 1;
const addDays = (day: string, n: number) =>
  new Date(Date.parse(day) + n * 86_400_000).toISOString().slice(0, 10);

/** The measure `request` asks for, computed from `results` (in the order of `request.inputs`). */
export function compute(
  request: AnalyticRequest,
  results: readonly AnalyticResultIn[],
  currency = '',
): Computed {
  try {
    return measure(request, results, currency);
  } catch (err) {
    if (err instanceof Decline) return { kind: 'decline', words: err.message };
    // A report shaped past what the readers expect (a date that is none, a NaN) is unreadable, not an answer.
    if (err instanceof RangeError)
      return {
        kind: 'decline',
        words:
          "Your books' reports have figures or dates I couldn't read, so I can't work this out without guessing.",
      };
    throw err;
  }
}

function measure(request: AnalyticRequest, results: readonly AnalyticResultIn[], currency: string): Computed {
  const { today } = request;
  const of = (...roles: BookRole[]) => results.find((r) => roles.includes(r.input.role));
  const m = request.measure;
  switch (m) {
    case 'receivables.top':
    case 'receivables.total':
    case 'receivables.overdue':
    case 'payables.top':
    case 'payables.total':
    case 'payables.overdue': {
      const side: Side = m.startsWith('receivables') ? 'receivables' : 'payables';
      const { docs, byDocument } = openDocs(
        of(
          side === 'receivables' ? 'aged_receivables' : 'aged_payables',
          side === 'receivables' ? 'invoices' : 'bills',
        ),
        side,
        today,
      );
      const filtered = forParty(docs, request.party, side, SIDE_WORDS[side].docs);
      return {
        kind: 'owed',
        side,
        owed: owedBy(filtered.docs, { today }),
        byDocument,
        ...(filtered.party ? { party: filtered.party } : {}),
      };
    }
    case 'receivables.due':
    case 'payables.due': {
      const side: Side = m.startsWith('receivables') ? 'receivables' : 'payables';
      const { docs } = openDocs(
        of(
          side === 'receivables' ? 'aged_receivables' : 'aged_payables',
          side === 'receivables' ? 'invoices' : 'bills',
        ),
        side,
        today,
      );
      const filtered = forParty(docs, request.party, side, SIDE_WORDS[side].docs);
      const window = request.period ?? {
        from: today,
        to: addDays(today, 6),
        grain: 'week' as const,
        label: 'the next 7 days',
      };
      // What is already past when the window opens on an earlier day is counted from today.
      const from = window.from < today && window.to >= today ? today : window.from;
      return {
        kind: 'due',
        side,
        due: dueIn(filtered.docs, { from, to: window.to }),
        label: window.label,
        ...(filtered.party ? { party: filtered.party } : {}),
      };
    }
    case 'cash.today': {
      const bs = of('balance_sheet');
      const read = bs ? readBalanceSheet(bs.result) : undefined;
      if (!read || read.accounts.length === 0) return unreadable('balance_sheet');
      return { kind: 'cash', cash: cashToday(read.accounts), asOf: read.asOf ?? bs?.input.asOf ?? today };
    }
    case 'cash.forecast':
      return forecast(request, results, currency);
    case 'sales':
    case 'expenses':
    case 'profit':
    case 'kpi.margin': {
      if (request.party && m === 'sales') return partySales(request, of('invoices'));
      if (request.party)
        throw new Decline(
          `I can't limit ${m === 'kpi.margin' ? 'margins' : m} to one party from your books' reports.`,
        );
      const pnls = results.filter((r) => r.input.role === 'profit_and_loss');
      if (pnls.length === 0) return unreadable('profit_and_loss');
      const columns = pnls.map((r) => ({ label: r.input.period?.label ?? 'the period', lines: pnlOf(r) }));
      const totals = columns.map((c) => totalsOf(c.lines));
      const comparison = columns.length >= 2 ? comparePnl(columns.slice(0, 3)) : undefined;
      return {
        kind: 'pnl',
        columns: columns.map((c) => c.label),
        totals,
        lines: columns[0]?.lines ?? [],
        ...(comparison ? { comparison } : {}),
        ...(m === 'kpi.margin' && totals[0]
          ? {
              margins: {
                gross: grossMargin({ income: totals[0].income, costOfSales: totals[0].costOfSales }),
                net: netMargin({ income: totals[0].income, netProfit: totals[0].netProfit }),
              },
            }
          : {}),
      };
    }
    case 'gst.payable': {
      const gst = of('gst_summary');
      const read = gst ? readGst(gst.result) : undefined;
      if (!read) return unreadable('gst_summary');
      return {
        kind: 'gst',
        label: request.period?.label ?? gst?.input.period?.label ?? 'the period',
        ...read,
      };
    }
    case 'kpi.dso':
    case 'kpi.dpo': {
      const side: Side = m === 'kpi.dso' ? 'receivables' : 'payables';
      const { docs } = openDocs(
        of(
          side === 'receivables' ? 'aged_receivables' : 'aged_payables',
          side === 'receivables' ? 'invoices' : 'bills',
        ),
        side,
        today,
      );
      const pnl = of('profit_and_loss');
      if (!pnl) return unreadable('profit_and_loss');
      const totals = totalsOf(pnlOf(pnl));
      const period = pnl.input.period ?? request.period;
      if (!period) return unreadable('profit_and_loss');
      const owed = owedBy(docs).total;
      const days = daysIn(period);
      const kpi =
        side === 'receivables'
          ? dso({ receivables: owed, creditSales: totals.income, days })
          : dpo({ payables: owed, purchases: totals.costOfSales, days });
      const notes =
        side === 'receivables'
          ? ['All sales are taken as credit sales.', 'Receivables are what customers owe today.']
          : ['Purchases are the cost of sales of the period.', 'Payables are what you owe vendors today.'];
      return { kind: 'kpi', name: m === 'kpi.dso' ? 'dso' : 'dpo', kpi, label: period.label, notes };
    }
    case 'kpi.current_ratio': {
      const bs = of('balance_sheet');
      const read = bs ? readBalanceSheet(bs.result) : undefined;
      if (read?.currentAssets === undefined || read.currentLiabilities === undefined)
        return unreadable('balance_sheet');
      const notes = read.counted.current.length
        ? [
            `Counted as current: ${read.counted.current.join(', ')}.`,
            ...(read.counted.nonCurrent.length
              ? [`Not current: ${read.counted.nonCurrent.join(', ')}.`]
              : []),
          ]
        : [];
      return {
        kind: 'kpi',
        name: 'current_ratio',
        kpi: currentRatio({ currentAssets: read.currentAssets, currentLiabilities: read.currentLiabilities }),
        notes,
      };
    }
    case 'kpi.runway':
      return runwayOf(request, results);
    case 'anomalies':
      return anomalies(results);
    case 'budget':
      throw new Decline(
        "Your books don't keep budgets in a report I can read, so I can't compare budget with actual.",
      );
  }
}

function partySales(request: AnalyticRequest, input: AnalyticResultIn | undefined): Computed {
  if (!input) return unreadable('invoices');
  if (!isComplete(input.result)) return partial('invoices');
  const read = readDocuments(input.result, 'invoice', request.today) ?? unreadable('invoices');
  const period = request.period;
  const inPeriod = read.all.filter((d) => !period || (d.doc.date >= period.from && d.doc.date <= period.to));
  const filtered = forParty(
    oneSpelling(read.all.map((d) => ({ ...d, party: d.doc.party }))),
    request.party,
    'receivables',
    'invoices',
  );
  const keep = new Set(filtered.docs.map((d) => d.doc));
  const mine = inPeriod.filter((d) => keep.has(d.doc));
  const taxIncluded = mine.some((d) => d.net === undefined);
  const invoices = mine.map((d) => ({
    ...(d.doc.number ? { number: d.doc.number } : {}),
    date: d.doc.date,
    amount: taxIncluded ? d.doc.total : (d.net as number),
  }));
  const total = fromPaise(invoices.reduce((s, i) => s + Math.round(i.amount * 100), 0));
  return {
    kind: 'party_sales',
    party: filtered.party ?? request.party ?? '',
    label: period?.label ?? 'all time',
    invoices,
    total,
    taxIncluded,
  };
}

function forecast(
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

function runwayOf(request: AnalyticRequest, results: readonly AnalyticResultIn[]): Computed {
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

function anomalies(results: readonly AnalyticResultIn[]): Computed {
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
