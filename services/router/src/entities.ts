import { canonicalWords, DOC_NUMBER } from './canonical.ts';
import { parseHindiNumbers } from './hindi-numbers.ts';
import { normalize } from './text.ts';

const MONEY_MARK = /(^| )(₹|rs|inr|rupees?|rupaye|rupaiye)( |$)|lakh|lac|crore|cr\b|hazaar|hazar|sau\b|\bk\b/;

/** Entity kinds a list query can name, in the order they are answered (bulk multi-entity lists). */
const ENTITY_KINDS: readonly [string, string][] = [
  ['invoice', 'invoices'],
  ['bill', 'bills'],
  ['payment', 'payments'],
  ['customer', 'customers'],
  ['vendor', 'vendors'],
  ['creditnote', 'credit_notes'],
  ['journal', 'journal'],
  ['account', 'accounts'],
  ['expense', 'expenses'],
];

/**
 * Structured entities a router can read off a query without an LLM: document numbers (the
 * number, never an internal id), amounts (digits, ₹, Hindi number words), the entity kinds it
 * names, and the overdue flag.
 */
export function extractEntities(query: string): Record<string, unknown> {
  const entities: Record<string, unknown> = {};
  const docs = [...query.matchAll(DOC_NUMBER)].map((m) => `${(m[1] as string).toUpperCase()}-${m[2]}`);
  if (docs.length) {
    entities.documentNumbers = [...new Set(docs)];
    entities.documentNumber = docs[0];
  }
  const withoutDocs = query.replace(DOC_NUMBER, ' ');
  // Whether the query speaks of money is one fact about it, read once, not once per number in it.
  const moneyMarked = MONEY_MARK.test(normalize(withoutDocs));
  const amounts = parseHindiNumbers(withoutDocs)
    .filter((n) => moneyMarked || /[a-z\u0900-\u097f]/i.test(n.text))
    .map((n) => n.value);
  if (amounts.length) entities.amounts = amounts;
  const words = new Set(canonicalWords(query));
  const kinds = ENTITY_KINDS.filter(([w]) => words.has(w)).map(([, kind]) => kind);
  if (kinds.length) entities.entityTypes = kinds;
  if (words.has('overdue') || (words.has('due') && (words.has('receivable') || words.has('payable'))))
    entities.overdue = true;
  return entities;
}

/** Fills `{{name}}` arguments of a pipeline from the entities; undefined when one is missing. */
export function fillArgs(
  args: Record<string, unknown>,
  entities: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    const slot = typeof value === 'string' ? /^\{\{(\w+)\}\}$/.exec(value)?.[1] : undefined;
    if (slot === undefined) {
      out[key] = value;
      continue;
    }
    const filled = entities[slot];
    if (filled === undefined) return undefined;
    // One slot and several values ("INV-0042 and INV-0043"): the pipeline would answer for one.
    const all = entities[`${slot}s`];
    if (Array.isArray(all) && all.length > 1) return undefined;
    out[key] = filled;
  }
  return out;
}
