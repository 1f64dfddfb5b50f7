import type { MigrationDb } from './types.ts';

/**
 * How each tool was classified: read or write by its verb, an annotation, the
 * operator's policy or by default; its confirmation tier; and the server that lists it.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('tool_registry')
    .addColumn('server_name', 'text')
    .addColumn('access_reason', 'text')
    .addColumn('access_detail', 'text')
    .addColumn('confirm_tier', 'smallint')
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('tool_registry')
    .dropColumn('server_name')
    .dropColumn('access_reason')
    .dropColumn('access_detail')
    .dropColumn('confirm_tier')
    .execute();
}
