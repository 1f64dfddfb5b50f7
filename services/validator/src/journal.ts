import { type FieldIssue, isRecord } from '@munim/contracts';
import { fieldKey, POSTING_TYPE_KEYS } from './fields.ts';
import { renderValue } from './schema.ts';

type Line = Record<string, unknown>;

/** Keys of a line's debit and credit amounts when a line has both columns (`DebitAmount`, `dr`, …). */
const DEBIT_KEYS = new Set(['debit', 'debit_amount', 'debit_amt', 'dr', 'dr_amount', 'amount_debit']);
const CREDIT_KEYS = new Set(['credit', 'credit_amount', 'credit_amt', 'cr', 'cr_amount', 'amount_credit']);
/** Keys of a line's single amount, signed or with a posting type. */
const AMOUNT_KEYS = new Set(['amount', 'line_amount', 'amt', 'value', 'net_amount']);
const DEBIT_WORDS = new Set(['debit', 'dr', 'd']);
const CREDIT_WORDS = new Set(['credit', 'cr', 'c']);

const TOLERANCE = 0.01;
const round2 = (n: number) => Math.round(n * 100) / 100;
const amountOf = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** A line's fields by their key in snake words, the line's own first, then one level down (QBO's `…LineDetail`). */
function keysOf(line: Line, path: string): Map<string, { path: string; value: unknown }> {
  const out = new Map<string, { path: string; value: unknown }>();
  const add = (record: Line, at: string) => {
    for (const [key, value] of Object.entries(record)) {
      const k = fieldKey(key);
      if (!out.has(k) && value !== undefined && value !== null) out.set(k, { path: `${at}.${key}`, value });
    }
  };
  add(line, path);
  for (const [key, value] of Object.entries(line)) if (isRecord(value)) add(value, `${path}.${key}`);
  return out;
}

const first = (keys: Map<string, { path: string; value: unknown }>, names: ReadonlySet<string>) => {
  for (const [key, entry] of keys) if (names.has(key)) return entry;
  return undefined;
};

/** What the balance check found: issues, and the signed line amounts that may be negative. */
export interface JournalCheck {
  issues: FieldIssue[];
  /** Paths of signed amounts (credits negative), exempt from the "not negative" amount check. */
  signed: Set<string>;
}

/**
 * A journal has at least two lines and its debits equal its credits (to 0.01). Lines
 * may carry debit and credit columns, an amount with a posting type (Debit/Credit, DR/CR, D/C, or an
 * `isDebit`/`isCredit` flag), or a signed amount (debits positive, credits negative).
 */
export function checkJournal(lines: readonly unknown[], field: string): JournalCheck {
  const signed = new Set<string>();
  if (lines.length < 2) {
    return {
      signed,
      issues: [
        {
          field,
          expected: 'at least 2 lines',
          received: `${lines.length} line${lines.length === 1 ? '' : 's'}`,
          code: 'too_small',
          message: 'Journal entry requires at least 2 lines.',
        },
      ],
    };
  }
  const issues: FieldIssue[] = [];
  let debits = 0;
  let credits = 0;
  lines.forEach((raw, i) => {
    if (!isRecord(raw)) return;
    const keys = keysOf(raw, `${field}[${i}]`);
    const debit = first(keys, DEBIT_KEYS);
    const credit = first(keys, CREDIT_KEYS);
    if (debit || credit) {
      debits += amountOf(debit?.value);
      credits += amountOf(credit?.value);
      return;
    }
    const amount = first(keys, AMOUNT_KEYS);
    const side = postingSide(keys);
    if (side === 'unknown') {
      const type = first(keys, POSTING_TYPE_KEYS);
      issues.push({
        field: type?.path ?? `${field}[${i}]`,
        expected: 'Debit or Credit (DR/CR, D/C)',
        received: renderValue(type?.value),
        code: 'invalid_posting_type',
        message: `Line ${i + 1} of ${field} has the posting type ${renderValue(type?.value)}; it must say Debit or Credit (DR/CR, D/C).`,
      });
      return;
    }
    const value = amountOf(amount?.value);
    if (side === 'debit') debits += value;
    else if (side === 'credit') credits += value;
    else if (amount) {
      signed.add(amount.path);
      if (value >= 0) debits += value;
      else credits -= value;
    }
  });
  if (issues.length > 0) return { issues, signed };
  const [d, c] = [round2(debits), round2(credits)];
  if (Math.abs(d - c) > TOLERANCE) {
    issues.push({
      field,
      expected: 'total debits equal to total credits',
      received: `debits ${d}, credits ${c}`,
      code: 'unbalanced',
      message: `Debits (${d}) must equal Credits (${c}).`,
    });
  }
  return { issues, signed };
}

/** The side a line posts to by its posting type or flag; `none` when it has neither (a signed amount). */
function postingSide(
  keys: Map<string, { path: string; value: unknown }>,
): 'debit' | 'credit' | 'none' | 'unknown' {
  const isDebit = keys.get('is_debit')?.value;
  if (typeof isDebit === 'boolean') return isDebit ? 'debit' : 'credit';
  const isCredit = keys.get('is_credit')?.value;
  if (typeof isCredit === 'boolean') return isCredit ? 'credit' : 'debit';
  const type = first(keys, POSTING_TYPE_KEYS);
  if (!type) return 'none';
  const word = typeof type.value === 'string' ? type.value.trim().toLowerCase() : '';
  if (DEBIT_WORDS.has(word)) return 'debit';
  if (CREDIT_WORDS.has(word)) return 'credit';
  return 'unknown';
}
