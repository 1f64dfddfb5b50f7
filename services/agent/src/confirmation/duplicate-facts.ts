import { isRecord, parseToolName, partyCore, partyKey, singular, writeAmount } from '@munim/contracts';
import { parseDate } from '../render/locale.ts';
import { readFacts } from './fields.ts';
import type { Lookups } from './lookup.ts';
import { kindBeside, partyRefOf, refOf } from './refs.ts';
import { amountOf, isParty, keyWords, readDate } from './words.ts';

/**
 * What makes a new record the same as one the books hold, read by meaning from the call and from
 * the records in whatever spelling: a party by its GSTIN, its PAN or its name without case,
 * punctuation or legal form; a document, payment or journal by its own number or reference, or by
 * the same party and amount a few days apart.
 */

/** Days either side of a new entry's date within which the same party and amount is a likely duplicate. */
export const DUPLICATE_DAYS = 3;

const GSTIN = /^[0-9]{2}[A-Z]{5}[0-9]{4}[A-Z][0-9A-Z]Z[0-9A-Z]$/;
const PAN = /^[A-Z]{5}[0-9]{4}[A-Z]$/;

/** What a new party is known by. */
export interface PartyCall {
  name?: string;
  /** Its name without case, punctuation or legal form. */
  core?: string;
  gstin?: string;
  pan?: string;
}

/** What a new document, payment or journal is known by. */
export interface EntryCall {
  /** The kind of record, in words joined by `_` (`payment`, `bill_payment`, `journal_entry`). */
  noun: string;
  journal: boolean;
  amount?: number;
  /** Its date, ISO (today when the call gives none: the books date it so). */
  date: string;
  /** Its own numbers and references: the field, the value as sent, and normalised. */
  numbers: OwnNumber[];
  partyIds: Set<string>;
  /** Its party's names without case, punctuation or legal form. */
  partyNames: Set<string>;
  /** The documents it applies to (a payment's invoices and bills). */
  applied: Set<string>;
  /** What its lines say they are for (a document's goods and services). */
  lines: Set<string>;
  /** A journal's accounts, and what it says it is for. */
  accounts: Set<string>;
  narration?: string;
}

/** A number or reference of a record's own, and the field that holds it. */
export interface OwnNumber {
  key: string;
  text: string;
  /** Without case, spaces or punctuation. */
  normal: string;
}

/** How a record of the books matched. */
export type Match = 'gstin' | 'pan' | 'name' | 'number' | 'amount' | 'journal';

/** Every value of a record with the words of its path (objects and lists opened `depth` levels). */
export function* values(value: unknown, words: string[] = [], depth = 3): Generator<[string[], unknown]> {
  if (Array.isArray(value)) {
    if (depth > 0) for (const v of value) yield* values(v, words, depth - 1);
  } else if (isRecord(value)) {
    if (depth > 0)
      for (const [k, v] of Object.entries(value)) yield* values(v, [...words, ...keyWords(k)], depth - 1);
  } else yield [words, value];
}

const upper = (v: unknown) => (typeof v === 'string' ? v.replace(/\s+/g, '').toUpperCase() : '');

/** The GSTINs and PANs a record holds, whatever their fields are called (a GSTIN holds its PAN). */
export function taxIds(record: Record<string, unknown>): { gstins: Set<string>; pans: Set<string> } {
  const gstins = new Set<string>();
  const pans = new Set<string>();
  for (const [, v] of values(record)) {
    const u = upper(v);
    if (GSTIN.test(u)) {
      gstins.add(u);
      pans.add(u.slice(2, 12));
    } else if (PAN.test(u)) pans.add(u);
  }
  return { gstins, pans };
}

/** A party record's name, or the name a party field gives. */
export const nameOf = (record: Record<string, unknown>) => {
  const facts = readFacts(record);
  return facts.name ?? facts.party;
};

