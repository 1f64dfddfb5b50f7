import { isRecord, nameWords, parseToolName, singular } from '@munim/contracts';
import type { Formats } from '../render/locale.ts';
import { type Facts, readFacts } from './fields.ts';
import { refOf } from './refs.ts';
import { isParty, keyWords } from './words.ts';

/** What a confirmation can say of a record, read from whatever names its fields carry. */

export const ID_FIELD = /(^id$|Id$|ID$|_id$)/;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

const snake = (key: string) => nameWords(key).join('_');

/** "DueDate", "due_date" → "Due date"; an all-capitals name (GSTIN) stays as it is. */
export function fieldWords(key: string): string {
  if (/^[A-Z0-9]+$/.test(key)) return key;
  const text = nameWords(key).join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The noun an id field points at: `InvoiceId` → invoice, `from_account_id` → from_account, `id` → ''. */
export function idNoun(field: string): string {
  const words = nameWords(field);
  return words.slice(0, words.at(-1) === 'id' ? -1 : words.length).join('_');
}

/**
 * The field holding the id (or number) of the record a tool acts on (`InvoiceId` of void_invoice,
 * `invoice_number` of delete_invoice, a bare `id`), if any.
 */
export function ownIdField(tool: string, args: Record<string, unknown>): string | undefined {
  const { verbClass, object } = parseToolName(tool);
  if (verbClass !== 'destructive' && verbClass !== 'edit') return undefined;
  const kind = singular(object.split('_').at(-1) ?? '');
  const refs = Object.entries(args).flatMap(([k, v]) => {
    const ref = isRecord(v) ? undefined : refOf(k, v);
    return ref ? [{ k, noun: ref.noun }] : [];
  });
  // Else the one record it points at beside its party (Tally's `voucher_number` of void_invoice).
  const others = refs.filter((r) => !isParty(keyWords(r.noun)));
  return (
    refs.find((r) => r.noun !== '' && (object === r.noun || r.noun.split('_').at(-1) === kind))?.k ??
    refs.find((r) => r.noun === '')?.k ??
    (others.length === 1 ? others[0]?.k : undefined)
  );
}

/** Whether an id field names the other party of a document: its customer, vendor or contact. */
export function isPartyField(field: string): boolean {
  return isParty(keyWords(idNoun(field)));
}

/** What a card can say of a record: its number, name, party, amount, currency and dates. */
export type RecordFacts = Facts;

/** The facts of one record, whatever the spelling and nesting of its fields (`noun`: its kind, when known). */
export function factsOf(record: Record<string, unknown>, noun?: string): RecordFacts {
  return readFacts(record, noun);
}

function roleWord(word: string): string {
  return /vendor|supplier/i.test(word) ? 'Vendor' : /customer/i.test(word) ? 'Customer' : 'Contact';
}

/** Who the other party of a call is, in a word: from the record, the field, or the kind of document. */
export function partyRole(field: string, tool: string, facts?: RecordFacts): string {
  if (facts?.role) return facts.role;
  const noun = idNoun(field);
  if (/vendor|supplier|customer|client/.test(noun)) return roleWord(noun.replace('client', 'customer'));
  const words = parseToolName(tool).nouns.map(singular).join(' ');
  if (/bill|purchase|expense|vendor|supplier/.test(words)) return 'Vendor';
  if (/invoice|sale|receipt|credit note|customer|estimate|quote/.test(words)) return 'Customer';
  return 'Contact';
}

/** A record's name for people: "INV-0042 of Acme Corp", "Acme Corp", "HDFC Bank". */
export function labelOf(facts: RecordFacts): string | undefined {
  if (facts.number && facts.party && facts.number !== facts.party) return `${facts.number} of ${facts.party}`;
  return facts.number ?? facts.name ?? facts.party;
}

/** A date in the business's format; as the books wrote it when it cannot be read as one. */
export function dateInWords(value: string, fmt: Formats): string {
  return fmt.date(value) ?? value;
}

/** Its amount and date in the business's formats: "₹1,18,000.00, dated 15/01/2026". */
export function amountAndDate(facts: RecordFacts, fmt: Formats): string {
  const parts: string[] = [];
  if (facts.amount !== undefined) parts.push(fmt.money(facts.amount, facts.currency));
  if (facts.date) parts.push(`dated ${dateInWords(facts.date, fmt)}`);
  else if (facts.due) parts.push(`due ${dateInWords(facts.due, fmt)}`);
  return parts.join(', ');
}

/** Counts and ratios beside money words: `days_until_due`, `tax_rate`, `credit_limit_days`. */
const NOT_MONEY = new Set([
  'rate',
  'percent',
  'percentage',
  'day',
  'days',
  'count',
  'number',
  'no',
  'qty',
  'quantity',
  'term',
  'terms',
]);
const MONEY_KEY = /amount|total|price|balance|debit|credit|cost|fee|charge|paid|due$/i;

/** A value as the business writes it: money in its currency, dates in its format, never an id. */
export function show(key: string, value: unknown, fmt: Formats): string {
  if (typeof value === 'number' && MONEY_KEY.test(key) && !keyWords(key).some((w) => NOT_MONEY.has(w)))
    return fmt.money(value);
  if (typeof value === 'string' && /date/i.test(key)) return fmt.date(value) ?? value;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? '' : 's'}`;
  if (isRecord(value)) {
    return Object.entries(value)
      .filter(([k, v]) => !ID_FIELD.test(k) && v !== null && v !== undefined && v !== '')
      .map(([k, v]) => `${fieldWords(k).toLowerCase()} ${show(k, v, fmt)}`)
      .join(', ');
  }
  return String(value).replace(UUID, '(a record)');
}

/** A reason the books gave, fit to show: no transport prefix, no ids. */
export function plainReason(message: string): string {
  return (
    message
      .replace(/^(error:\s*)?(request failed with status code \d+:\s*)?/i, '')
      .replace(UUID, '')
      .replace(/(['"`])\1|\(\s*\)/g, '')
      .replace(/\s{2,}/g, ' ')
      .trim() || 'no reason given'
  );
}

const QUANTITY = /^(quantity|qty|hours|units|count)$/;
const UNIT_PRICE = /^(unit_(price|amount|cost|rate)|price|rate|unit_price_excl_tax)$/;

/** Line items in words: "2 lines, ₹5,000.00 before tax" (the total when quantity and price say it). */
export function linesInWords(items: Record<string, unknown>[], fmt: Formats): string {
  const count = `${items.length} line${items.length === 1 ? '' : 's'}`;
  let total = 0;
  let taxed = false;
  for (const item of items) {
    const byKey = new Map(Object.entries(item).map(([k, v]) => [snake(k), v]));
    const qty = [...byKey].find(([k, v]) => QUANTITY.test(k) && typeof v === 'number')?.[1];
    const price = [...byKey].find(([k, v]) => UNIT_PRICE.test(k) && typeof v === 'number')?.[1];
    if (typeof qty !== 'number' || typeof price !== 'number') return count;
    total += qty * price;
    taxed ||= [...byKey.keys()].some((k) => /tax/.test(k));
  }
  return `${count}, ${fmt.money(total)}${taxed ? ' before tax' : ''}`;
}

/** Whether array items are line items (a quantity and a price each). */
export function areLines(items: Record<string, unknown>[]): boolean {
  return items.some((item) => Object.keys(item).some((k) => QUANTITY.test(snake(k))));
}
