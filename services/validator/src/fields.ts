import { nameWords, singular } from '@munim/contracts';

/** A field name as lower-case snake words, whatever its style: `DebitAmount`, `debit-amount` → `debit_amount`. */
export function fieldKey(name: string): string {
  return memo(keys, name, () => nameWords(name).join('_'));
}

/** Per-name answers, bounded: argument names come from outside and are not to grow memory without end. */
const MEMO_LIMIT = 10_000;
const keys = new Map<string, string>();
const amounts = new Map<string, boolean>();
const dates = new Map<string, boolean>();
const currencies = new Map<string, boolean>();
function memo<T>(cache: Map<string, T>, name: string, compute: () => T): T {
  const hit = cache.get(name);
  if (hit !== undefined) return hit;
  const value = compute();
  if (cache.size >= MEMO_LIMIT) cache.clear();
  cache.set(name, value);
  return value;
}

/** Field concepts a write rule can ask for; each is found in a tool's schema by meaning, not by spelling. */
export type Concept =
  | 'account'
  | 'amount'
  | 'contact'
  | 'lines'
  | 'applications'
  | 'email'
  | 'fromAccount'
  | 'toAccount'
  | 'recordId';

/** How a concept is spelt in real APIs. */
export interface ConceptSpec {
  /** Patterns over {@link fieldKey}, best first: the first that a schema property matches wins. */
  patterns: readonly RegExp[];
  /** The field holds a list: only array-typed properties match (when the schema gives a type). */
  list?: boolean;
}

const PARTY = 'contact|customer|vendor|supplier|client|party|payee|payer';
const ACCOUNT_OWNER = 'bank|deposit|deposit_to|payment|paid_from|paid_through|cash';

/** The concepts of {@link Concept} except `recordId`, which depends on the tool's noun ({@link recordIdSpec}). */
export const CONCEPTS: Readonly<Record<Exclude<Concept, 'recordId'>, ConceptSpec>> = {
  account: {
    patterns: [
      /^account_id$/,
      new RegExp(`^(?:${ACCOUNT_OWNER})_account_id$`),
      /^account(?:_(?:ref|code|number))?$/,
      new RegExp(`^(?:${ACCOUNT_OWNER})_account(?:_(?:ref|code))?$`),
    ],
  },
  amount: {
    patterns: [
      /^amount$/,
      /^(?:payment|total|paid|received|transfer)_amount$/,
      /^amount_(?:paid|received)$/,
      /^(?:total_)?amt$/,
      /^total$/,
    ],
  },
  contact: {
    patterns: [new RegExp(`^(?:${PARTY})_id$`), new RegExp(`^(?:${PARTY})(?:_(?:ref|code))?$`)],
  },
  lines: {
    patterns: [
      /^lines?$/,
      /^line_items?$/,
      /^(?:manual_)?journal_lines$/,
      /^(?:items|entries|postings|journal_entries)$/,
    ],
    list: true,
  },
  applications: {
    patterns: [/^(?:payment_)?(?:applications|allocations)$/, /^appl(?:ied|y)_to$/, /^(?:invoices|bills)$/],
    list: true,
  },
  email: {
    patterns: [
      /^email$/,
      /^email_(?:address|addresses|to)$/,
      /^(?:to|recipient|send_to)_(?:email|emails|email_address)$/,
      /^(?:to_mail_ids|send_to|recipients?|to)$/,
    ],
  },
  fromAccount: {
    patterns: [/^(?:from|source|transfer_from)_(?:bank_)?account(?:_(?:id|ref|code))?$/],
  },
  toAccount: {
    patterns: [/^(?:to|destination|target|transfer_to)_(?:bank_)?account(?:_(?:id|ref|code))?$/],
  },
};

/**
 * The id of the record a tool acts on, from its nouns (`credit`, `note`): `credit_note_id`, then the
 * head noun's (`note_id`), then a leading noun's (`invoice_id` of `invoice_status`), then a bare `id`.
 */
export function recordIdSpec(nouns: readonly string[]): ConceptSpec {
  const words = nouns.map(singular);
  const object = words.join('_');
  const names = [object];
  for (let i = 1; i < words.length; i++) names.push(words.slice(i).join('_'));
  for (let i = words.length - 1; i >= 1; i--) names.push(words.slice(0, i).join('_'));
  // Name words are letters and digits only: nothing to escape.
  const patterns = [...new Set(names)].filter((n) => n !== '').map((n) => new RegExp(`^${n}_id$`));
  return { patterns: [...patterns, /^id$/] };
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