/** The new party a call creates: its name and tax ids, read by meaning. */
export function partyCall(args: Record<string, unknown>): PartyCall {
  const { gstins, pans } = taxIds(args);
  const name = nameOf(args);
  const [gstin] = gstins;
  const explicit = [...pans].find((p) => !gstin || p !== gstin.slice(2, 12));
  const pan = explicit ?? gstin?.slice(2, 12);
  return {
    ...(name ? { name, core: partyCore(name) } : {}),
    ...(gstin ? { gstin } : {}),
    ...(pan ? { pan } : {}),
  };
}

/**
 * Whether a party record is the new party: the same GSTIN, the same PAN, or the same name — unless
 * both have PANs and they differ (two businesses of one name are two legal persons).
 */
export function partyMatch(call: PartyCall, record: Record<string, unknown>): Match | undefined {
  const { gstins, pans } = taxIds(record);
  if (call.gstin && gstins.has(call.gstin)) return 'gstin';
  if (call.pan && pans.has(call.pan)) return 'pan';
  const name = nameOf(record);
  if (!call.core || !name || partyCore(name) !== call.core) return undefined;
  return call.pan && pans.size > 0 ? undefined : 'name';
}

const NUMBER_OR_REF = new Set([
  'number',
  'no',
  'num',
  'nbr',
  'reference',
  'ref',
  'utr',
  'rrn',
  'cheque',
  'check',
]);
const OF_ANY_RECORD = new Set([
  'doc',
  'document',
  'voucher',
  'txn',
  'transaction',
  'bank',
  'payment',
  'external',
]);

/**
 * A record's (or a call's) own numbers and references: `Reference`, `InvoiceNumber` of an invoice,
 * `cheque_no`, never the number of another record it points at (a payment's `bill_number`).
 */
function ownNumbers(record: Record<string, unknown>, noun: string): OwnNumber[] {
  const nouns = noun.split('_').filter(Boolean);
  const head = nouns.at(-1);
  const out: OwnNumber[] = [];
  for (const [key, value] of Object.entries(record)) {
    const words = keyWords(key).map(singular);
    if (!words.some((w) => NUMBER_OR_REF.has(w)) || words.includes('id')) continue;
    const rest = words.filter((w) => !NUMBER_OR_REF.has(w) && !OF_ANY_RECORD.has(w));
    if (rest.length > 0 && (!rest.every((w) => nouns.includes(w)) || (head && !rest.includes(head))))
      continue;
    const v = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
    const normal = v.replace(/[^\p{L}\p{N}]+/gu, '').toUpperCase();
    if (normal.length >= 2) out.push({ key, text: v.trim(), normal });
  }
  return out;
}

/** Kinds of documents a payment or a credit applies to. */
const DOCUMENT = new Set(['invoice', 'bill', 'note', 'order', 'expense', 'challan', 'voucher', 'receipt']);

/**
 * The documents a record (or a call) applies to: `Applications[].InvoiceId`, QuickBooks'
 * `LinkedTxn: [{ TxnId, TxnType: "Invoice" }]`, an `invoice_id` of its own — never its own kind.
 */
function appliedTo(record: Record<string, unknown>, head: string | undefined): Set<string> {
  const out = new Set<string>();
  const visit = (item: Record<string, unknown>, depth: number) => {
    for (const [k, v] of Object.entries(item)) {
      if (Array.isArray(v)) {
        if (depth < 3) for (const inner of v) if (isRecord(inner)) visit(inner, depth + 1);
        continue;
      }
      const found = refOf(k, v);
      const ref = found ? kindBeside(item, found) : undefined;
      const kind = ref ? keyWords(ref.noun).at(-1) : undefined;
      if (ref && kind && kind !== head && DOCUMENT.has(kind)) out.add(ref.value.trim().toLowerCase());
    }
  };
  visit(record, 0);
  return out;
}

const LINE_TEXT = new Set(['description', 'desc', 'particulars', 'narration', 'memo']);

