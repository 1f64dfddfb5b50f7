import { nameWords, singular } from './tool-names.ts';
import { isRecord } from './values.ts';

/**
 * What a field of a tool call means, from the words of its name in any style, and the money it
 * holds: the validator checks amounts with these, and the approval policy reads a write's amount
 * with them, so both take the same fields for money.
 */

/** Per-name answers, bounded: argument names come from outside and are not to grow memory without end. */
const MEMO_LIMIT = 10_000;
function memo<T>(cache: Map<string, T>, name: string, compute: () => T): T {
  const hit = cache.get(name);
  if (hit !== undefined) return hit;
  const value = compute();
  if (cache.size >= MEMO_LIMIT) cache.clear();
  cache.set(name, value);
  return value;
}
const keys = new Map<string, string>();
const amounts = new Map<string, boolean>();
const dates = new Map<string, boolean>();
const currencies = new Map<string, boolean>();

/** A field name as lower-case snake words, whatever its style: `DebitAmount`, `debit-amount` → `debit_amount`. */
export function fieldKey(name: string): string {
  return memo(keys, name, () => nameWords(name).join('_'));
}

const NOT_MONEY = new Set([
  'id',
  'ids',
  'qty',
  'quantity',
  'count',
  'number',
  'num',
  'no',
  'code',
  'ref',
  'type',
  'currency',
  'percent',
  'percentage',
  'rate',
  'account',
  'date',
  'mode',
  'method',
  'status',
  'or',
  'is',
  'has',
]);
const MONEY_LAST = new Set(['price', 'total', 'subtotal', 'cost', 'debit', 'credit', 'amt']);

/** Keys that say whether a journal line is a debit or a credit (`PostingType`, `drCr`, `side`, …). */
export const POSTING_TYPE_KEYS: ReadonlySet<string> = new Set([
  'posting_type',
  'type',
  'side',
  'dr_cr',
  'entry_type',
  'debit_or_credit',
  'debit_credit',
  'dc',
]);

/**
 * Whether a field holds money, by its words in any style (`Amount`, `unit_price`, `lineAmount`,
 * `tax_amount`, `total`, `SubTotal`, `dr`): not quantities, ids, rates, types or codes.
 */
export function isAmountKey(name: string): boolean {
  return memo(amounts, name, () => amountKey(fieldKey(name)));
}

function amountKey(key: string): boolean {
  if (key === 'dr' || key === 'cr') return true;
  if (POSTING_TYPE_KEYS.has(key)) return false;
  const words = key.split('_').map(singular);
  if (words.some((w) => NOT_MONEY.has(w))) return false;
  const last = words.at(-1) ?? '';
  return words.includes('amount') || MONEY_LAST.has(last) || key.endsWith('sub_total');
}

/** Whether a field holds a date (`Date`, `dueDate`, `due_date`, `TXN_DATE`). */
export function isDateKey(name: string): boolean {
  return memo(dates, name, () => fieldKey(name).split('_').at(-1) === 'date');
}

/** Whether a field holds an ISO 4217 code (`Currency`, `currency_code`, `baseCurrency`). */
export function isCurrencyKey(name: string): boolean {
  return memo(currencies, name, () => {
    const key = fieldKey(name);
    return key.endsWith('currency') || key.endsWith('currency_code');
  });
}

/** A field of a journal line: where it is, and its value. */
export interface LineField {
  path: string;
  value: unknown;
}

/** Keys of a line's debit and credit amounts when a line has both columns (`DebitAmount`, `dr`, …). */
const DEBIT_KEYS = new Set(['debit', 'debit_amount', 'debit_amt', 'dr', 'dr_amount', 'amount_debit']);
const CREDIT_KEYS = new Set(['credit', 'credit_amount', 'credit_amt', 'cr', 'cr_amount', 'amount_credit']);
/** Keys of a line's single amount, signed or with a posting type. */
const AMOUNT_KEYS = new Set(['amount', 'line_amount', 'amt', 'value', 'net_amount']);
const DEBIT_WORDS = new Set(['debit', 'dr', 'd']);
const CREDIT_WORDS = new Set(['credit', 'cr', 'c']);

/** A line's fields by their key in snake words, the line's own first, then one level down (QBO's `…LineDetail`). */
function keysOf(line: Record<string, unknown>, path: string): Map<string, LineField> {
  const out = new Map<string, LineField>();
  const add = (record: Record<string, unknown>, at: string) => {
    for (const [key, value] of Object.entries(record)) {
      const k = fieldKey(key);
      if (!out.has(k) && value !== undefined && value !== null) out.set(k, { path: `${at}.${key}`, value });
    }
  };
  add(line, path);
  for (const [key, value] of Object.entries(line)) if (isRecord(value)) add(value, `${path}.${key}`);
  return out;
}

const first = (keys: Map<string, LineField>, names: ReadonlySet<string>) => {
  for (const [key, entry] of keys) if (names.has(key)) return entry;
  return undefined;
};

/**
 * How a journal line posts, whatever its spelling: debit and credit columns (`DebitAmount`,
 * `dr`), or one amount with its side — from a posting type (Debit/Credit, DR/CR, D/C), an
 * `isDebit`/`isCredit` flag, `none` for a signed amount (debits positive), `unknown` for a posting
 * type that says neither (`type` then names it).
 */
export type JournalLine =
  | { columns: true; debit?: LineField | undefined; credit?: LineField | undefined }
  | {
      columns: false;
      amount?: LineField | undefined;
      side: 'debit' | 'credit' | 'none' | 'unknown';
      type?: LineField | undefined;
    };

/** Reads one journal line at `path` (for the paths of its fields). */
export function readJournalLine(line: Record<string, unknown>, path: string): JournalLine {
  const keys = keysOf(line, path);
  const debit = first(keys, DEBIT_KEYS);
  const credit = first(keys, CREDIT_KEYS);
  if (debit || credit) return { columns: true, debit, credit };
  const type = first(keys, POSTING_TYPE_KEYS);
  return { columns: false, amount: first(keys, AMOUNT_KEYS), side: postingSide(keys, type), type };
}

function postingSide(
  keys: Map<string, LineField>,
  type: LineField | undefined,
): 'debit' | 'credit' | 'none' | 'unknown' {
  const isDebit = keys.get('is_debit')?.value;
  if (typeof isDebit === 'boolean') return isDebit ? 'debit' : 'credit';
  const isCredit = keys.get('is_credit')?.value;
  if (typeof isCredit === 'boolean') return isCredit ? 'credit' : 'debit';
  if (!type) return 'none';
  const word = typeof type.value === 'string' ? type.value.trim().toLowerCase() : '';
  if (DEBIT_WORDS.has(word)) return 'debit';
  if (CREDIT_WORDS.has(word)) return 'credit';
  return 'unknown';
}
