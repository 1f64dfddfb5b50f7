import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/** Uploaded files: scoped to a tenant and optionally a conversation. */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('attachments')
    .ifNotExists()
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('conversation_id', 'text')
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) =>
      c.notNull().check(sql`category in ('image', 'spreadsheet', 'pdf', 'document')`),
    )
    .addColumn('size_bytes', 'bigint', (c) => c.notNull().check(sql`size_bytes > 0`))
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('storage', 'text', (c) => c.notNull().check(sql`storage in ('local', 's3')`))
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('extraction_status', 'text', (c) =>
      c.notNull().check(sql`extraction_status in ('done', 'failed', 'skipped')`),
    )
    .addColumn('extracted_text', 'text')
    .addColumn('extraction_error', 'text')
    /** Rows, pages, sheets, columns and whether the text was cut. */
    .addColumn('extraction_details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('attachments_tenant_idx')
    .ifNotExists()
    .on('attachments')
    .columns(['entity_id', 'org_id', 'created_at'])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('attachments').ifExists().execute();
}
