/**
 * Each analytic measure computed from the books' results by code: its figures and its working, or a
 * decline saying why it cannot be answered (an input that cannot be read, a party not found or not
 * one). A filtered question is answered for its party only, never with everyone's figure.
 */
import type { AnalyticPeriod, AnalyticRequest, BookRole } from '@munim/contracts';
import {
  cashToday,
  comparePnl,
  currentRatio,
  dpo,
  dso,
  dueIn,
  fromPaise,
  grossMargin,
  netMargin,
  owedBy,
} from '@munim/finance';
import { budgetAgainstActual } from './budgets.ts';
import {
  type AnalyticResultIn,
  type Computed,
  Decline,
  forParty,
  oneSpelling,
  openDocs,
  partial,
  pnlOf,
  SIDE_WORDS,
  type Side,
  totalsOf,
  unreadable,
} from './common.ts';
import { anomalies, forecast, runwayOf } from './compute-cash.ts';
import { readBalanceSheet, readGst } from './inputs.ts';
import { isComplete, readDocuments } from './records.ts';

const daysIn = (p: AnalyticPeriod) => Math.round((Date.parse(p.to) - Date.parse(p.from)) / 86_400_000) + 1;
const addDays = (day: string, n: number) =>
  new Date(Date.parse(day) + n * 86_400_000).toISOString().slice(0, 10);

/**
 * The measure `request` asks for, computed from `results` (in the order of `request.inputs`); a
 * financial year a budget names starts in `fyStartMonth`.
 */
export function compute(
  request: AnalyticRequest,
  results: readonly AnalyticResultIn[],
  currency = '',
  fyStartMonth = 4,
): Computed {
  try {
    return measure(request, results, currency, fyStartMonth);
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

function measure(
  request: AnalyticRequest,
  results: readonly AnalyticResultIn[],
  currency: string,
  fyStartMonth: number,
): Computed {
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
      const { docs, byDocument } = sideDocs(of, side, today);
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
    case 'payables.due':
      return dueOf(request, of);
    case 'kpi.dso':
    case 'kpi.dpo':
      return daysOutstanding(request, of);
    case 'kpi.current_ratio':
      return currentRatioOf(of);
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
    case 'kpi.runway':
      return runwayOf(request, results);
    case 'anomalies':
      return anomalies(results);
    case 'budget':
      return budgetAgainstActual(request, results, fyStartMonth);
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

/** A side's open documents: from its aged report, else from its list of invoices or bills. */
function sideDocs(of: (...roles: BookRole[]) => AnalyticResultIn | undefined, side: Side, today: string) {
  return openDocs(
    of(
      side === 'receivables' ? 'aged_receivables' : 'aged_payables',
      side === 'receivables' ? 'invoices' : 'bills',
    ),
    side,
    today,
  );
}
/** What falls due in the window asked (the next 7 days by default). */
function dueOf(
  request: AnalyticRequest,
  of: (...roles: BookRole[]) => AnalyticResultIn | undefined,
): Computed {
  const { today, measure: m } = request;
  const side: Side = m.startsWith('receivables') ? 'receivables' : 'payables';
  const { docs, byDocument } = sideDocs(of, side, today);
  if (!byDocument)
    throw new Decline(
      `Your books' aged report gives what is owed by age, not by due date, so I can't tell what falls due in ${request.period?.label ?? 'the next 7 days'}.`,
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

/** DSO or DPO: what is owed today against the period's sales or purchases. */
function daysOutstanding(
  request: AnalyticRequest,
  of: (...roles: BookRole[]) => AnalyticResultIn | undefined,
): Computed {
  const { today, measure: m } = request;
  const side: Side = m === 'kpi.dso' ? 'receivables' : 'payables';
  const { docs } = sideDocs(of, side, today);
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

/** Current assets over current liabilities, saying which lines were counted. */
function currentRatioOf(of: (...roles: BookRole[]) => AnalyticResultIn | undefined): Computed {
  const bs = of('balance_sheet');
  const read = bs ? readBalanceSheet(bs.result) : undefined;
  if (read?.currentAssets === undefined || read.currentLiabilities === undefined)
    return unreadable('balance_sheet');
  const notes = read.counted.current.length
    ? [
        `Counted as current: ${read.counted.current.join(', ')}.`,
        ...(read.counted.nonCurrent.length ? [`Not current: ${read.counted.nonCurrent.join(', ')}.`] : []),
      ]
    : [];
  return {
    kind: 'kpi',
    name: 'current_ratio',
    kpi: currentRatio({ currentAssets: read.currentAssets, currentLiabilities: read.currentLiabilities }),
    notes,
  };
}
