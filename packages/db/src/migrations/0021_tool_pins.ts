import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/**
 * Pinned tool definitions: per server and tool (by the server's own
 * name for it), the hash and text of the definition an operator trusts (the first listing's, or the
 * last accepted), of the one the server lists now, and of the one an operator refused. `state` is
 * derived, so the executor and the admin API cannot disagree on it: `pinned` when the server lists
 * the pinned definition, `refused` when it lists the refused one, `changed` otherwise.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('tool_pins')
    .addColumn('server_name', 'text', (c) => c.notNull())
    .addColumn('tool_name', 'text', (c) => c.notNull())
    .addColumn('pinned_hash', 'text', (c) => c.notNull())
    .addColumn('pinned_definition', 'jsonb', (c) => c.notNull())
    .addColumn('pinned_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('accepted_by', 'text')
    .addColumn('listed_hash', 'text', (c) => c.notNull())
    .addColumn('listed_definition', 'jsonb', (c) => c.notNull())
    .addColumn('listed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('refused_hash', 'text')
    .addColumn('refused_by', 'text')
    .addColumn('refused_at', 'timestamptz')
    .addColumn('state', 'text', (c) =>
      c
        .generatedAlwaysAs(
          sql`case when listed_hash = pinned_hash then 'pinned' when listed_hash = refused_hash then 'refused' else 'changed' end`,
        )
        .stored(),
    )
    .addPrimaryKeyConstraint('tool_pins_pkey', ['server_name', 'tool_name'])
    .execute();
  await db.schema
    .createIndex('tool_pins_under_review_idx')
    .on('tool_pins')
    .columns(['server_name', 'tool_name'])
    .where(sql.ref('state'), '<>', 'pinned')
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('tool_pins').execute();
}
