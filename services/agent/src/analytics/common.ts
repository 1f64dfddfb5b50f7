/**
 * What the analytic measures share: what they are computed into, the fetched results they read,
 * and the declines (an input unreadable or partial, a party not found or not one).
 */
import type { AnalyticInput, BookRole } from '@munim/contracts';
import {
  type BudgetVsActual,
  type CashForecast,
  type CashToday,
  type DueIn,
  type ExpenseLineFinding,
  fromPaise,
  type Kpi,
  type OpenDoc,
  type OwedBy,
  type PaymentFinding,
  type PnlComparison,
  type PnlLine,
  pnlTotalsPaise,
  type TotalKey,
} from '@munim/finance';
import { readPnl } from './inputs.ts';
import { matchParty, partyWords } from './party.ts';
import { isComplete, readAging, readDocuments } from './records.ts';

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
  | {
      kind: 'budget';
      label: string;
      period: { from: string; to: string };
      /** Spending and income apart: their totals mean nothing added together. */
      sides: BudgetSide[];
    }
  | { kind: 'decline'; words: string };

/** One side of budget against actual: what is spent, or what comes in. */
export interface BudgetSide {
  side: 'expenses' | 'income';
  result: BudgetVsActual;
}

/** Each report or list in words, for a decline. */
export const ROLE_WORDS: Readonly<Record<BookRole, string>> = {
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
  budgets: 'budgets',
};

/** Thrown inside a measure's computation: the answer is this decline. */
export class Decline extends Error {}

/** A decline: the result of `role` could not be read. */
export const unreadable = (role: BookRole): never => {
  throw new Decline(
    `I couldn't read the ${ROLE_WORDS[role]} your books returned, so I can't work this out without guessing. Ask me to show the ${ROLE_WORDS[role]} instead.`,
  );
};

/** A decline: only part of the list of `role` came back. */
export const partial = (role: BookRole): never => {
  throw new Decline(
    `Your books gave me only part of the ${ROLE_WORDS[role]}, so a total from it would be wrong. Ask me to list them instead, page by page.`,
  );
};

/** Who and what each side is, in a decline's words. */
export const SIDE_WORDS = {
  receivables: { party: 'customer', docs: 'open invoices' },
  payables: { party: 'vendor', docs: 'open bills' },
} as const;

/** Documents with each party under one spelling: "Tata Steel Ltd" and "Tata Steel Limited" are one. */
export function oneSpelling<T extends { party: string }>(docs: readonly T[]): T[] {
  const names = new Map<string, string>();
  return docs.map((d) => {
    const key = partyWords(d.party) || d.party;
    const name = names.get(key) ?? d.party.trim();
    names.set(key, name);
    return name === d.party ? d : { ...d, party: name };
  });
}

/** The documents a party filter keeps, or a decline naming what was asked. */
export function forParty<T extends { party: string }>(
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
export function openDocs(
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

/** A profit and loss result's lines, or a decline. */
export const pnlOf = (input: AnalyticResultIn): PnlLine[] =>
  readPnl(input.result) ?? unreadable('profit_and_loss');

/** A profit and loss's totals in rupees. */
export function totalsOf(lines: readonly PnlLine[]): Record<TotalKey, number> {
  const paise = pnlTotalsPaise(lines);
  return Object.fromEntries(Object.entries(paise).map(([k, v]) => [k, fromPaise(v)])) as Record<
    TotalKey,
    number
  >;
}