/** What a record's lines say they are for (`Lines[].Description`, `line_items[].description`), normalised. */
function linesOf(record: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  for (const value of Object.values(record)) {
    if (!Array.isArray(value)) continue;
    for (const line of value) {
      if (!isRecord(line)) continue;
      for (const [k, v] of Object.entries(line))
        if (typeof v === 'string' && keyWords(k).some((w) => LINE_TEXT.has(w)) && v.trim() !== '')
          out.add(partyKey(v));
    }
  }
  return out;
}

const disjoint = (a: Set<string>, b: Set<string>) =>
  a.size > 0 && b.size > 0 && [...a].every((x) => !b.has(x));

/** Whether a record is void, deleted or cancelled: no duplicate of anything. */
function isGone(record: Record<string, unknown>): boolean {
  return Object.entries(record).some(([k, v]) => {
    const words = keyWords(k);
    const state = words.includes('status') || words.includes('state');
    if (state && typeof v === 'string') return /void|delet|cancel|revers|archiv/i.test(v);
    return v === true && words.some((w) => /^(voided|deleted|cancelled|canceled|archived)$/.test(w));
  });
}

/** The accounts a journal's lines post to (ids or codes, by meaning). */
function accountsOf(record: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  for (const value of Object.values(record)) {
    if (!Array.isArray(value)) continue;
    for (const line of value) {
      if (!isRecord(line)) continue;
      for (const [k, v] of Object.entries(line)) {
        const ref = refOf(k, v);
        if (ref && keyWords(ref.noun).includes('account')) out.add(ref.value.trim().toLowerCase());
      }
    }
  }
  return out;
}

export const NARRATION = new Set(['narration', 'memo', 'description', 'note', 'notes', 'particulars']);
function narrationOf(record: Record<string, unknown>): string | undefined {
  const found = Object.entries(record).find(
    ([k, v]) => typeof v === 'string' && keyWords(k).length === 1 && NARRATION.has(keyWords(k)[0] ?? ''),
  );
  const said = found ? partyKey(String(found[1])) : '';
  return said === '' ? undefined : said;
}

/** Today's date, ISO: a call that gives no date is dated today by the books. */
const today = () => new Date().toISOString().slice(0, 10);

/**
 * The new document, payment or journal a call creates: its amount, date, numbers, and its party —
 * named in the call, or by the records it points at (a payment's invoice, as the card's lookups read it).
 */
export function entryCall(tool: string, args: Record<string, unknown>, lookups: Lookups): EntryCall {
  const noun = parseToolName(tool).object;
  const nouns = noun.split('_');
  const facts = readFacts(args, noun);
  const partyIds = new Set<string>();
  const partyNames = new Set<string>();
  const name = (n: string | undefined) => n && partyNames.add(partyCore(n));
  const visit = (record: Record<string, unknown>, depth: number) => {
    for (const [key, value] of Object.entries(record)) {
      if (Array.isArray(value)) {
        if (depth < 2) for (const item of value) if (isRecord(item)) visit(item, depth + 1);
        continue;
      }
      const ref = refOf(key, value);
      if (!ref) continue;
      const looked = lookups.get(ref.value);
      const found = looked && 'record' in looked ? looked.record : undefined;
      if (isParty(keyWords(ref.noun))) {
        partyIds.add(ref.value);
        if (found) name(nameOf(found));
      } else if (found && ref.noun.split('_').at(-1) !== nouns.at(-1)) {
        // A record it applies to (a payment's invoice) names the party.
        const theirs = readFacts(found);
        name(theirs.party);
        const party = partyRefOf(found);
        if (party) partyIds.add(party.value);
      }
    }
  };
  visit(args, 0);
  name(facts.party);
  const amount = writeAmount(args).amount;
  const narration = narrationOf(args);
  return {
    noun,
    journal: parseToolName(tool).nouns.some((w) => /^journals?$/.test(w)),
    ...(amount !== undefined ? { amount } : {}),
    date: (facts.date && isoDay(facts.date)) ?? today(),
    numbers: ownNumbers(args, noun),
    applied: appliedTo(args, nouns.at(-1)),
    lines: linesOf(args),
    partyIds,
    partyNames,
    accounts: accountsOf(args),
    ...(narration ? { narration } : {}),
  };
}

