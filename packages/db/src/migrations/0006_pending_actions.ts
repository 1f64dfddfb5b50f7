import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/**
 * Writes waiting for the user's confirmation. Kept in PostgreSQL so the answer
 * works on any agent instance, after the one that asked has gone.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('pending_actions')
    .addColumn('action_id', 'text', (c) => c.primaryKey())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('args', 'jsonb', (c) => c.notNull())
    .addColumn('args_hash', 'text', (c) => c.notNull())
    .addColumn('tier', 'integer', (c) => c.notNull())
    .addColumn('confirm_text', 'text')
    .addColumn('question', 'text', (c) => c.notNull())
    .addColumn('call_id', 'text', (c) => c.notNull())
    .addColumn('tool_call_id', 'text', (c) => c.notNull())
    // The LLM conversation up to the proposed call, so the loop resumes exactly where it stopped.
    .addColumn('state', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('result', 'jsonb')
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('decided_at', 'timestamptz')
    .addCheckConstraint(
      'pending_actions_status_check',
      sql`status in ('pending', 'executing', 'executed', 'cancelled', 'expired', 'void')`,
    )
    .execute();
  await db.schema
    .createIndex('pending_actions_conversation_idx')
    .on('pending_actions')
    .columns(['conversation_id', 'status', 'created_at'])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('pending_actions').execute();
}
