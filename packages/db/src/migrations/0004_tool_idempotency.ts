import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/**
 * Idempotency of write tool calls: one row per (request, call), written before the
 * call is sent to the MCP server, so a retry, a redelivery or another executor instance gets the
 * stored outcome instead of running the write again.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('tool_idempotency')
    // sha256 of request id, call id and the canonical hash of the arguments; sent in `_meta`.
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('call_id', 'text', (c) => c.notNull())
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('args_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('pending'))
    // json, not jsonb: a replayed answer keeps the original's key order, byte for byte.
    .addColumn('result', 'json')
    .addColumn('owner', 'text', (c) => c.notNull())
    // After this instant a pending row's owner is presumed gone; its outcome becomes unknown.
    .addColumn('deadline_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'tool_idempotency_state_check',
      sql`state in ('pending', 'succeeded', 'failed', 'unknown')`,
    )
    .execute();
  // One row per call: the same call with other arguments is found here and refused.
  await db.schema
    .createIndex('tool_idempotency_call_idx')
    .on('tool_idempotency')
    .columns(['request_id', 'call_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('tool_idempotency_expires_idx')
    .on('tool_idempotency')
    .column('expires_at')
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('tool_idempotency').ifExists().execute();
}
