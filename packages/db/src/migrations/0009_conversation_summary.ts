import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/** How many of a conversation's messages its summary covers. */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('unified_conversations')
    .addColumn('summarized_count', 'integer', (c) => c.notNull().defaultTo(sql`0`))
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('unified_conversations').dropColumn('summarized_count').execute();
}
