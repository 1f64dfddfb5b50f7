import { isRecord } from '@munim/contracts';
import { groupsOfToolName } from '@munim/kit';
import { isNumberShaped, isOpaqueId, isParty, keyWords, NOT_ITS_NUMBER, NUMBER_WORD } from './words.ts';

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
    // A field named for a kind of record that holds an opaque id points at one (Stripe's `customer:
    // "cus_…"`); so does one named for a record of the books that holds its number (`invoice: "INV-043"`).
    const kind = words.filter((w) => !REF_TAIL.has(w));
    const named = kind.length > 0 && kind.length <= 2 && !kind.some((w) => NOT_A_KIND.has(w));
    const ofTheBooks = () => isNumberShaped(value) && groupsOfToolName(kind.join('_')).length > 0;
    if (named && (isOpaqueId(value) || ofTheBooks())) return { field: key, noun: kind.join('_'), value };
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

/** The party a record names by id only (`contactId`, Stripe's `customer`, Xero's `Contact: { ContactID }`), if any. */
export function partyRefOf(record: Record<string, unknown>): Ref | undefined {
  for (const [k, v] of Object.entries(record)) {
    const ref = Array.isArray(v) ? undefined : refOf(k, v);
    if (ref && isParty(keyWords(ref.noun))) return ref;
  }
  return undefined;
}
