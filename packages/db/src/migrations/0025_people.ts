import { sql } from 'kysely';
import { applyGrants, type Grants, type RoleService } from './grants.ts';
import type { MigrationDb } from './types.ts';

/**
 * People and the audit trail. Every request acts as a person: a user of one org, with roles per
 * entity, whose API keys are kept only as hashes. The audit trail is append-only and hash-chained
 * per org: a row names the one before it by its hash, the database refuses a
 * row that does not continue the chain, and no one — not even the schema's owner — updates,
 * deletes or truncates it.
 */

/** The roles a user may hold for an entity. */
export const USER_ROLES = ['viewer', 'maker', 'approver', 'admin', 'owner', 'automation'] as const;

/** The actions the audit trail records. */
export const AUDIT_ACTIONS = [
  'proposed',
  'confirmed',
  'approved',
  'rejected',
  'edited',
  'executed',
  'failed',
  'cancelled',
  'expired',
] as const;

/** What each service's role may do with these tables. */
export const PEOPLE_GRANTS: Partial<Record<RoleService, Grants>> = {
  gateway: {
    users: { select: true, insert: true, update: ['name', 'email', 'phone', 'disabled_at'] },
    user_roles: { select: true, insert: true, delete: true },
    api_keys: { select: true, insert: true, update: ['revoked_at', 'last_used_at'] },
    audit_log: { select: true, insert: true },
  },
  agent: {
    users: { select: true },
    user_roles: { select: true },
    audit_log: { select: true, insert: true },
  },
  'mcp-executor': {
    audit_log: { select: true, insert: true },
  },
};

const list = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    // E.164: the number messaging reaches the person on.
    .addColumn('phone', 'text', (c) => c.check(sql`phone ~ '^\\+[1-9][0-9]{6,14}$'`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('disabled_at', 'timestamptz')
    .execute();
  await sql`create unique index users_org_email_idx on users (org_id, lower(email)) where email is not null`.execute(
    db,
  );

  await db.schema
    .createTable('user_roles')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in (${list(USER_ROLES)})`))
    .addColumn('granted_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('granted_by', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_roles_pkey', ['user_id', 'entity_id', 'role'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull())
    // SHA-256 of the key: the key itself is shown once, when it is made, and kept nowhere.
    .addColumn('key_hash', 'text', (c) => c.notNull().unique().check(sql`key_hash ~ '^[0-9a-f]{64}$'`))
    .addColumn('shown_prefix', 'text', (c) => c.notNull())
    .addColumn('label', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull().check(sql`seq >= 1`))
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull().check(sql`action in (${list(AUDIT_ACTIONS)})`))
    .addColumn('tool', 'text')
    .addColumn('args_hash', 'text')
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('prev_hash', 'text', (c) => c.notNull().check(sql`prev_hash ~ '^[0-9a-f]{64}$'`))
    .addColumn('hash', 'text', (c) => c.notNull().check(sql`hash ~ '^[0-9a-f]{64}$'`))
    .addPrimaryKeyConstraint('audit_log_pkey', ['org_id', 'seq'])
    .addUniqueConstraint('audit_log_chain_key', ['org_id', 'prev_hash'])
    .execute();

  // A row continues its org's chain: the next number, naming the last row's hash (the first
  // names sixty-four zeros). Two rows racing for one place: the primary key keeps one.
  await sql`
    create or replace function munim_audit_append() returns trigger language plpgsql as $$
    declare last record;
    begin
      select seq, hash into last from audit_log where org_id = new.org_id order by seq desc limit 1;
      if last is null then
        if new.seq <> 1 or new.prev_hash <> repeat('0', 64) then
          raise exception 'audit row % of org % does not start the chain', new.seq, new.org_id
            using errcode = 'check_violation';
        end if;
      elsif new.seq <> last.seq + 1 or new.prev_hash <> last.hash then
        raise exception 'audit row % of org % does not continue the chain after row %', new.seq, new.org_id, last.seq
          using errcode = 'check_violation';
      end if;
      return new;
    end $$`.execute(db);
  await sql`create trigger audit_log_append before insert on audit_log
    for each row execute function munim_audit_append()`.execute(db);
  await sql`
    create or replace function munim_audit_frozen() returns trigger language plpgsql as $$
    begin
      raise exception 'the audit trail is append-only: a row is never changed or removed'
        using errcode = 'insufficient_privilege';
    end $$`.execute(db);
  await sql`create trigger audit_log_frozen before update or delete on audit_log
    for each row execute function munim_audit_frozen()`.execute(db);
  await sql`create trigger audit_log_frozen_truncate before truncate on audit_log
    for each statement execute function munim_audit_frozen()`.execute(db);
  for (const fn of ['munim_audit_append()', 'munim_audit_frozen()'])
    await sql`revoke all on function ${sql.raw(fn)} from public`.execute(db);

  await applyGrants(db, PEOPLE_GRANTS);
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
  await sql`drop function if exists munim_audit_append()`.execute(db);
  await sql`drop function if exists munim_audit_frozen()`.execute(db);
  await db.schema.dropTable('api_keys').execute();
  await db.schema.dropTable('user_roles').execute();
  await db.schema.dropTable('users').execute();
}
