import { sql } from 'kysely';
import { applyGrants, type Grants, type RoleService } from './grants.ts';
import type { MigrationDb } from './types.ts';

/**
 * Who asked, recorded. Every request acts as a person (a user and their roles for the entity, or
 * the tenant's owner without one): its `query_routing_logs` row names them (the logger writes it
 * from the events' envelopes), and a pending write names who proposed it and who confirmed it.
 * Rows of requests from before this migration have no actor (null roles).
 */

/** What each service's role may do with the new columns, beyond its table grants. */
export const ACTOR_GRANTS: Partial<Record<RoleService, Grants>> = {
  // The agent proposes (insert: every column) and records who confirmed when it moves the write on.
  agent: { pending_actions: { update: ['approved_by'] } },
};

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('query_routing_logs')
    // Null with roles: the tenant's owner, no user named; null roles: not known (an older request).
    .addColumn('actor_user_id', 'text')
    .addColumn('actor_roles', sql`text[]`)
    .addColumn('actor_via', 'text')
    .execute();
  await db.schema
    .alterTable('pending_actions')
    .addColumn('requested_by', 'text')
    .addColumn('requested_roles', sql`text[]`)
    .addColumn('approved_by', 'text')
    .execute();
  await applyGrants(db, ACTOR_GRANTS);
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('pending_actions')
    .dropColumn('requested_by')
    .dropColumn('requested_roles')
    .dropColumn('approved_by')
    .execute();
  await db.schema
    .alterTable('query_routing_logs')
    .dropColumn('actor_user_id')
    .dropColumn('actor_roles')
    .dropColumn('actor_via')
    .execute();
}
