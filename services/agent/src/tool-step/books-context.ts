import { type BooksContext, BooksContextSchema, type TaxRule, TaxRuleSchema } from '@munim/contracts';
import { loadTaxBooks, todayIn } from '@munim/db';
import type { Run } from '../run/run.ts';

/**
 * The books a call writes to, as the validator checks a write against its country's law: the
 * business's country, state and GSTIN (its business context), today where it is, and its country's
 * tax rules with their dates (`tax_rules`). Read once per request; unreadable, the validator gets
 * none and checks only the arithmetic.
 */
const read = new WeakMap<Run, Promise<BooksContext | undefined>>();

async function load(run: Run): Promise<BooksContext | undefined> {
  const business = await run.business();
  const { rules: rows, registration } = await loadTaxBooks(run.ctx.store.db, business.countryCode, run.scope);
  const rules: TaxRule[] = [];
  for (const row of rows) {
    const parsed = TaxRuleSchema.safeParse(row);
    if (parsed.success) rules.push(parsed.data);
    else
      run.ctx.log.warn(
        { requestId: run.scope.requestId, rule: row, issues: parsed.error.issues.slice(0, 3) },
        'a tax rule in the database is not in the shape the validator takes; left out',
      );
  }
  const books = {
    country: business.countryCode,
    countryName: business.countryName,
    today: todayIn(business.timezone),
    taxName: business.taxName,
    currency: business.currency,
    locale: business.locale,
    rules,
  };
  const registered = {
    ...books,
    ...(registration.state ? { region: registration.state } : {}),
    ...(registration.taxId ? { taxId: registration.taxId } : {}),
  };
  // A state or GSTIN stored in a shape the validator does not take is left out, not the whole check.
  const checked = BooksContextSchema.safeParse(registered);
  if (checked.success) return checked.data;
  run.ctx.log.warn(
    { requestId: run.scope.requestId, issues: checked.error.issues.slice(0, 3) },
    "the business's state or GSTIN is not in a shape the validator takes; left out",
  );
  const plain = BooksContextSchema.safeParse(books);
  return plain.success ? plain.data : undefined;
}

/** The books context of the run's tenant, read once per request; undefined when it cannot be read. */
export function booksContext(run: Run): Promise<BooksContext | undefined> {
  let found = read.get(run);
  if (!found) {
    found = load(run).catch((error: unknown) => {
      run.ctx.log.warn(
        { err: error, requestId: run.scope.requestId },
        'tax rules not read; the validator checks only the arithmetic',
      );
      return undefined;
    });
    read.set(run, found);
  }
  return found;
}
