import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/**
 * `llm_configs.fallback_ids`: the configurations a call fails over to, in order, when this one is
 * the default and its endpoint fails (connection, 429, 5xx, timeout, a stalled stream). Ids of
 * other rows; the gateway's admin API checks them (no foreign key reaches into an array), and the
 * agent skips an id it cannot find.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('llm_configs')
    .addColumn('fallback_ids', sql`bigint[]`, (c) =>
      c
        .notNull()
        .defaultTo(sql`'{}'::bigint[]`)
        .check(sql`array_position(fallback_ids, null) is null and cardinality(fallback_ids) <= 8`),
    )
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('llm_configs').dropColumn('fallback_ids').execute();
}
