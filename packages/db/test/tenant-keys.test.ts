// Migration 0017 on a database that holds rows from before it: every row keeps its place and is
// reachable by its (entity, org); the keys include the org; `down` puts the old keys back.
import { type Kysely, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database, MIGRATIONS, migrateToLatest } from '../src/index.ts';
import { UNKNOWN_ORG } from '../src/migrations/0017_org_tenant_keys.ts';
import type { MigrationDb } from '../src/migrations/types.ts';
import { createTestDatabase, type TestDatabase } from '../src/testing.ts';

const THIS = '0017_org_tenant_keys';
let testDb: TestDatabase;
let db: Kysely<Database>;
/** The database as it was before 0017: no org in its types. */
let old: MigrationDb;

const migrator = (names: string[]) =>
  new Migrator({
    db,
    provider: { getMigrations: async () => Object.fromEntries(names.map((n) => [n, MIGRATIONS[n]!])) },
    allowUnorderedMigrations: true,
  });
const before = Object.keys(MIGRATIONS).filter((name) => name !== THIS);

async function insertOldRows(): Promise<void> {
  const log = (request_id: string, entity_id: string, org_id: string) => ({
    request_id,
    entity_id,
    org_id,
    conversation_id: `c-${request_id}`,
    created_at: new Date(),
  });
  await old
    .insertInto('query_routing_logs')
    .values([log('req-a', 'ent-1', 'org-a'), log('req-b', 'ent-1', 'org-b'), log('req-c', 'ent-2', 'org-c')])
    .execute();
  const conversation = (id: string, org_id: string, chat_number: number) => ({
    id,
    entity_id: 'ent-1',
    org_id,
    chat_number,
  });
  // Numbered per entity, as before: org B's first chat was #MJ-0002.
  await old
    .insertInto('unified_conversations')
    .values([conversation('conv-a', 'org-a', 1), conversation('conv-b', 'org-b', 2)])
    .execute();
  const hour = sql`now() + interval '1 hour'`;
  const cache = (entity_id: string, cache_key: string, requestId: string) => ({
    entity_id,
    cache_key,
    path: 'fast',
    query_normalized: 'q',
    response: JSON.stringify({ response: requestId, requestId }),
    data_kind: cache_key === 'invalidated' ? 'invalidated' : 'volatile',
    expires_at: hour,
  });
  await old
    .insertInto('response_cache')
    .values([
      cache('ent-1', 'key-1', 'req-a'),
      cache('ent-2', 'key-1', 'req-c'),
      cache('ent-1', 'invalidated', ''),
      cache('*', 'invalidated', ''),
      cache('ent-9', 'key-9', 'req-gone'),
    ])
    .execute();
  await old
    .insertInto('quick_suggestions')
    .values([
      { entity_id: 'ent-1', text: 'Shared by both orgs', sort_order: 1 },
      { entity_id: 'ent-2', text: 'Only org C', sort_order: 1 },
      { entity_id: 'ent-7', text: 'Nobody’s', sort_order: 1 },
    ])
    .execute();
  const route = (request_id: string) => ({
    request_id,
    entity_id: 'ent-1',
    query_normalized: 'q',
    path: 'fast',
    category: 'unified',
    strategy: 'intent_pipeline',
    cacheable: true,
  });
  await old
    .insertInto('router_routes')
    .values([route('req-a'), route('req-open')])
    .execute();
}

const keyColumns = async (constraint: string) =>
  (
    await sql<{ def: string }>`select pg_get_constraintdef(oid) as def from pg_constraint
      where conname = ${constraint}`.execute(db)
  ).rows[0]?.def;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.url, { max: 4 });
  old = db as unknown as MigrationDb;
  const { error } = await migrator(before).migrateToLatest();
  if (error) throw error;
  await insertOldRows();
  await migrateToLatest(db);
});

afterAll(async () => {
  await db?.destroy();
  await testDb?.drop();
});