/** A date as its ISO day, whatever the books wrote. */
function isoDay(value: string): string | undefined {
  const date = parseDate(readDate(value) ?? value)?.date;
  return date ? date.toISOString().slice(0, 10) : undefined;
}

const daysApart = (a: string, b: string) => Math.abs(Date.parse(a) - Date.parse(b)) / 86_400_000;

/** The amounts a record may be compared by: its total, and the total before tax (what a call's lines add up to). */
function amountsOf(record: Record<string, unknown>, total: number | undefined): number[] {
  const out = total === undefined ? [] : [total];
  for (const [k, v] of Object.entries(record)) {
    const words = keyWords(k);
    const before = words.includes('subtotal') || (words.includes('sub') && words.includes('total'));
    const net = words.some((w) => ['net', 'untaxed', 'taxable'].includes(w));
    const amount = amountOf(v);
    if (amount !== undefined && (before || (net && words.some((w) => w === 'total' || w === 'amount'))))
      out.push(amount);
  }
  return out;
}

/** Whether a record of the books is the new entry: its own number, or the same party and amount a few days apart. */
export function entryMatch(call: EntryCall, record: Record<string, unknown>): Match | undefined {
  if (isGone(record)) return undefined;
  const facts = readFacts(record, call.noun);
  const partyId = partyRefOf(record)?.value;
  const partyName = facts.party ? partyCore(facts.party) : undefined;
  const known = (call.partyIds.size > 0 || call.partyNames.size > 0) && (partyId || partyName);
  const same =
    (partyId !== undefined && call.partyIds.has(partyId)) ||
    (partyName !== undefined && call.partyNames.has(partyName));
  const numbers = new Set(ownNumbers(record, call.noun).map((n) => n.normal));
  if (call.numbers.some((n) => numbers.has(n.normal)) && (!known || same)) return 'number';
  if (call.amount === undefined || !facts.date) return undefined;
  const day = isoDay(facts.date);
  if (!day || daysApart(day, call.date) > DUPLICATE_DAYS) return undefined;
  if (!amountsOf(record, facts.amount).some((a) => Math.abs(a - (call.amount ?? 0)) < 0.005))
    return undefined;
  // Two payments of one amount to one party that settle different invoices are two payments; two
  // invoices of one amount for different goods are two invoices.
  const elsewhere = disjoint(call.applied, appliedTo(record, call.noun.split('_').at(-1)));
  if (!call.journal)
    return same && !elsewhere && !disjoint(call.lines, linesOf(record)) ? 'amount' : undefined;
  const accounts = accountsOf(record);
  const sameAccounts =
    call.accounts.size > 0 &&
    accounts.size === call.accounts.size &&
    [...accounts].every((a) => call.accounts.has(a));
  return sameAccounts || (call.narration !== undefined && narrationOf(record) === call.narration)
    ? 'journal'
    : undefined;
}

/** The records a read returned: its shallowest list of records, else the one record it is. */
export function recordsIn(value: unknown): Record<string, unknown>[] {
  let level: unknown[] = [value];
  for (let depth = 0; depth < 4 && level.length > 0; depth += 1) {
    const lists = level.filter((v): v is unknown[] => Array.isArray(v) && v.some(isRecord));
    if (lists.length > 0) return lists.sort((a, b) => b.length - a.length)[0]!.filter(isRecord);
    level = level.flatMap((v) => (isRecord(v) ? Object.values(v) : []));
  }
  return isRecord(value) ? [value] : [];
}
