import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/**
 * The org of a row written before org was part of its key, when no related row names it. Real org
 * ids never hold a `#` (contracts' IdSchema), so no tenant ever reaches such a row.
 */
export const UNKNOWN_ORG = '#unknown-org';
/** The router's marker rows (see services/router/src/store.ts); `*` marks every tenant. */
const MARKER = 'invalidated';
const EVERY = '*';

/** Every (entity, org) the database has seen, from the requests and conversations they made. */
const knownTenants = sql`(
  select distinct entity_id, org_id from query_routing_logs
  union select entity_id, org_id from unified_conversations)`;

/**
 * Tenant keys are entity + org: two orgs sharing an entity id never share a cached
 * answer, an invalidation, a chat number, a quick suggestion or a route. Rows from before keep
 * their place: the org is taken from a related row where one names it, else {@link UNKNOWN_ORG}.
 */
export async function up(db: MigrationDb): Promise<void> {
  await responseCacheUp(db);
  await sql`alter table unified_conversations
    add constraint unified_conversations_tenant_chat_number_key unique (entity_id, org_id, chat_number)`.execute(
    db,
  );
  await sql`alter table unified_conversations drop constraint unified_conversations_entity_chat_number_key`.execute(
    db,
  );
  await quickSuggestionsUp(db);

  await db.schema.alterTable('router_routes').addColumn('org_id', 'text').execute();
  await sql`update router_routes r set org_id = q.org_id from query_routing_logs q
    where q.request_id = r.request_id and q.entity_id = r.entity_id`.execute(db);
  await sql`update router_routes set org_id = ${UNKNOWN_ORG} where org_id is null`.execute(db);
  await sql`alter table router_routes alter column org_id set not null`.execute(db);

  await db.schema
    .createIndex('feedback_log_tenant_created_idx')
    .on('feedback_log')
    .columns(['entity_id', 'org_id', 'created_at'])
    .execute();
  await db.schema.dropIndex('feedback_log_entity_created_idx').ifExists().execute();
}

async function responseCacheUp(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('response_cache').addColumn('org_id', 'text').execute();
  await sql`alter table response_cache drop constraint response_cache_pkey`.execute(db);
  // An answer belongs to the org of the request that built it.
  await sql`update response_cache r set org_id = q.org_id from query_routing_logs q
    where r.cache_key <> ${MARKER} and q.request_id = r.response->>'requestId'
      and q.entity_id = r.entity_id`.execute(db);
  await sql`update response_cache set org_id = ${EVERY} where entity_id = ${EVERY}`.execute(db);
  // A write marker's org is unknown: it holds for every org of the entity (a stale answer is worse).
  await sql`insert into response_cache
      (entity_id, org_id, cache_key, path, query_normalized, response, data_kind, expires_at, created_at)
    select r.entity_id, t.org_id, r.cache_key, r.path, r.query_normalized, r.response, r.data_kind,
      r.expires_at, r.created_at
    from response_cache r join ${knownTenants} t on t.entity_id = r.entity_id
    where r.org_id is null and r.cache_key = ${MARKER}`.execute(db);
  await sql`delete from response_cache where org_id is null and cache_key = ${MARKER}
    and entity_id in (select entity_id from ${knownTenants} t)`.execute(db);
  await sql`update response_cache set org_id = ${UNKNOWN_ORG} where org_id is null`.execute(db);
  await sql`alter table response_cache alter column org_id set not null`.execute(db);
  await sql`alter table response_cache
    add constraint response_cache_pkey primary key (entity_id, org_id, cache_key)`.execute(db);
  await db.schema
    .createIndex('response_cache_tenant_idx')
    .on('response_cache')
    .columns(['entity_id', 'org_id', 'expires_at'])
    .execute();
  await db.schema.dropIndex('response_cache_entity_idx').ifExists().execute();
}

/**
 * Suggestions were configured per entity, and every org of the entity was shown them: each org it
 * is known in keeps them (the row itself for the first, a copy for each other).
 */
