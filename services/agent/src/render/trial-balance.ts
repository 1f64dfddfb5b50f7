import { isRecord } from '@munim/contracts';
import { NUMBER_KEYS } from './document.ts';
import { companyOf, coverage, currencyOf, hint, type RenderInput } from './input.ts';
import { bold, heading, table } from './markdown.ts';
import { keyOf, num, type Rec, records, str } from './shape.ts';
import { sum } from './statement.ts';
import { codeWords } from './words.ts';

const DEBIT = ['Debit', 'DebitBalance', 'DebitAmount', 'Dr', 'DebitTotal'];
const CREDIT = ['Credit', 'CreditBalance', 'CreditAmount', 'Cr', 'CreditTotal'];
const NAME = ['Name', 'AccountName', 'Account', 'Description', 'account_name'];
const CODE = ['Code', 'AccountCode', 'AccountNumber', 'account_code'];
const TYPE = ['Type', 'AccountType', 'Class', 'account_type'];

/** The accounts array: a top-level list whose rows carry a debit and a credit column. */
function accountsOf(result: unknown): { rows: Rec[]; container: Rec } | undefined {
  const container = isRecord(result) ? result : { Accounts: result };
  for (const value of Object.values(container)) {
    const rows = records(value);
    if (rows?.length && rows.every((r) => keyOf(r, DEBIT) !== undefined && keyOf(r, CREDIT) !== undefined))
      return { rows, container };
  }
  return undefined;
}

/** A trial balance: every account's debit or credit balance, the column totals, and whether they agree. */
export function renderTrialBalance(input: RenderInput): string | undefined {
  const { fmt } = input;
  const found = accountsOf(input.result);
  if (!found) return undefined;
  const { rows, container } = found;
  const givenDebit = num(container, ['TotalDebit', 'TotalDebits', 'DebitTotal']);
  const givenCredit = num(container, ['TotalCredit', 'TotalCredits', 'CreditTotal']);
  // A journal entry also has debit and credit lines and totals: it is a document, not a trial balance.
  if (!/trial/.test(hint(input)) && (givenDebit === undefined || keyOf(container, NUMBER_KEYS)))
    return undefined;

  const currency = currencyOf(container, fmt);
  const money = (n: number | undefined) => (n ? fmt.money(n, currency) : '');
  const hasCode = rows.some((r) => str(r, CODE));
  const hasType = rows.some((r) => str(r, TYPE));
  const body = rows.map((r) => {
    const type = str(r, TYPE);
    return [
      ...(hasCode ? [str(r, CODE)] : []),
      str(r, NAME),
      ...(hasType ? [type ? codeWords(type) : ''] : []),
      money(num(r, DEBIT)),
      money(num(r, CREDIT)),
    ];
  });
  // The column sums are sums of like with like; the books' own totals win when given.
  const debit = givenDebit ?? sum(rows.map((r) => num(r, DEBIT) ?? 0));
  const credit = givenCredit ?? sum(rows.map((r) => num(r, CREDIT) ?? 0));
  const pad = [...(hasCode ? [''] : []), ...(hasType ? [''] : [])];
  body.push([
    ...pad.slice(0, hasCode ? 1 : 0),
    bold('Total'),
    ...pad.slice(hasCode ? 1 : 0),
    bold(fmt.money(debit, currency)),
    bold(fmt.money(credit, currency)),
  ]);
  const head = [...(hasCode ? ['Code'] : []), 'Account', ...(hasType ? ['Type'] : []), 'Debit', 'Credit'];
  const right = head.map((h) => h === 'Debit' || h === 'Credit');
  const gap = sum([debit, -credit]);
  const [more, less] = gap > 0 ? ['debits', 'credits'] : ['credits', 'debits'];
  const check =
    Math.abs(gap) < 0.01
      ? `✓ Debits equal credits (${fmt.money(debit, currency)}).`
      : `⚠️ The trial balance does not agree: ${more} exceed ${less} by ${fmt.money(Math.abs(gap), currency)}.`;
  return [
    heading('Trial balance', [
      isRecord(input.result) ? companyOf(container, fmt) : undefined,
      coverage(container, fmt),
      currency,
    ]),
    table(head, body, right),
    check,
  ].join('\n\n');
}
