import { nameWords, readMoney, singular } from '@munim/contracts';

/**
 * The vocabulary and value shapes a confirmation reads records by: the words of a field's name in
 * any naming style, the words that name a party or a number, and what an id, a document number, a
 * name and a date look like. Principles, not one server's spellings.
 */

/** Last words a run-together name (`customerid`, `PARTYLEDGERNAME`) is split before, with the least left before them. */
const TAILS: [string, number][] = [
  ['number', 3],
  ['name', 3],
  ['date', 3],
  ['amount', 3],
  ['total', 3],
  ['id', 4],
];

/** Field names seen, with their words: a list of records repeats the same few names thousands of times. */
const seen = new Map<string, string[]>();
const SEEN_MAX = 10_000;

/** The words of a field's name in any style, the last one singular: `TotalAmt` → total, amt; `customerid` → customer, id. */
export function keyWords(key: string): string[] {
  const known = seen.get(key);
  if (known) return known;
  const out: string[] = [];
  const split = (word: string): string[] => {
    for (const [tail, least] of TAILS)
      if (word.endsWith(tail) && word.length - tail.length >= least)
        return [...split(word.slice(0, -tail.length)), tail];
    return [word];
  };
  for (const word of nameWords(key)) out.push(...split(word));
  // Only the last word is made singular: `Invoices` is an invoice, `SalesOrders` a sales order.
  if (out.length > 0) out[out.length - 1] = singular(out.at(-1) as string);
  if (seen.size >= SEEN_MAX) seen.clear();
  seen.set(key, out);
  return out;
}

const PARTY = [
  'customer',
  'client',
  'contact',
  'vendor',
  'supplier',
  'partner',
  'payee',
  'payer',
  'party',
  'buyer',
  'seller',
  'debtor',
  'creditor',
  'organization',
  'beneficiary',
  'recipient',
  'merchant',
];
/** Words that make a party's field something else than its name (its email, its tax number, its id). */
export const PARTY_ATTRIBUTE = new Set(
  'email mail phone mobile fax address addr street city state zip postal pin country gst gstin vat tax pan tin code currency type id number no num memo message note balance amount total date status term url website group category reference account bank language locale limit credit first last given family person salutation'.split(
    ' ',
  ),
);
/** Words that make a field a name: `name`, Sage's `displayed_as`, `title`, `label`. */
export const NAME_HEAD = new Set(['name', 'displayed', 'title', 'label']);
/** Words a name's field may carry beside its head (`display_name`, `FullyQualifiedName`, `CustomerRef.name`). */
export const NAME_FILLER = new Set([
  'display',
  'as',
  'full',
  'fully',
  'qualified',
  'legal',
  'company',
  'trading',
  'print',
  'ref',
]);
/** Words that make a field a number (`InvoiceNumber`, `bill_no`, `DocNum`). */
export const NUMBER_WORD = new Set(['number', 'no', 'num', 'nbr']);
/** A number of something other than the record itself. */
export const NOT_ITS_NUMBER = new Set(
  'phone mobile fax tax gst gstin vat pan tin bank account registration po purchase reference ref tracking check cheque card line serial batch lot vehicle eway irn ack routing iban swift ifsc sort employee'.split(
    ' ',
  ),
);

/** Whether a word is or holds a party noun (`partyledger`, `counterparty`). */
export const partyWord = (w: string) =>
  PARTY.some((p) => w === p || singular(w) === p || (w.length > p.length + 2 && w.includes(p)));
/** Whether a field's words name the other party of a document (its customer, vendor, contact, bill-to, billing details…). */
export const isParty = (words: string[]) =>
  words.some(
    (w, i) =>
      partyWord(w) ||
      /^(billto|soldto|billing)$/.test(w) ||
      (/^(bill|sold)$/.test(w) && words[i + 1] === 'to'),
  );

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string is an opaque id (a UUID, a hash, `in_1MtHbELkdIwHu7ix`, a long database number), not words. */
export function isOpaqueId(value: string): boolean {
  const v = value.trim();
  if (UUID.test(v) || /^[0-9a-f]{16,}$/i.test(v) || /^\d{6,}$/.test(v)) return true;
  if (v.length > 40 && !/\s/.test(v)) return true;
  // A random token mixes cases and digits; words and document numbers do not.
  return v
    .split(/[^A-Za-z0-9]+/)
    .some((t) => t.length >= 10 && /[a-z]/.test(t) && /[A-Z]/.test(t) && /\d/.test(t));
}

/** Whether a value reads as a document number a person knows it by: INV-043, INV/2023/00003, SI-1, #1042. */
export function isNumberShaped(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const v = value.trim();
  if (v.length === 0 || v.length > 24 || !/\d/.test(v) || isOpaqueId(v) || /^\d+$/.test(v)) return false;
  if (readDate(v)) return false;
  return /^[#A-Za-z0-9][A-Za-z0-9 \-/#.]*$/.test(v) && /[A-Za-z\-/#]/.test(v);
}

/** Whether a value reads as a person's or a company's name. */
export function isNameShaped(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const v = value.trim();
  return v !== '' && v.length <= 160 && /\p{L}/u.test(v) && !/@/.test(v) && !isOpaqueId(v);
}

/** A non-empty string, trimmed. */
export const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** A number or money written as text ("1250.00", "1,18,000.00", "₹1,18,000"): the one reader of amounts. */
export function amountOf(value: unknown): number | undefined {
  return readMoney(value)?.amount;
}

const MONTH =
  /^(\d{1,2}[ -])?(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?[ -]\d{1,2}(,? |[ -])\d{4}$|^\d{1,2}[ -](jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?[ -]\d{4}$/i;

/**
 * A date as ISO text: ISO dates and timestamps, Microsoft JSON dates, `20260115`, Unix seconds
 * or milliseconds, and dates with the month in words. Undefined for anything else.
 */
export function readDate(value: unknown): string | undefined {
  if (typeof value === 'number') {
    const ms = value > 1e11 ? value : value * 1000;
    return value > 1e8 && ms < 4.2e12 ? new Date(ms).toISOString() : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const v = value.trim();
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v)) return v.replace(' ', 'T');
  if (/^\/Date\(-?\d+([+-]\d{4})?\)\/$/.test(v)) return v;
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(v);
  if (compact && +compact[2]! <= 12 && +compact[3]! <= 31) return `${compact[1]}-${compact[2]}-${compact[3]}`;
  if (MONTH.test(v) && /\d{4}/.test(v) && v.length <= 32) {
    const parsed = Date.parse(`${v} UTC`);
    if (!Number.isNaN(parsed)) return new Date(parsed).toISOString().slice(0, 10);
  }
  return undefined;
}
