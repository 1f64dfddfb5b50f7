import { isRecord, parseToolName, writeClass } from '@munim/contracts';
import { type Facts, readFacts } from './fields.ts';
import { amountOf, keyWords } from './words.ts';

/**
 * What a record says of the other records and money an irreversible action on it touches, read
 * from the words of its fields in any naming style: what was paid and credited against it, what is
 * still due, the tax it carries (and its parts), and the payments and credit notes it lists as
 * applied. Principles, not one server's spellings: `AmountPaid`, `amount_paid`, `total_paid`;
 * `AmountDue`, `balance`, `amount_residual`; `TotalTax`, `amount_tax`, `tax_total`.
 */

/** Verbs beside the destructive ones whose action cannot be taken back: a bill approved, a return filed. */
const POSTING_VERBS = new Set([
  'approve',
  'file',
  'post',
  'submit',
  'finalize',
  'finalise',
  'authorise',
  'authorize',
  'lock',
]);

/** What an irreversible action does to the books: takes a record out (`reverse`) or puts it in for good (`post`). */
export type Irreversible = 'reverse' | 'post';

/** Whether a write cannot be taken back, and how: a void, delete or write-off; an approve or a file. */
export function irreversible(tool: string, description?: string): Irreversible | undefined {
  const parts = parseToolName(tool);
  const verbs = [parts.mainVerb, parts.verb, ...parts.changes.map((c) => c.word)];
  if (verbs.some((v) => v !== undefined && POSTING_VERBS.has(v))) return 'post';
  return writeClass(tool, description) === 'destructive' ? 'reverse' : undefined;
}

const PAID = new Set(['paid', 'received', 'settled', 'payment', 'payments']);
const CREDITED = new Set(['credited', 'credit', 'credits']);
const OPEN = new Set(['due', 'outstanding', 'balance', 'residual', 'remaining', 'unpaid', 'open']);
const TAX = new Set(['tax', 'taxes', 'gst', 'vat']);
const TAX_PART = new Set(['cgst', 'sgst', 'igst', 'utgst', 'cess']);
/** Words that make a field no money: a date, a count, a rate, a code. */
const NOT_MONEY = new Set(
  'date day days rate percent percentage code type id number no status name treatment inclusive exclusive included registration count'.split(
    ' ',
  ),
);

/** The money figures of a record that an irreversible action touches. */
export interface Figures {
  paid?: number;
  credited?: number;
  due?: number;
  tax?: number;
  /** The tax's parts by name (CGST, SGST, IGST, cess), when the record gives them. */
  taxParts: { name: string; amount: number }[];
}

/** The figures of `record` (its top level and one level down), in major units. */
export function figuresOf(record: Record<string, unknown>, minor = false): Figures {
  const figures: Figures = { taxParts: [] };
  const scale = (n: number) => (minor ? n / 100 : n);
  const visit = (o: Record<string, unknown>, prefix: string[], depth: number) => {
    for (const [key, value] of Object.entries(o)) {
      const words = [...prefix, ...keyWords(key)];
      if (isRecord(value) && depth < 2) {
        visit(value, words, depth + 1);
        continue;
      }
      if (Array.isArray(value) || words.some((w) => NOT_MONEY.has(w))) continue;
      const amount = amountOf(value);
      if (amount === undefined) continue;
      const part = words.find((w) => TAX_PART.has(w));
      const set = (field: 'paid' | 'credited' | 'due' | 'tax') => {
        // The shallowest, first-named field wins: `AmountDue` before a nested `due`.
        if (figures[field] === undefined) figures[field] = scale(amount);
      };
      if (part && !words.some((w) => OPEN.has(w))) {
        if (!figures.taxParts.some((p) => p.name === part.toUpperCase()))
          figures.taxParts.push({ name: part.toUpperCase(), amount: scale(amount) });
      } else if (words.some((w) => TAX.has(w))) {
        if (!words.some((w) => OPEN.has(w) || PAID.has(w))) set('tax');
      } else if (words.some((w) => CREDITED.has(w)) && !words.includes('limit')) set('credited');
      else if (words.some((w) => PAID.has(w)) || (words.includes('applied') && !words.includes('un')))
        set('paid');
      else if (words.some((w) => OPEN.has(w))) set('due');
    }
  };
  visit(record, [], 0);
  figures.taxParts = figures.taxParts.filter((p) => p.amount !== 0);
  return figures;
}

