import { sql } from 'kysely';
import { AUDIT_ACTIONS } from './0025_people.ts';
import { applyGrants, type Grants, type RoleService } from './grants.ts';
import type { MigrationDb } from './types.ts';

/**
 * Closed periods and the business context through the admin API. `lock_dates` holds, per tenant
 * (entity + org), the last day of its closed books: a write dated on or before it is refused.
 * `business_contexts` gains the business's state and GSTIN, and the gateway may now set a
 * tenant's context (until now only the migrations wrote it). Changing either is an admin action on
 * the audit trail: `locked` (the lock date) and `configured` (the business context).
 */

/** The actions the audit trail records from here on: a write's, and an admin's changes to the books' settings. */
export const AUDIT_ACTIONS_WITH_SETTINGS = [...AUDIT_ACTIONS, 'locked', 'configured'] as const;

/** The columns of a business context the admin API sets. */
const CONTEXT_COLUMNS = [
  'company_name',
  'country_code',
  'currency_code',
  'locale',
  'fy_start_month',
  'timezone',
  'state',
  'gstin',
  'updated_at',
] as const;

/** What each service's role may do with these tables. */
export const LOCK_DATE_GRANTS: Partial<Record<RoleService, Grants>> = {
  gateway: {
    lock_dates: { select: true, insert: true, update: ['lock_date', 'updated_by', 'updated_at'] },
    business_contexts: { select: true, insert: true, update: CONTEXT_COLUMNS },
    country_configs: { select: true },
  },
  agent: { lock_dates: { select: true } },
};

const list = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

/** Sets which actions the audit trail accepts (its check constraint). */
export async function allowActions(db: MigrationDb, actions: readonly string[]): Promise<void> {
  await sql`alter table audit_log drop constraint if exists audit_log_action_check`.execute(db);
  await sql`alter table audit_log add constraint audit_log_action_check
    check (action in (${list(actions)}))`.execute(db);
}

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('lock_dates')
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    // The last day of the closed books; null: nothing is closed (a lock lifted).
    .addColumn('lock_date', 'date')
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('lock_dates_pkey', ['entity_id', 'org_id'])
    .execute();
  // Another migration may have given the business its GSTIN already.
  await sql`alter table business_contexts
    add column if not exists state text,
    add column if not exists gstin text`.execute(db);
  await allowActions(db, AUDIT_ACTIONS_WITH_SETTINGS);
  await applyGrants(db, LOCK_DATE_GRANTS);
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('lock_dates').execute();
  await sql`revoke insert, update, select on business_contexts from munim_gateway`.execute(db);
  await sql`revoke select on country_configs from munim_gateway`.execute(db);
  // The GSTIN stays: another migration may have added it first.
  await sql`alter table business_contexts drop column if exists state`.execute(db);
  await allowActions(db, AUDIT_ACTIONS);
}