describe('migrating rows from before org was in every tenant key', () => {
  it('keeps each cached answer under the org of the request that built it', async () => {
    const rows = await db
      .selectFrom('response_cache')
      .select(['entity_id', 'org_id', 'cache_key'])
      .orderBy('entity_id')
      .orderBy('org_id')
      .orderBy('cache_key')
      .execute();
    expect(rows).toEqual([
      { entity_id: '*', org_id: '*', cache_key: 'invalidated' },
      // The entity's write marker holds for each of its orgs.
      { entity_id: 'ent-1', org_id: 'org-a', cache_key: 'invalidated' },
      { entity_id: 'ent-1', org_id: 'org-a', cache_key: 'key-1' },
      { entity_id: 'ent-1', org_id: 'org-b', cache_key: 'invalidated' },
      { entity_id: 'ent-2', org_id: 'org-c', cache_key: 'key-1' },
      { entity_id: 'ent-9', org_id: UNKNOWN_ORG, cache_key: 'key-9' },
    ]);
    expect(await keyColumns('response_cache_pkey')).toBe('PRIMARY KEY (entity_id, org_id, cache_key)');
  });

  it('keeps conversations and their numbers, and numbers chats per tenant from now on', async () => {
    expect(
      await db
        .selectFrom('unified_conversations')
        .select(['id', 'org_id', 'chat_number'])
        .orderBy('id')
        .execute(),
    ).toEqual([
      { id: 'conv-a', org_id: 'org-a', chat_number: 1 },
      { id: 'conv-b', org_id: 'org-b', chat_number: 2 },
    ]);
    expect(await keyColumns('unified_conversations_tenant_chat_number_key')).toBe(
      'UNIQUE (entity_id, org_id, chat_number)',
    );
    expect(await keyColumns('unified_conversations_entity_chat_number_key')).toBeUndefined();
    const insert = (id: string, org_id: string) =>
      db
        .insertInto('unified_conversations')
        .values({ id, entity_id: 'ent-1', org_id, chat_number: 1 })
        .execute();
    await insert('conv-b-1', 'org-b');
    await expect(insert('conv-a-again', 'org-a')).rejects.toMatchObject({
      constraint: 'unified_conversations_tenant_chat_number_key',
    });
  });

  it('gives each org an entity is known in its quick suggestions; none to an unknown one', async () => {
    const rows = await db
      .selectFrom('quick_suggestions')
      .select(['id', 'entity_id', 'org_id', 'text'])
      .orderBy('entity_id')
      .orderBy('org_id')
      .execute();
    expect(rows.map(({ id: _, ...rest }) => rest)).toEqual([
      { entity_id: 'ent-1', org_id: 'org-a', text: 'Shared by both orgs' },
      { entity_id: 'ent-1', org_id: 'org-b', text: 'Shared by both orgs' },
      { entity_id: 'ent-2', org_id: 'org-c', text: 'Only org C' },
      { entity_id: 'ent-7', org_id: UNKNOWN_ORG, text: 'Nobody’s' },
    ]);
    // The original row stays with the first org, so its id does not change.
    expect(rows[0]?.id).toBe(1);
  });

  it('records the org of open routes where the request names it', async () => {
    expect(
      await db.selectFrom('router_routes').select(['request_id', 'org_id']).orderBy('request_id').execute(),
    ).toEqual([
      { request_id: 'req-a', org_id: 'org-a' },
      { request_id: 'req-open', org_id: UNKNOWN_ORG },
    ]);
  });

  it('goes down to the keys by entity alone, and up again', async () => {
    const all = migrator(Object.keys(MIGRATIONS));
    const down = await all.migrateDown();
    expect(down.error).toBeUndefined();
    expect(down.results?.map((r) => r.migrationName)).toEqual([THIS]);
    expect(await keyColumns('response_cache_pkey')).toBe('PRIMARY KEY (entity_id, cache_key)');
    expect(await keyColumns('unified_conversations_entity_chat_number_key')).toBe(
      'UNIQUE (entity_id, chat_number)',
    );
    // Two orgs' chats of one entity are numbered per entity again; the copied suggestion is gone.
    const { rows } = await sql<{ n: number }>`select chat_number as n from unified_conversations
      where entity_id = 'ent-1' order by chat_number`.execute(db);
    expect(rows.map((r) => r.n)).toEqual([1, 2, 3]);
    const texts = await sql<{ text: string }>`select text from quick_suggestions order by id`.execute(db);
    expect(texts.rows.map((r) => r.text)).toEqual(['Shared by both orgs', 'Only org C', 'Nobody’s']);

    await migrateToLatest(db);
    expect(await keyColumns('response_cache_pkey')).toBe('PRIMARY KEY (entity_id, org_id, cache_key)');
  });
});
