import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDb,
  type Database,
  MIGRATIONS,
  MigrationError,
  MORE_INTENTS,
  migrateToLatest,
  pingDb,
  STARTER_INTENTS,
  TABLE_NAMES,
} from '../src/index.ts';
import { createTestDatabase, type TestDatabase } from '../src/testing.ts';

const databases: TestDatabase[] = [];
const handles: Kysely<Database>[] = [];

async function freshDb(): Promise<{ db: Kysely<Database>; testDb: TestDatabase }> {
  const testDb = await createTestDatabase();
  databases.push(testDb);
  const db = createDb(testDb.url, { max: 4 });
  handles.push(db);
  return { db, testDb };
}

async function publicTables(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = 'public' order by table_name`.execute(
    db,
  );
  return rows.map((r) => r.table_name);
}

async function appliedMigrations(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((r) => r.name);
}

let db: Kysely<Database>;

beforeAll(async () => {
  ({ db } = await freshDb());
  await migrateToLatest(db);
});

afterAll(async () => {
  for (const handle of handles) await handle.destroy();
  for (const testDb of databases) await testDb.drop();
});

describe('migrateToLatest', () => {
  it('creates every table and records every migration', async () => {
    const tables = await publicTables(db);
    for (const table of TABLE_NAMES) expect(tables).toContain(table);
    expect(TABLE_NAMES).toEqual(
      expect.arrayContaining([
        'query_routing_logs',
        'request_events',
        'intents',
        'tool_registry',
        'unified_conversations',
        'llm_usage_logs',
        'feedback_log',
        'response_cache',
        'intent_routing_stats',
      ]),
    );
    expect(await appliedMigrations(db)).toEqual(Object.keys(MIGRATIONS).sort());
  });

  it("creates the indexes the pipeline debugger's query needs", async () => {
    const { rows } = await sql<{ indexdef: string }>`
      select indexdef from pg_indexes where tablename = 'query_routing_logs'`.execute(db);
    const defs = rows.map((r) => r.indexdef);
    expect(defs.some((d) => /USING gin \(guardrails_triggered\)/.test(d))).toBe(true);
    expect(defs.some((d) => /\(created_at DESC\)/.test(d))).toBe(true);
    expect(defs.some((d) => /\(entity_id, created_at\)/.test(d))).toBe(true);
  });

  it('is idempotent: running it again changes nothing', async () => {
    const before = await db.selectFrom('intents').select(['id', 'updated_at']).orderBy('id').execute();
    await migrateToLatest(db);
    await migrateToLatest(db);
    expect(await appliedMigrations(db)).toEqual(Object.keys(MIGRATIONS).sort());
    expect(await db.selectFrom('intents').select(['id', 'updated_at']).orderBy('id').execute()).toEqual(
      before,
    );
  });

  it('is safe when two instances migrate the same fresh database at once', async () => {
    const { db: first, testDb } = await freshDb();
    const second = createDb(testDb.url, { max: 4 });
    handles.push(second);
    await Promise.all([migrateToLatest(first), migrateToLatest(second), migrateToLatest(first)]);
    expect(await appliedMigrations(first)).toEqual(Object.keys(MIGRATIONS).sort());
    const tables = await publicTables(second);
    for (const table of TABLE_NAMES) expect(tables).toContain(table);
    const { count } = await first
      .selectFrom('intents')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    expect(count).toBe(STARTER_INTENTS.length + MORE_INTENTS.length);
  });

  it('throws a MigrationError naming the failed migration, with the cause', async () => {
    const { db: broken } = await freshDb();
    await sql`create table request_events (id int)`.execute(broken);
    const error = await migrateToLatest(broken).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).message).toContain('0001_initial');
    expect(String((error as MigrationError).cause)).toMatch(/request_events.*already exists/);
    // The failed migration ran in a transaction: nothing of it is left behind.
    expect(await publicTables(broken)).not.toContain('query_routing_logs');
  });
});

describe('starter intents', () => {
  const requiredTools = [
    'get_all_invoices',
    'get_aged_receivables_report',
    'get_bills',
    'get_aged_payables_report',
    'get_all_payments',
    'get_all_customers',
    'get_all_vendors',
    'get_charts_of_accounts',
    'get_profit_loss',
    'get_balance_sheet',
    'get_cash_flow_statement',
    'get_gst_summary',
  ];

  it('are seeded with their phrases and resolution flows', async () => {
    const rows = await db.selectFrom('intents').selectAll().orderBy('id').execute();
    expect(rows.map((r) => r.id)).toEqual([...STARTER_INTENTS, ...MORE_INTENTS].map((i) => i.id).sort());
    for (const intent of STARTER_INTENTS) {
      const row = rows.find((r) => r.id === intent.id)!;
      expect(row.name).toBe(intent.name);
      expect(row.module_id).toBe(intent.moduleId);
      expect(row.is_active).toBe(true);
      expect(row.response_format).toBe(intent.responseFormat);
      expect(row.training_phrases).toEqual([...intent.trainingPhrases, ...intent.hinglishPhrases]);
      expect(row.resolution_flow).toEqual(intent.resolutionFlow);
      expect(row.entities).toEqual([]);
    }
    const tools = rows.flatMap((r) => r.resolution_flow.map((s) => s.tool));
    expect(tools).toEqual(expect.arrayContaining(requiredTools));
  });

  it('have 4–8 English and 2–3 Hinglish phrases, args {} and valid formats', () => {
    for (const intent of STARTER_INTENTS) {
      expect(intent.trainingPhrases.length, intent.name).toBeGreaterThanOrEqual(4);
      expect(intent.trainingPhrases.length, intent.name).toBeLessThanOrEqual(8);
      expect(intent.hinglishPhrases.length, intent.name).toBeGreaterThanOrEqual(2);
      expect(intent.hinglishPhrases.length, intent.name).toBeLessThanOrEqual(3);
      expect(['table', 'report']).toContain(intent.responseFormat);
      for (const s of intent.resolutionFlow) expect(s.args).toEqual({});
    }
    expect(STARTER_INTENTS.flatMap((i) => i.trainingPhrases)).toEqual(
      expect.arrayContaining(['show all invoices', 'list invoices', 'list all invoices', 'show my invoices']),
    );
    expect(STARTER_INTENTS.flatMap((i) => i.hinglishPhrases)).toEqual(
      expect.arrayContaining(['sabhi invoice dikhao', 'invoice list dikhao']),
    );
  });

  it('never share a phrase, nor contain another intent’s phrase (the router matches substrings)', () => {
    const phrases = STARTER_INTENTS.flatMap((intent) =>
      [...intent.trainingPhrases, ...intent.hinglishPhrases].map((p) => ({
        intent: intent.name,
        p: p.toLowerCase(),
      })),
    );
    const clashes = phrases.flatMap((a) =>
      phrases.filter((b) => a.intent !== b.intent && b.p.includes(a.p)).map((b) => `${a.p} ⊂ ${b.p}`),
    );
    expect(clashes).toEqual([]);
  });
});

describe('createDb', () => {
  it('reads bigint, numeric, jsonb and text[] columns as JS values', async () => {
    await db
      .insertInto('intent_routing_stats')
      .values({ intent_id: 'intent_list_invoices', confidence_bucket: 0.85, total_attempts: 3 })
      .execute();
    const stats = await db.selectFrom('intent_routing_stats').selectAll().executeTakeFirstOrThrow();
    expect(stats.confidence_bucket).toBe(0.85);
    expect(stats.total_attempts).toBe(3);

    const usage = await db
      .insertInto('llm_usage_logs')
      .values({ model: 'm', input_tokens: 1, output_tokens: 2, total_tokens: 3 })
      .returning(['id', 'section', 'status', 'created_at'])
      .executeTakeFirstOrThrow();
    expect(typeof usage.id).toBe('number');
    expect(usage).toMatchObject({ section: 'chat', status: 'success' });
    expect(usage.created_at).toBeInstanceOf(Date);

    await db
      .insertInto('query_routing_logs')
      .values({
        request_id: 'r1',
        entity_id: 'e1',
        org_id: 'o1',
        conversation_id: 'c1',
        created_at: '2026-01-01T00:00:00.000Z',
        guardrails_triggered: ['write_preflight_block'],
        write_tool_results: JSON.stringify([{ tool: 'create_payment', validation_status: 'blocked' }]),
      })
      .execute();
    const row = await db
      .selectFrom('query_routing_logs')
      .selectAll()
      .where(sql<boolean>`${'write_preflight_block'} = any(guardrails_triggered)`)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      request_id: 'r1',
      status: 'running',
      is_write_operation: false,
      tools_used: [],
      guardrails_triggered: ['write_preflight_block'],
      write_tool_results: [{ tool: 'create_payment', validation_status: 'blocked' }],
    });
    expect(row.created_at.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('pingDb tells a reachable database from an unreachable one', async () => {
    expect(await pingDb(db)).toBe(true);
    const nowhere = createDb('postgres://postgres@127.0.0.1:1/postgres', {
      max: 1,
      connectionTimeoutMs: 1000,
    });
    try {
      expect(await pingDb(nowhere)).toBe(false);
    } finally {
      await nowhere.destroy();
    }
  });
});

describe('createTestDatabase', () => {
  it('drops the database even while connections are open', async () => {
    const testDb = await createTestDatabase();
    const open = createDb(testDb.url, { max: 1 });
    expect(await pingDb(open)).toBe(true);
    await testDb.drop();
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from pg_database where datname = ${testDb.name}`.execute(db);
    expect(rows[0]?.n).toBe(0);
    await open.destroy();
  });
});
