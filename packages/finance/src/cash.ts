/** Cash today: the balances of the books' cash and bank accounts. */
import { fromPaise, toPaise } from './receivables.ts';

/** A cash or bank account and its balance today. */
export interface CashAccount {
  name: string;
  balance: number;
  kind?: 'bank' | 'cash';
}

/** Money in (+) or out (−) of an account on a day: the record the cash analytics read. */
export interface Movement {
  /** `YYYY-MM-DD`. */
  date: string;
  /** Positive in, negative out. */
  amount: number;
  party?: string;
  account?: string;
  /** The expense (or income) line it is booked to. */
  category?: string;
}

/** Cash today, in total, by kind, and per account. */
export interface CashToday {
  total: number;
  bank: number;
  cash: number;
  accounts: { name: string; kind: 'bank' | 'cash'; balance: number; kindInferred: boolean }[];
}

const CASH_NAME = /\b(cash|petty|imprest|till)\b/i;

/**
 * Cash and bank today: the sum of the accounts' balances (in paise, so to the paisa), split into
 * bank and cash. An account without a kind is taken as cash when its name says so (cash, petty,
 * imprest, till) and as bank otherwise; `kindInferred` marks those. An overdrawn account (negative
 * balance) counts as negative.
 */
export function cashToday(accounts: readonly CashAccount[]): CashToday {
  let bank = 0;
  let cash = 0;
  const lines = accounts.map((a) => {
    const kind = a.kind ?? (CASH_NAME.test(a.name) ? 'cash' : 'bank');
    const p = toPaise(a.balance);
    if (kind === 'cash') cash += p;
    else bank += p;
    return { name: a.name, kind, balance: fromPaise(p), kindInferred: a.kind === undefined };
  });
  return { total: fromPaise(bank + cash), bank: fromPaise(bank), cash: fromPaise(cash), accounts: lines };
}
