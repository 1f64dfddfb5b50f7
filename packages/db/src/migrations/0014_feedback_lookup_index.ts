import type { MigrationDb } from './types.ts';

/**
 * The logger looks up the previous query of a conversation for every new query (implicit
 * feedback). With the conversation index on (conversation_id, created_at) alone, the planner
 * preferred the (org_id, entity_id, created_at) index and walked every query of the entity
 * backwards — 1 ms per lookup at 2,000 rows, growing with the entity's history. This index
 * answers the lookup exactly: the conversation, its tenant, then time.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createIndex('query_routing_logs_conversation_tenant_created_idx')
    .ifNotExists()
    .on('query_routing_logs')
    .columns(['conversation_id', 'entity_id', 'org_id', 'created_at'])
    .execute();
  await db.schema.dropIndex('query_routing_logs_conversation_created_idx').ifExists().execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema
    .createIndex('query_routing_logs_conversation_created_idx')
    .ifNotExists()
    .on('query_routing_logs')
    .columns(['conversation_id', 'created_at'])
    .execute();
  await db.schema.dropIndex('query_routing_logs_conversation_tenant_created_idx').ifExists().execute();
}
