import { sql } from 'kysely';
import { applyGrants, type Grants, type RoleService, SERVICE_ROLES } from './grants.ts';
import type { MigrationDb } from './types.ts';

/**
 * The router reads a tenant's business context: a finance question's period ("this quarter",
 * "last FY") is the business's, in its financial year and its time zone's today.
 */
export const ROUTER_BUSINESS_GRANTS: Partial<Record<RoleService, Grants>> = {
  router: {
    business_contexts: { select: true },
    country_configs: { select: true },
  },
};

export async function up(db: MigrationDb): Promise<void> {
  await applyGrants(db, ROUTER_BUSINESS_GRANTS);
}

export async function down(db: MigrationDb): Promise<void> {
  await sql`revoke select on business_contexts, country_configs from ${sql.id(SERVICE_ROLES.router)}`.execute(
    db,
  );
}
