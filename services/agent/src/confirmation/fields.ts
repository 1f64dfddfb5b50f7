import { nameWords, singular } from '@munim/contracts';
import { isRecord } from '../util.ts';

/**
 * What a record's fields mean, read from the words of their names, the shape of their values and
 * where they sit — never from one server's spellings. `InvoiceNumber`, `invoice_number`, `DocNumber`
 * and `VOUCHERNUMBER` are numbers alike; `Customer`, `ContactName`, `Contact.Name`,
 * `customer.display_name`, `CustomerRef.name` and Odoo's `partner_id: [7, "Acme"]` are parties alike.
 */

/** Last words a run-together name (`customerid`, `PARTYLEDGERNAME`) is split before, with the least left before them. */
const TAILS: [string, number][] = [
  ['number', 3],
  ['name', 3],
  ['date', 4],
  ['amount', 3],
  ['total', 3],
  ['id', 4],
];

/** The words of a field's name in any style, singular: `TotalAmt` → total, amt; `customerid` → customer, id. */
export function keyWords(key: string): string[] {
  const out: string[] = [];
  const split = (word: string): string[] => {
    for (const [tail, least] of TAILS)
      if (word.endsWith(tail) && word.length - tail.length >= least)
        return [...split(word.slice(0, -tail.length)), tail];
    return [word];
  };
  for (const word of nameWords(key)) out.push(...split(word).map(singular));
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
];
/** Words that make a party's field something else than its name (its email, its tax number, its id). */
const PARTY_ATTRIBUTE = new Set(
  'email mail phone mobile fax address addr street city state zip postal pin country gst gstin vat tax pan tin code currency type id number no num memo message note balance amount total date status term url website group category reference account bank language locale limit credit first last given family person salutation'.split(
    ' ',
  ),
);
const NAME_HEAD = new Set(['name', 'displayed', 'title', 'label']);
const NAME_FILLER = new Set([
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
const NUMBER_WORD = new Set(['number', 'no', 'num', 'nbr']);
/** A number of something other than the record itself. */
const NOT_ITS_NUMBER = new Set(
  'phone mobile fax tax gst gstin vat pan tin bank account registration po purchase reference ref tracking check cheque card line serial batch lot vehicle eway irn ack routing iban swift ifsc sort employee'.split(
    ' ',
  ),
);
const AMOUNT_WORD = new Set(['total', 'amount', 'amt', 'grandtotal', 'sum']);
const OPEN_WORD = new Set(['due', 'outstanding', 'balance', 'residual', 'remaining', 'open', 'unpaid']);
/** An amount that is a part of the record's total, or another currency's view of it. */
const NOT_THE_TOTAL = new Set(
  'tax vat gst cgst sgst igst cess net sub subtotal untaxed discount shipping freight base home paid credited applied rate percent percentage quantity qty unit line deposit exchange rounding round adjustment withholding tds tcs cis fee count item before signed in writeoff'.split(
    ' ',
  ),
);
const DATE_WORD = new Set(['date', 'dated']);
/** A date of something other than the document: when it was changed, is due, was sent or paid. */
const NOT_ITS_DATE = new Set(
  'due update updated modified write last next expected expiry expire expiration start end period paid sent delivery ship shipping lock birth void voided cancel cancelled deleted accepted reminder service valid from to upto'.split(
    ' ',
  ),
);
const CREATED = new Set(['created', 'create', 'creation']);
const ISSUED = new Set(['issued', 'issue', 'posted', 'raised']);

/** A record's facts as a card states them. */
export interface Facts {
  number?: string;
  name?: string;
  party?: string;
  role?: string;
  amount?: number;
  currency?: string;
  /** The document's date, ISO when it could be read as one, else as the books wrote it. */
  date?: string;
  due?: string;
}

interface Leaf {
  words: string[];
  depth: number;
  value: unknown;
  /** The name half of an Odoo-style `[id, "name"]` pair. */
  pair?: boolean;
}

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

const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** A number or a number written as text ("1250.00"). */
function amountOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return undefined;
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

/** Every value of a record with the words of its path, objects opened three levels deep; lists of records (lines) left out. */
function leaves(record: Record<string, unknown>, prefix: string[] = [], depth = 1): Leaf[] {
  const out: Leaf[] = [];
  for (const [key, value] of Object.entries(record)) {
    const words = [...prefix, ...keyWords(key)];
    if (isRecord(value)) {
      if (depth < 3) out.push(...leaves(value, words, depth + 1));
    } else if (Array.isArray(value)) {
      const [id, name] = value;
      if (value.length === 2 && (typeof id === 'number' || typeof id === 'string') && isNameShaped(name))
        out.push({
          words: [...(words.at(-1) === 'id' ? words.slice(0, -1) : words), 'name'],
          depth,
          value: name,
          pair: true,
        });
    } else if (value !== null && value !== undefined && value !== '') out.push({ words, depth, value });
  }
  return out;
}

/** Whether a word is or holds a party noun (`partyledger`, `counterparty`). */
const partyWord = (w: string) => PARTY.some((p) => w === p || (w.length > p.length + 2 && w.includes(p)));
/** Whether a field's words name the other party of a document (its customer, vendor, contact…). */
export const isParty = (words: string[]) => words.some(partyWord);

function isNameWords(words: string[], allow: (w: string) => boolean): boolean {
  return (
    words.some((w) => NAME_HEAD.has(w)) &&
    words.every((w) => NAME_HEAD.has(w) || NAME_FILLER.has(w) || allow(w))
  );
}

/**
 * How surely a field with these words is the record's whole amount: 0 its total, 2 another amount
 * of it, 4 what is still open of it; undefined when it is no amount or a part of one (tax, discount).
 */
export function amountRank(words: string[], nouns: Set<string> = new Set()): number | undefined {
  if (!words.some((w) => AMOUNT_WORD.has(w) || w === 'balance')) return undefined;
  if (words.some((w) => NOT_THE_TOTAL.has(w))) return undefined;
  if (words.some((w) => OPEN_WORD.has(w))) return 4;
  return words.every((w) => AMOUNT_WORD.has(w) || nouns.has(w)) ? 0 : 2;
}

/**
 * How surely a field with these words is the record's own date: 0 its date, 1 its issue date, 2
 * another date of it, 6 when it was created; 'due' for its due date; undefined for other dates.
 */
export function dateRank(words: string[], nouns: Set<string> = new Set()): number | 'due' | undefined {
  const dated =
    words.some((x) => DATE_WORD.has(x)) || (['on', 'at'].includes(words.at(-1) ?? '') && words.length > 1);
  const created = words.some((x) => CREATED.has(x));
  if (!dated && !(created && words.length === 1)) return undefined;
  if (words.includes('due')) return 'due';
  if (words.some((x) => NOT_ITS_DATE.has(x))) return undefined;
  const rest = words.filter((x) => !DATE_WORD.has(x) && x !== 'on' && x !== 'at');
  return created ? 6 : rest.length === 0 ? 0 : rest.some((x) => ISSUED.has(x) || nouns.has(x)) ? 1 : 2;
}

/** The leaf ranked first (lowest rank, then shallowest), if any. */
function best<T>(items: [T, number][]): T | undefined {
  return items.sort((a, b) => a[1] - b[1])[0]?.[0];
}

/**
 * The facts of one record in whatever spelling and nesting: its number, name, party, amount,
 * currency, date and due date. `noun` is the kind of record when the caller knows it (an invoice):
 * its own number field (`invoice_number`) then comes before another's.
 */
export function readFacts(record: Record<string, unknown>, noun = ''): Facts {
  const all = leaves(record);
  const own = all.filter((l) => !isParty(l.words));
  const nouns = new Set(nameWords(noun).map(singular));
  const facts: Facts = {};

  const names = own.filter(
    (l) => l.depth === 1 && !l.pair && isNameShaped(l.value) && isNameWords(l.words, (w) => nouns.has(w)),
  );
  const numbers: [string, number][] = [];
  for (const l of own) {
    const value = typeof l.value === 'number' ? String(l.value) : text(l.value);
    if (!value || !l.words.some((w) => NUMBER_WORD.has(w)) || l.words.some((w) => NOT_ITS_NUMBER.has(w)))
      continue;
    const rest = l.words.filter(
      (w) => !NUMBER_WORD.has(w) && !nouns.has(w) && w !== 'doc' && w !== 'document',
    );
    numbers.push([value, (rest.length === 0 ? 0 : 1) + l.depth * 2]);
  }
  // A document's name is often its number (Odoo's `name`, Sage's `displayed_as`); so is an id a person can read.
  for (const l of names) if (isNumberShaped(l.value)) numbers.push([l.value.trim(), 4]);
  const ids = own.filter((l) => l.depth === 1 && l.words.at(-1) === 'id');
  for (const l of ids) {
    const rest = l.words.slice(0, -1);
    if (isNumberShaped(l.value) && (rest.length === 0 || rest.every((w) => nouns.has(w)) || l === ids[0]))
      numbers.push([l.value.trim(), 5]);
  }
  const number = best(numbers);
  if (number) facts.number = number;
  const name = names.map((l) => text(l.value)).find((v) => v !== undefined && v !== number);
  if (name) facts.name = name;

  const parties: [string, number][] = [];
  for (const l of all) {
    if (!isParty(l.words) || !isNameShaped(l.value)) continue;
    const other = l.words.filter((w) => !partyWord(w));
    if (other.some((w) => PARTY_ATTRIBUTE.has(w))) continue;
    if (l.pair || other.some((w) => NAME_HEAD.has(w))) parties.push([l.value.trim(), l.depth * 2]);
    else if (other.length === 0) parties.push([l.value.trim(), l.depth * 2 + 1]);
  }
  const party = best(parties);
  if (party) facts.party = party;

  for (const l of all) {
    if (
      typeof l.value === 'string' &&
      /^(customer|client|vendor|supplier)$/i.test(l.value) &&
      l.words.some((w) => w === 'type' || w === 'role')
    )
      facts.role = /vendor|supplier/i.test(l.value) ? 'Vendor' : 'Customer';
  }

  const amounts: [number, number][] = [];
  for (const l of own) {
    const value = amountOf(l.value);
    const rank = amountRank(l.words, nouns);
    if (value !== undefined && rank !== undefined) amounts.push([value, rank + (l.depth - 1)]);
  }
  const amount = best(amounts);
  if (amount !== undefined) facts.amount = amount;

  const currencies: [string, number][] = [];
  for (const l of own) {
    if (typeof l.value !== 'string' || !/^[A-Za-z]{3}$/.test(l.value.trim())) continue;
    const coded = l.words.at(-1) === 'code' && l.words.some((w) => AMOUNT_WORD.has(w) || OPEN_WORD.has(w));
    if ((l.words.includes('currency') && !l.words.includes('rate')) || coded)
      currencies.push([l.value.trim().toUpperCase(), l.depth]);
  }
  const currency = best(currencies);
  if (currency) facts.currency = currency;

  const dates: [string, number][] = [];
  const dues: [string, number][] = [];
  for (const l of own) {
    const kind = dateRank(l.words, nouns);
    if (kind === undefined) continue;
    const value =
      readDate(l.value) ?? (typeof l.value === 'string' && /\d/.test(l.value) ? l.value.trim() : undefined);
    if (!value) continue;
    if (kind === 'due') dues.push([value, l.depth]);
    else dates.push([value, kind + (l.depth - 1)]);
  }
  const date = best(dates);
  if (date) facts.date = date;
  const due = best(dues);
  if (due) facts.due = due;
  return facts;
}

/** A call's pointer at a record: the id (or number) it sends and the kind of record it names. */
export interface Ref {
  /** The field that holds the id, as the call spells it (`InvoiceID`, `value` of `CustomerRef`). */
  field: string;
  /** The kind of record, in words joined by `_` (`invoice`, `from_account`, `customer`); '' for a bare `id`. */
  noun: string;
  value: string;
}

const isIdWord = (w: string | undefined) => w === 'id';
const REF_TAIL = new Set(['ref', 'reference', 'id']);
/** Fields whose opaque value is text, a key or a token, not a pointer at a record. */
const NOT_A_KIND = new Set(
  'name description memo note narration message text comment hash token key secret signature url email idempotency'.split(
    ' ',
  ),
);
/** Nouns too general to say which record: the kind is in a sibling field (`entity_type: "contact"`). */
const GENERAL = new Set([
  'entity',
  'object',
  'record',
  'txn',
  'transaction',
  'document',
  'item',
  'resource',
  '',
]);

/** The kind a sibling field names (`entity_type: "contact"`, QuickBooks' `TxnType: "Invoice"`), for a general noun. */
export function kindBeside(item: Record<string, unknown>, ref: Ref): Ref {
  if (!GENERAL.has(ref.noun.split('_').at(-1) ?? '')) return ref;
  const kind = Object.entries(item).find(
    ([k, v]) => keyWords(k).at(-1) === 'type' && typeof v === 'string' && /^[A-Za-z ]{3,30}$/.test(v),
  )?.[1];
  return typeof kind === 'string' ? { ...ref, noun: keyWords(kind).join('_') } : ref;
}

/** The first record an item of a list points at, in its own fields or its nested lists (QuickBooks' `LinkedTxn`). */
export function refIn(item: Record<string, unknown>, depth = 0): Ref | undefined {
  for (const [k, v] of Object.entries(item)) {
    const ref = Array.isArray(v) ? undefined : refOf(k, v);
    if (ref) return kindBeside(item, ref);
  }
  if (depth >= 2) return undefined;
  for (const v of Object.values(item))
    if (Array.isArray(v))
      for (const inner of v) {
        const ref = isRecord(inner) ? refIn(inner, depth + 1) : undefined;
        if (ref) return ref;
      }
  return undefined;
}

/**
 * The record an argument points at: an id field (`InvoiceID`, `customerid`, Odoo's `partner_id: 7`),
 * a document's number (`invoice_number`), a reference object (QuickBooks' `CustomerRef: { value }`,
 * Xero's `Contact: { ContactID }`), or a party field holding an opaque id (Stripe's `customer: "cus_…"`).
 */
export function refOf(key: string, value: unknown): Ref | undefined {
  const words = keyWords(key);
  if (typeof value === 'number' && Number.isFinite(value) && isIdWord(words.at(-1)))
    return { field: key, noun: words.slice(0, -1).join('_'), value: String(value) };
  if (typeof value === 'string' && value.trim() !== '') {
    if (isIdWord(words.at(-1))) return { field: key, noun: words.slice(0, -1).join('_'), value };
    const last = words.at(-1) ?? '';
    if (NUMBER_WORD.has(last) && !words.some((w) => NOT_ITS_NUMBER.has(w)) && words.length > 1)
      return { field: key, noun: words.slice(0, -1).join('_'), value };
    // A field named for a kind of record that holds an opaque id points at one (Stripe's `customer: "cus_…"`).
    const kind = words.filter((w) => !REF_TAIL.has(w));
    if (kind.length > 0 && kind.length <= 2 && !kind.some((w) => NOT_A_KIND.has(w)) && isOpaqueId(value))
      return { field: key, noun: kind.join('_'), value };
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const inner = Object.entries(value).find(
    ([k, v]) =>
      (isIdWord(keyWords(k).at(-1)) || k === 'value') && (typeof v === 'string' || typeof v === 'number'),
  );
  if (!inner || String(inner[1]).trim() === '') return undefined;
  const noun = words.filter((w) => !REF_TAIL.has(w)).join('_') || keyWords(inner[0]).slice(0, -1).join('_');
  return { field: inner[0], noun, value: String(inner[1]) };
}
