import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/**
 * Per-tenant usage per fixed window: queries the gateways admitted and model
 * tokens the agents spent, counted in one row per (entity, org, window, kind) that every instance
 * increments atomically, so the quotas hold across instances.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('tenant_usage')
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('queries', 'tokens')`))
    .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('tenant_usage_pkey', ['entity_id', 'org_id', 'window_start', 'kind'])
    .execute();
  // Old windows are deleted by their start.
  await db.schema
    .createIndex('tenant_usage_window_start_idx')
    .on('tenant_usage')
    .column('window_start')
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('tenant_usage').execute();
}
