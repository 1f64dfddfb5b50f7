import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/**
 * The router's decision for each request still running. The outcome of a request
 * arrives later as its `complete` or `error` event, which does not say how it was routed; this
 * row lets any router instance write the response cache and the routing stats from it, once.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('router_routes')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('query_normalized', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('strategy', 'text', (c) => c.notNull())
    .addColumn('cacheable', 'boolean', (c) => c.notNull())
    .addColumn('intent_id', 'text')
    .addColumn('confidence', 'double precision')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('router_routes_created_at_idx')
    .on('router_routes')
    .column('created_at')
    .execute();
  await db.schema
    .createIndex('response_cache_entity_idx')
    .on('response_cache')
    .columns(['entity_id', 'expires_at'])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex('response_cache_entity_idx').ifExists().execute();
  await db.schema.dropTable('router_routes').ifExists().execute();
}
