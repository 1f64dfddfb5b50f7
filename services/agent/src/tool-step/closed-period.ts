import type { ClosedPeriod } from '@munim/contracts';
import { todayIn } from '@munim/db';
import type { Run } from '../run/run.ts';

/**
 * The tenant's closed period, as the validator checks a write against it (`closedUpTo`): its lock
 * date, today where the business is, and how the business writes dates. Read for every validation,
 * so a lock set a moment ago holds; a lock that cannot be read fails the call (closed), never skips
 * the check. Undefined when the books have no lock date.
 */
export async function closedUpTo(run: Run): Promise<ClosedPeriod | undefined> {
  return closedPeriodOf(run, await run.ctx.store.lockDate(run.scope));
}

/** The closed period of a lock date just read (with the books, say); undefined when none. */
export async function closedPeriodOf(run: Run, lockDate: string | null): Promise<ClosedPeriod | undefined> {
  if (!lockDate) return undefined;
  const business = await run.business();
  return {
    date: lockDate,
    today: todayIn(business.timezone),
    dateFormat: business.dateFormat,
    locale: business.locale,
  };
}
