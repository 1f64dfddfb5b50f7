import { sql } from 'kysely';
import { applyGrants, type Grants, type RoleService } from './grants.ts';
import type { MigrationDb } from './types.ts';

/**
 * Writes that wait for other people. A write its maker confirmed but the approval policy gives to
 * others moves to `awaiting_approval` (how many must approve, and in which roles, kept with it);
 * each person's decision is a row of `approval_decisions` (one per person, both versions of an
 * edited call kept); the decisive approval moves it to `executing`, a rejection to `rejected`.
 * Standing approvals let a bounded scope of writes through on the maker's confirmation alone, each
 * use counted in `standing_approval_uses`.
 */

const STATUSES = [
  'pending',
  'executing',
  'executed',
  'cancelled',
  'expired',
  'void',
  'awaiting_approval',
  'rejected',
];

/** What each service's role may do with these tables and columns. */
export const APPROVAL_GRANTS: Partial<Record<RoleService, Grants>> = {
  agent: {
    pending_actions: {
      update: [
        'args',
        'args_hash',
        'expires_at',
        'approvals_needed',
        'approver_roles',
        'approval_reason',
        'approval_requested_at',
      ],
    },
    approval_decisions: { select: true, insert: true },
    standing_approvals: { select: true, update: ['uses', 'used_total'] },
    standing_approval_uses: { select: true, insert: true },
  },
  gateway: {
    pending_actions: { select: true },
    approval_decisions: { select: true },
    standing_approvals: { select: true, insert: true, update: ['revoked_at', 'revoked_by'] },
    standing_approval_uses: { select: true },
  },
};

const list = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

export async function up(db: MigrationDb): Promise<void> {
  await sql`alter table pending_actions drop constraint if exists pending_actions_status_check`.execute(db);
  await sql`alter table pending_actions add constraint pending_actions_status_check
    check (status in (${list(STATUSES)}))`.execute(db);
  await db.schema
    .alterTable('pending_actions')
    .addColumn('approvals_needed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('approver_roles', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('approval_reason', 'text')
    .addColumn('approval_requested_at', 'timestamptz')
    .execute();
  await sql`create index pending_actions_awaiting_idx on pending_actions (org_id, entity_id, approval_requested_at)
    where status = 'awaiting_approval'`.execute(db);

  await db.schema
    .createTable('approval_decisions')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('action_id', 'text', (c) => c.notNull().references('pending_actions.action_id'))
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    // Null: the tenant's owner, no user named.
    .addColumn('user_id', 'text')
    .addColumn('roles', sql`text[]`, (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull().check(sql`decision in ('approve', 'reject')`))
    .addColumn('reason', 'text')
    // The call decided on: an approval counts only for the call as it now stands.
    .addColumn('args_hash', 'text', (c) => c.notNull())
    .addColumn('args_before', 'jsonb')
    .addColumn('args_after', 'jsonb')
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // One decision per person per version of the call.
  await sql`create unique index approval_decisions_person_idx on approval_decisions (action_id, args_hash, coalesce(user_id, ''))`.execute(
    db,
  );

  await db.schema
    .createTable('standing_approvals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('granted_by', 'text')
    .addColumn('granted_roles', sql`text[]`, (c) => c.notNull())
    // The scope: a class or a tool glob (at least one), a party, amounts, uses, an expiry.
    .addColumn('write_class', 'text')
    .addColumn('tool', 'text')
    .addColumn('party', 'text')
    .addColumn('max_amount', 'numeric')
    .addColumn('max_total', 'numeric')
    .addColumn('max_uses', 'integer', (c) => c.notNull().check(sql`max_uses > 0`))
    .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('used_total', 'numeric', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('revoked_by', 'text')
    .addCheckConstraint('standing_approvals_scope', sql`write_class is not null or tool is not null`)
    .addCheckConstraint('standing_approvals_uses', sql`uses <= max_uses`)
    .addCheckConstraint('standing_approvals_total', sql`max_total is null or used_total <= max_total`)
    .execute();
  await sql`create index standing_approvals_tenant_idx on standing_approvals (org_id, entity_id)`.execute(db);

  await db.schema
    .createTable('standing_approval_uses')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull().references('standing_approvals.id'))
    .addColumn('action_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'numeric')
    .addColumn('used_by', 'text')
    .addColumn('used_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await applyGrants(db, APPROVAL_GRANTS);
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('standing_approval_uses').execute();
  await db.schema.dropTable('standing_approvals').execute();
  await db.schema.dropTable('approval_decisions').execute();
  await sql`drop index if exists pending_actions_awaiting_idx`.execute(db);
  await db.schema
    .alterTable('pending_actions')
    .dropColumn('approvals_needed')
    .dropColumn('approver_roles')
    .dropColumn('approval_reason')
    .dropColumn('approval_requested_at')
    .execute();
  await sql`alter table pending_actions drop constraint if exists pending_actions_status_check`.execute(db);
  await sql`alter table pending_actions add constraint pending_actions_status_check
    check (status in ('pending', 'executing', 'executed', 'cancelled', 'expired', 'void'))`.execute(db);
}