/** A payment or credit note a record lists as applied to it. */
export interface Applied {
  kind: 'payment' | 'credit note';
  facts: Facts;
}

/** What a list's name says it holds: payments (`Payments`, `LinkedTxn` of payments), credit notes, or neither. */
function kindOfList(words: string[], item: Record<string, unknown>): Applied['kind'] | undefined {
  const said = [...words, ...Object.values(item).flatMap((v) => (typeof v === 'string' ? keyWords(v) : []))];
  if (said.includes('credit') && (said.includes('note') || said.includes('memo'))) return 'credit note';
  if (words.includes('credit') || words.includes('creditnote')) return 'credit note';
  if (said.some((w) => w === 'payment' || w === 'receipt' || w === 'allocation')) return 'payment';
  return undefined;
}

/** The payments and credit notes `record` lists as applied to it (Xero's `Payments`, QuickBooks' `LinkedTxn`). */
export function appliedIn(record: Record<string, unknown>): Applied[] | undefined {
  let found: Applied[] | undefined;
  for (const [key, value] of Object.entries(record)) {
    if (!Array.isArray(value) || !value.every(isRecord)) continue;
    const words = keyWords(key);
    if (
      !words.some((w) =>
        ['payment', 'credit', 'creditnote', 'allocation', 'linked', 'applied', 'txn'].includes(w),
      )
    )
      continue;
    if (words.includes('line') || words.includes('item')) continue;
    found ??= [];
    for (const item of value) {
      const kind = kindOfList(words, item);
      if (kind) found.push({ kind, facts: readFacts(item, kind === 'payment' ? 'payment' : 'credit_note') });
    }
  }
  return found;
}

/** Whether a tool acts on money paid or received (a payment, a receipt), not on a document. */
export function isPaymentTool(tool: string): boolean {
  return parseToolName(tool).nouns.some((w) => /^(payment|receipt|remittance)s?$/.test(w));
}

/** Names of a payment's list of what it is applied to. */
const APPLICATION_WORDS = new Set([
  'application',
  'allocation',
  'applied',
  'linked',
  'invoice',
  'bill',
  'document',
]);

/** The documents a payment says it is applied to, with the amount applied to each: undefined when it lists none. */
export function applicationsOf(record: Record<string, unknown>, minor = false): Facts[] | undefined {
  let found: Facts[] | undefined;
  for (const [key, value] of Object.entries(record)) {
    if (!Array.isArray(value) || !value.every(isRecord)) continue;
    // An empty list of applications: applied to nothing.
    if (value.length === 0) {
      if (keyWords(key).some((w) => APPLICATION_WORDS.has(w))) found ??= [];
      continue;
    }
    // An application points at a document: an id or number of an invoice or bill, or a linked transaction.
    const points = value.every((item) =>
      Object.keys(item).some((k) => {
        const words = keyWords(k);
        return words.some((w) => ['invoice', 'bill', 'document', 'linked', 'txn'].includes(w));
      }),
    );
    if (!points) continue;
    found ??= [];
    for (const item of value) {
      const facts = readFacts(item, 'invoice');
      const amount = amountOfItem(item);
      found.push({ ...facts, ...(amount !== undefined ? { amount: minor ? amount / 100 : amount } : {}) });
    }
  }
  return found;
}

/** The amount an application takes, by its words (`Amount`, `amount_applied`). */
function amountOfItem(item: Record<string, unknown>): number | undefined {
  for (const [k, v] of Object.entries(item)) {
    const words = keyWords(k);
    if (
      words.some((w) => w === 'amount' || w === 'amt' || w === 'total') &&
      !words.some((w) => NOT_MONEY.has(w))
    ) {
      const n = amountOf(v);
      if (n !== undefined) return n;
    }
  }
  return undefined;
}
