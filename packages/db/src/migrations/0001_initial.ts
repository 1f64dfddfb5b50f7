import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

const now = sql`now()`;
const emptyJsonArray = sql`'[]'::jsonb`;
const emptyJsonObject = sql`'{}'::jsonb`;
const emptyTextArray = sql`'{}'::text[]`;

/** Creates the first tables of munim (docs/architecture.md lists them all). */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('request_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('service', 'text', (c) => c.notNull())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('ts', 'timestamptz', (c) => c.notNull())
    .addColumn('stored_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('request_events_request_id_seq_idx')
    .on('request_events')
    .columns(['request_id', 'seq'])
    .execute();

  await db.schema
    .createTable('query_routing_logs')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('query', 'text')
    .addColumn('path', 'text')
    .addColumn('category', 'text')
    .addColumn('confidence', 'real')
    .addColumn('tier', 'text')
    .addColumn('intent_id', 'text')
    .addColumn('intent_confidence', 'real')
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('is_write_operation', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('write_tool_results', 'jsonb', (c) => c.notNull().defaultTo(emptyJsonArray))
    .addColumn('guardrails_triggered', sql`text[]`, (c) => c.notNull().defaultTo(emptyTextArray))
    .addColumn('tools_used', sql`text[]`, (c) => c.notNull().defaultTo(emptyTextArray))
    .addColumn('tools_failed', sql`text[]`, (c) => c.notNull().defaultTo(emptyTextArray))
    .addColumn('llm_model', 'text')
    .addColumn('iteration_count', 'integer')
    .addColumn('input_tokens', 'integer')
    .addColumn('output_tokens', 'integer')
    .addColumn('latency_ms', 'integer')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('running'))
    .addColumn('error_code', 'text')
    .addColumn('response', 'text')
    .addColumn('trace_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();
  // The pipeline debugger's query: "WHERE 'write_preflight_block' = ANY(guardrails_triggered) ORDER BY created_at DESC".
  await db.schema
    .createIndex('query_routing_logs_guardrails_idx')
    .on('query_routing_logs')
    .using('gin')
    .column('guardrails_triggered')
    .execute();
  await db.schema
    .createIndex('query_routing_logs_created_at_idx')
    .on('query_routing_logs')
    .expression(sql`created_at desc`)
    .execute();
  await db.schema
    .createIndex('query_routing_logs_entity_created_idx')
    .on('query_routing_logs')
    .columns(['entity_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('intents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('module_id', 'text')
    .addColumn('description', 'text')
    .addColumn('training_phrases', 'jsonb', (c) => c.notNull().defaultTo(emptyJsonArray))
    .addColumn('entities', 'jsonb', (c) => c.notNull().defaultTo(emptyJsonArray))
    .addColumn('resolution_flow', 'jsonb', (c) => c.notNull().defaultTo(emptyJsonArray))
    .addColumn('response_format', 'text', (c) => c.notNull().defaultTo('table'))
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable('tool_registry')
    .addColumn('tool_name', 'text', (c) => c.primaryKey())
    .addColumn('description', 'text')
    .addColumn('input_schema', 'jsonb', (c) => c.notNull().defaultTo(emptyJsonObject))
    .addColumn('annotations', 'jsonb')
    .addColumn('is_write', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('tool_group', 'text')
    .addColumn('keywords', sql`text[]`, (c) => c.notNull().defaultTo(emptyTextArray))
    .addColumn('module_id', 'text')
    .addColumn('usage_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_seen_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable('unified_conversations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('chat_number', 'integer', (c) => c.notNull())
    .addColumn('chat_name', 'text')
    .addColumn('messages', 'jsonb', (c) => c.notNull().defaultTo(emptyJsonArray))
    .addColumn('message_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_message_preview', 'text')
    .addColumn('summary', 'text')
    .addColumn('is_deleted', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint('unified_conversations_entity_chat_number_key', ['entity_id', 'chat_number'])
    .execute();
  await db.schema
    .createIndex('unified_conversations_entity_org_updated_idx')
    .on('unified_conversations')
    .columns(['entity_id', 'org_id', 'updated_at'])
    .execute();

  await db.schema
    .createTable('llm_usage_logs')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('request_id', 'text')
    .addColumn('entity_id', 'text')
    .addColumn('org_id', 'text')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('section', 'text', (c) => c.notNull().defaultTo('chat'))
    .addColumn('input_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('output_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('latency_ms', 'integer')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('success'))
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('llm_usage_logs_request_id_idx')
    .on('llm_usage_logs')
    .column('request_id')
    .execute();
  await db.schema
    .createIndex('llm_usage_logs_created_at_idx')
    .on('llm_usage_logs')
    .column('created_at')
    .execute();

  await db.schema
    .createTable('feedback_log')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('request_id', 'text')
    .addColumn('conversation_id', 'text')
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('explicit', 'implicit')`))
    .addColumn('signal', 'text')
    .addColumn('score', 'integer')
    .addColumn('query', 'text')
    .addColumn('response', 'text')
    .addColumn('intent_id', 'text')
    .addColumn('tools_used', sql`text[]`, (c) => c.notNull().defaultTo(emptyTextArray))
    .addColumn('llm_model', 'text')
    .addColumn('latency_ms', 'integer')
    .addColumn('comment', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('feedback_log_request_id_idx')
    .on('feedback_log')
    .column('request_id')
    .execute();
  await db.schema
    .createIndex('feedback_log_entity_created_idx')
    .on('feedback_log')
    .columns(['entity_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('response_cache')
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('cache_key', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('query_normalized', 'text', (c) => c.notNull())
    .addColumn('response', 'jsonb', (c) => c.notNull())
    .addColumn('data_kind', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('response_cache_pkey', ['entity_id', 'cache_key'])
    .execute();
  await db.schema
    .createIndex('response_cache_expires_at_idx')
    .on('response_cache')
    .column('expires_at')
    .execute();

  await db.schema
    .createTable('intent_routing_stats')
    .addColumn('intent_id', 'text', (c) => c.notNull())
    .addColumn('confidence_bucket', sql`numeric(3, 2)`, (c) => c.notNull())
    .addColumn('total_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('successful_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('avg_response_ms', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('avg_feedback_score', 'double precision')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint('intent_routing_stats_pkey', ['intent_id', 'confidence_bucket'])
    .execute();

  await db.schema
    .createTable('llm_path_patterns')
    .addColumn('query_hash', 'text', (c) => c.primaryKey())
    .addColumn('query_text', 'text', (c) => c.notNull())
    .addColumn('tools_used', sql`text[]`, (c) => c.notNull().defaultTo(emptyTextArray))
    .addColumn('strategy', 'text')
    .addColumn('occurrence_count', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('avg_response_ms', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('avg_feedback_score', 'double precision')
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable('suggested_intents')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('pattern_hash', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('training_phrases', 'jsonb', (c) => c.notNull().defaultTo(emptyJsonArray))
    .addColumn('tools', 'jsonb', (c) => c.notNull().defaultTo(emptyJsonArray))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();
}

/** Drops every table of {@link up}. */
export async function down(db: MigrationDb): Promise<void> {
  for (const table of [
    'suggested_intents',
    'llm_path_patterns',
    'intent_routing_stats',
    'response_cache',
    'feedback_log',
    'llm_usage_logs',
    'unified_conversations',
    'tool_registry',
    'intents',
    'query_routing_logs',
    'request_events',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
