import { sql } from 'kysely';
import { applyGrants, type Grants, type RoleService } from './grants.ts';
import type { MigrationDb } from './types.ts';

/**
 * An org's own approval policy: who must approve which writes, set through the admin API. It
 * takes the place of the operator's `APPROVAL_POLICY_FILE` for that org; without a row the file
 * decides, and without a file the person who asked confirms. The gateway writes it (checked
 * against the policy schema first); the agent reads it when a write waits for its decision.
 */

/** What each service's role may do with the table. */
export const APPROVAL_POLICY_GRANTS: Partial<Record<RoleService, Grants>> = {
  gateway: {
    approval_policies: { select: true, insert: true, update: ['policy', 'updated_by', 'updated_at'] },
  },
  agent: { approval_policies: { select: true } },
};

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('approval_policies')
    .addColumn('org_id', 'text', (c) => c.primaryKey())
    .addColumn('policy', 'jsonb', (c) => c.notNull().check(sql`jsonb_typeof(policy) = 'object'`))
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await applyGrants(db, APPROVAL_POLICY_GRANTS);
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('approval_policies').execute();
}
