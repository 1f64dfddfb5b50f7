import { isRecord, nameWords, singular } from '@munim/contracts';
import {
  amountOf,
  isNameShaped,
  isNumberShaped,
  isParty,
  keyWords,
  NAME_FILLER,
  NAME_HEAD,
  NOT_ITS_NUMBER,
  NUMBER_WORD,
  PARTY_ATTRIBUTE,
  partyWord,
  readDate,
  text,
} from './words.ts';

/**
 * What a record's fields mean, read from the words of their names, the shape of their values and
 * where they sit — never from one server's spellings. `InvoiceNumber`, `invoice_number`, `DocNumber`
 * and `VOUCHERNUMBER` are numbers alike; `Customer`, `ContactName`, `Contact.Name`,
 * `customer.display_name`, `CustomerRef.name` and Odoo's `partner_id: [7, "Acme"]` are parties alike.
 */

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
