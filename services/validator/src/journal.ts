import { type FieldIssue, isRecord, readJournalLine } from '@munim/contracts';
import { renderValue } from './schema.ts';

const TOLERANCE = 0.01;
const round2 = (n: number) => Math.round(n * 100) / 100;
const amountOf = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

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
    const line = readJournalLine(raw, `${field}[${i}]`);
    if (line.columns) {
      debits += amountOf(line.debit?.value);
      credits += amountOf(line.credit?.value);
      return;
    }
    const { amount, side, type } = line;
    if (side === 'unknown') {
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
