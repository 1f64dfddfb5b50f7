import { type Kysely, sql, type Transaction } from 'kysely';
import { type AuditEntry, appendAudit } from './audit.ts';

import type { Database } from './schema.ts';

/** A tenant: an entity of an org. */
export interface Tenant {
  entityId: string;
  orgId: string;
}

/** A tenant's lock date as stored: the last day of its closed books, who set it and when. */
export interface StoredLockDate {
  /** `YYYY-MM-DD`; null: nothing is closed. */
  lockDate: string | null;
  updatedBy: string | null;
  updatedAt: string | null;
}

/** One formatter per time zone: making an `Intl.DateTimeFormat` costs far more than using one. */
const dayFormats = new Map<string, Intl.DateTimeFormat>();
const MAX_ZONES = 1_000;

/** Today's date (`YYYY-MM-DD`) where the business is; UTC's when the time zone is unknown. */
export function todayIn(timeZone: string, now = new Date()): string {
  let format = dayFormats.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-CA', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
      });
    } catch {
      return now.toISOString().slice(0, 10);
    }
    if (dayFormats.size >= MAX_ZONES) dayFormats.clear();
    dayFormats.set(timeZone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(now)) parts[part.type] = part.value;
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** The tenant's lock date: the last day of its closed books (null lockDate when none is closed). */
export async function readLockDate(db: Kysely<Database>, tenant: Tenant): Promise<StoredLockDate> {
  const row = await db
    .selectFrom('lock_dates')
    .select([sql<string | null>`lock_date::text`.as('lock_date'), 'updated_by', 'updated_at'])
    .where('entity_id', '=', tenant.entityId)
    .where('org_id', '=', tenant.orgId)
    .executeTakeFirst();
  if (!row) return { lockDate: null, updatedBy: null, updatedAt: null };
  return {
    lockDate: row.lock_date,
    updatedBy: row.updated_by,
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** SQLSTATEs after which the whole change is tried again: the audit chain moved on meanwhile. */
const RETRY_STATES = new Set(['23505', '23514', '25P02', '40001']);

/**
 * Makes a change and its audit row in one transaction: both or neither. Another writer taking the
 * chain's next place first aborts it, and it is tried again on the new end.
 */
export async function withAudit<T>(
  db: Kysely<Database>,
  change: (trx: Transaction<Database>) => Promise<{ result: T; audit: AuditEntry | null }>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(async (trx) => {
        const { result, audit } = await change(trx);
        if (audit) await appendAudit(trx, audit);
        return result;
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= 10 || !code || !RETRY_STATES.has(code)) throw error;
    }
  }
}

/**
 * Sets (or, with null, lifts) the tenant's lock date, with a `locked` row on the audit trail
 * saying what changed in words (`describe` writes a date as the business does). Setting the date
 * it already has changes nothing and records nothing.
 */
export async function setLockDate(
  db: Kysely<Database>,
  tenant: Tenant,
  lockDate: string | null,
  by: { actor: string; describe: (isoDate: string) => string },
): Promise<StoredLockDate & { changed: boolean }> {
  return withAudit<StoredLockDate & { changed: boolean }>(db, async (trx) => {
    const before = await readLockDate(trx, tenant);
    if (before.updatedAt !== null && before.lockDate === lockDate)
      return { result: { ...before, changed: false }, audit: null };
    await trx
      .insertInto('lock_dates')
      .values({ entity_id: tenant.entityId, org_id: tenant.orgId, lock_date: lockDate, updated_by: by.actor })
      .onConflict((c) =>
        c
          .columns(['entity_id', 'org_id'])
          .doUpdateSet({ lock_date: lockDate, updated_by: by.actor, updated_at: new Date() }),
      )
      .execute();
    const after = await readLockDate(trx, tenant);
    const was = before.lockDate ? `closed up to ${by.describe(before.lockDate)}` : 'no period closed';
    const summary = lockDate
      ? `Closed the books up to ${by.describe(lockDate)} (before: ${was}).`
      : `Reopened the books: no period is closed now (before: ${was}).`;
    return {
      result: { ...after, changed: true },
      audit: { ...tenant, actor: by.actor, action: 'locked', summary },
    };
  });
}
