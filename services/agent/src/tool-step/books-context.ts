import {
  type BooksContext,
  BooksContextSchema,
  type ClosedPeriod,
  type TaxRule,
  TaxRuleSchema,
} from '@munim/contracts';
import { todayIn } from '@munim/db';
import type { Run } from '../run/run.ts';
import type { BusinessBooks } from '../run/store.ts';
import { closedPeriodOf, closedUpTo } from './closed-period.ts';

/**
 * The books a call writes to, as the validator checks a write against its country's law: the
 * business's country, state and GSTIN (its business context), today where it is, and its country's
 * tax rules with their dates (`tax_rules`). Read once per request; unreadable, the validator gets
 * none and checks only the arithmetic.
 */
const read = new WeakMap<Run, Promise<BooksContext | undefined>>();

/**
 * The books, and the lock date read in the same statement when this validation is what read them
 * (undefined when the request read them earlier: its lock date may be stale by now).
 */
async function load(run: Run): Promise<{ books: BooksContext | undefined; lockDate?: string | null }> {
  const fresh = !run.businessBooksAsked;
  const { business, rules, registration, lockDate } = await run.businessBooks();
  return { books: booksOf(run, business, rules, registration), ...(fresh ? { lockDate } : {}) };
}

function booksOf(
  run: Run,
  business: BusinessBooks['business'],
  rows: BusinessBooks['rules'],
  registration: BusinessBooks['registration'],
): BooksContext | undefined {
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
  return read.get(run) ?? start(run).then((loaded) => loaded?.books);
}

/** Reads the books for the run, once; undefined (said in a warning) when they cannot be read. */
function start(run: Run): Promise<{ books: BooksContext | undefined; lockDate?: string | null } | undefined> {
  const loading = load(run).catch((error: unknown) => {
    run.ctx.log.warn(
      { err: error, requestId: run.scope.requestId },
      'tax rules not read; the validator checks only the arithmetic',
    );
    return undefined;
  });
  read.set(
    run,
    loading.then((loaded) => loaded?.books),
  );
  return loading;
}

/**
 * What a validation carries of the books: the books context, and the closed period read now (for
 * every validation, so a lock set a moment ago holds). The request's first validation reads both
 * in one statement; a later one reads the lock alone. A lock that cannot be read fails the call.
 */
export async function validationBooks(
  run: Run,
): Promise<{ books: BooksContext | undefined; closed: ClosedPeriod | undefined }> {
  const known = read.get(run);
  if (known) return { books: await known, closed: await closedUpTo(run) };
  const loaded = await start(run);
  // Not read with the books (or read before this validation): read on its own, and a failure
  // fails the call (closed).
  if (loaded?.lockDate === undefined) return { books: loaded?.books, closed: await closedUpTo(run) };
  return { books: loaded.books, closed: await closedPeriodOf(run, loaded.lockDate) };
}