async function quickSuggestionsUp(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('quick_suggestions').addColumn('org_id', 'text').execute();
  await sql`update quick_suggestions s set org_id = (
    select min(t.org_id) from ${knownTenants} t where t.entity_id = s.entity_id)`.execute(db);
  await sql`insert into quick_suggestions
      (entity_id, org_id, text, sort_order, is_active, created_at, updated_at)
    select s.entity_id, t.org_id, s.text, s.sort_order, s.is_active, s.created_at, s.updated_at
    from quick_suggestions s join ${knownTenants} t on t.entity_id = s.entity_id and t.org_id <> s.org_id
    order by s.id, t.org_id`.execute(db);
  await sql`update quick_suggestions set org_id = ${UNKNOWN_ORG} where org_id is null`.execute(db);
  await sql`alter table quick_suggestions alter column org_id set not null`.execute(db);
  await db.schema
    .createIndex('quick_suggestions_tenant_order_idx')
    .on('quick_suggestions')
    .columns(['entity_id', 'org_id', 'sort_order', 'id'])
    .execute();
  await db.schema.dropIndex('quick_suggestions_entity_order_idx').ifExists().execute();
}

/**
 * Back to keys by entity alone. Where two orgs of an entity now hold the same key, what cannot be
 * told apart goes: their cached answers (markers keep the newest), copied suggestions; their
 * conversations are renumbered per entity.
 */
export async function down(db: MigrationDb): Promise<void> {
  await db.schema
    .createIndex('feedback_log_entity_created_idx')
    .ifNotExists()
    .on('feedback_log')
    .columns(['entity_id', 'created_at'])
    .execute();
  await db.schema.dropIndex('feedback_log_tenant_created_idx').ifExists().execute();
  await db.schema.alterTable('router_routes').dropColumn('org_id').execute();

  await db.schema
    .createIndex('quick_suggestions_entity_order_idx')
    .ifNotExists()
    .on('quick_suggestions')
    .columns(['entity_id', 'sort_order', 'id'])
    .execute();
  await db.schema.dropIndex('quick_suggestions_tenant_order_idx').ifExists().execute();
  await sql`delete from quick_suggestions s using quick_suggestions o
    where o.entity_id = s.entity_id and o.text = s.text and o.sort_order = s.sort_order
      and o.is_active = s.is_active and o.org_id <> s.org_id and o.id < s.id`.execute(db);
  await db.schema.alterTable('quick_suggestions').dropColumn('org_id').execute();

  await sql`alter table unified_conversations drop constraint unified_conversations_tenant_chat_number_key`.execute(
    db,
  );
  await sql`update unified_conversations u set chat_number = n.num
    from (select id, row_number() over (partition by entity_id order by chat_number, created_at, id) as num
      from unified_conversations
      where entity_id in (
        select entity_id from unified_conversations group by entity_id having count(distinct org_id) > 1)
    ) n
    where u.id = n.id`.execute(db);
  await sql`alter table unified_conversations
    add constraint unified_conversations_entity_chat_number_key unique (entity_id, chat_number)`.execute(db);

  await sql`delete from response_cache r using response_cache o
    where o.entity_id = r.entity_id and o.cache_key = r.cache_key and o.org_id <> r.org_id
      and (r.cache_key <> ${MARKER} or o.created_at > r.created_at
        or (o.created_at = r.created_at and o.org_id > r.org_id))`.execute(db);
  await sql`alter table response_cache drop constraint response_cache_pkey`.execute(db);
  await sql`alter table response_cache add constraint response_cache_pkey primary key (entity_id, cache_key)`.execute(
    db,
  );
  await db.schema
    .createIndex('response_cache_entity_idx')
    .ifNotExists()
    .on('response_cache')
    .columns(['entity_id', 'expires_at'])
    .execute();
  await db.schema.dropIndex('response_cache_tenant_idx').ifExists().execute();
  await db.schema.alterTable('response_cache').dropColumn('org_id').execute();
}
