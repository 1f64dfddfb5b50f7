import { isRecord } from '@munim/contracts';
import type { Formats } from './locale.ts';
import { num, type Rec, str, text } from './shape.ts';
import { CODE_KEY, codeWords } from './words.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Internal ids never reach the user (they mean nothing to a reader and leak the books' internals): a key naming one, or a value that is one. */
export function isIdKey(key: string, values: unknown[] = []): boolean {
  if (/(^id$|Id$|ID$|_id$|^uuid$|^guid$|Ref$|_ref$)/.test(key) && !/^(reference|ref)$/i.test(key)) {
    // A reference object with a name (QuickBooks' CustomerRef) is shown by its name.
    return !values.some((v) => isRecord(v) && text(v));
  }
  return values.some((v) => typeof v === 'string' && UUID.test(v));
}

/** Bookkeeping fields of the API, not of the books: timestamps, flags already shown as a status. */
export const isTechnicalKey = (key: string) =>
  /(At$|_at$|^(created|updated|modified)|^is[A-Z_]|^has[A-Z_]|^sparse$|^domain$|^synctoken$|^metadata$|^links?$|^url$|^href$)/i.test(
    key,
  );

/** Keys whose numbers are money (and not counts, days, rates or quantities). */
export const isMoneyKey = (key: string) =>
  /amount|total|balance|price|paid|tax|gst|vat|due$|revenue|income|expense|profit|sales|cost|payable|receivable|cash|debit|credit|outstanding|overdue(balance)?$/i.test(
    key,
  ) && !/days|count|rate|quantity|qty|number|percent|pct|ratio|terms/i.test(key);

/** A field's value in words: dates in the business's format, money in its currency, codes in words. */
export function display(key: string, value: unknown, fmt: Formats, currency?: string): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') {
    if (isMoneyKey(key)) return fmt.money(value, currency);
    if (/rate|percent|pct/i.test(key)) return `${fmt.number(value)}%`;
    return fmt.number(value);
  }
  if (typeof value === 'string') {
    const date =
      /date|day|period|^as(at|of)|time|^(from|to)$/i.test(key) || /^\d{4}-\d{2}-\d{2}/.test(value)
        ? fmt.date(value)
        : undefined;
    if (date) return date;
    if (CODE_KEY.test(key)) return codeWords(value);
    return value;
  }
  if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? '' : 's'}`;
  return text(value) ?? '';
}

/**
 * A document's status in one word or two: its approval status and payment status together, with
 * overdue first (AUTHORISED + PARTIALLY_PAID + 12 days overdue → "Overdue (partly paid)").
 */
export function statusOf(row: Rec): string | undefined {
  const status = str(row, ['Status', 'InvoiceStatus', 'BillStatus', 'DocumentStatus']);
  const payment = str(row, ['PaymentStatus']);
  if (!status && !payment) return undefined;
  const s = status ? codeWords(status) : undefined;
  const open = !s || ['Approved', 'Open', 'Sent', 'Unpaid', 'Partly paid', 'Overdue'].includes(s);
  if (!open) return s;
  const overdue = row.IsOverdue === true || (num(row, ['DaysOverdue']) ?? 0) > 0 || s === 'Overdue';
  const paidSome = (num(row, ['AmountPaid', 'AmountCredited']) ?? 0) > 0;
  const owed = (num(row, ['AmountDue', 'BalanceDue']) ?? 0) > 0;
  const p = payment
    ? codeWords(payment)
    : paidSome && owed
      ? 'Partly paid'
      : s === 'Approved' && owed
        ? 'Awaiting payment'
        : s;
  if (overdue) return p === 'Partly paid' ? 'Overdue (partly paid)' : 'Overdue';
  return p;
}

/** The fields of the records a person would read: no ids, no technical fields, not always empty or nested. */
export function plainKeys(rows: Rec[]): string[] {
  return [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => {
    const values = rows.map((r) => r[k]);
    return (
      !isIdKey(k, values) &&
      !isTechnicalKey(k) &&
      values.some((v) => v !== null && v !== undefined && (typeof v !== 'object' || text(v)))
    );
  });
}
