import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/**
 * Indexes for the logger: retention of old events, the health monitor's windows per
 * org, the previous query of a conversation (implicit feedback), and one implicit signal per
 * request and kind, so a redelivered event never records it twice.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createIndex('request_events_ts_idx')
    .ifNotExists()
    .on('request_events')
    .column('ts')
    .execute();
  await db.schema
    .createIndex('request_events_type_ts_idx')
    .ifNotExists()
    .on('request_events')
    .columns(['type', 'ts'])
    .execute();
  await db.schema
    .createIndex('query_routing_logs_org_entity_created_idx')
    .ifNotExists()
    .on('query_routing_logs')
    .columns(['org_id', 'entity_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('query_routing_logs_conversation_created_idx')
    .ifNotExists()
    .on('query_routing_logs')
    .columns(['conversation_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('feedback_log_implicit_signal_key')
    .ifNotExists()
    .unique()
    .on('feedback_log')
    .columns(['request_id', 'signal'])
    .where(sql.ref('kind'), '=', 'implicit')
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  for (const name of [
    'feedback_log_implicit_signal_key',
    'query_routing_logs_conversation_created_idx',
    'query_routing_logs_org_entity_created_idx',
    'request_events_type_ts_idx',
    'request_events_ts_idx',
  ]) {
    await db.schema.dropIndex(name).ifExists().execute();
  }
}
