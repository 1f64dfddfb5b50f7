import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/** Model configurations; the API key is stored AES-256-GCM encrypted. */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('llm_configs')
    .ifNotExists()
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('api_style', 'text', (c) =>
      c.notNull().defaultTo('openai').check(sql`api_style in ('openai', 'azure')`),
    )
    .addColumn('api_key_encrypted', 'text')
    .addColumn('temperature', 'real', (c) => c.check(sql`temperature between 0 and 2`))
    .addColumn('max_tokens', 'integer', (c) => c.check(sql`max_tokens > 0`))
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('total_input_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('total_output_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('total_requests', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // At most one default configuration.
  await db.schema
    .createIndex('llm_configs_one_default_idx')
    .ifNotExists()
    .on('llm_configs')
    .expression(sql`(is_default)`)
    .unique()
    .where(sql.ref('is_default'), '=', true)
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('llm_configs').ifExists().execute();
}
