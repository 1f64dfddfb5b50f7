import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/** Quick suggestions per entity, shown on an empty chat. */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('quick_suggestions')
    .ifNotExists()
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('sort_order', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('quick_suggestions_entity_order_idx')
    .ifNotExists()
    .on('quick_suggestions')
    .columns(['entity_id', 'sort_order', 'id'])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('quick_suggestions').ifExists().execute();
}
