// Migration 0023 on a database holding model API keys from before keys were bound to their rows:
// each is sealed again to its row, provider and endpoint origin, or the migration fails naming why.
import { randomBytes, randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterEach, describe, expect, it } from 'vitest';
import {
  assertSchemaCurrent,
  createDb,
  type Database,
  encryptSecret,
  MIGRATIONS,
  MigrationError,
  migrateToLatest,
  openLlmKey,
  SecretKeyError,
  sealLlmKey,
} from '../src/index.ts';
import { createTestDatabase, type TestDatabase } from '../src/testing.ts';

const THIS = '0023_reseal_llm_keys';
const secretKey = randomBytes(32);
const hexKey = secretKey.toString('hex');
const open: { testDb: TestDatabase; db: Kysely<Database> }[] = [];

afterEach(async () => {
  for (const { testDb, db } of open.splice(0)) {
    await db.destroy();
    await testDb.drop();
  }
});

/** A fresh database migrated up to, not including, 0023. */
async function databaseBefore(): Promise<Kysely<Database>> {
  const testDb = await createTestDatabase();
  const db = createDb(testDb.url, { max: 2 });
  open.push({ testDb, db });
  const before = Object.keys(MIGRATIONS).filter((name) => name !== THIS);
  const { error } = await new Migrator({
    db,
    provider: { getMigrations: async () => Object.fromEntries(before.map((n) => [n, MIGRATIONS[n]!])) },
    allowUnorderedMigrations: true,
  }).migrateToLatest();
  if (error) throw error;
  return db;
}

interface Planted {
  id: string;
  provider: string;
  endpoint: string;
  apiKey: string | null;
  stored: string | null;
}

async function plant(
  db: Kysely<Database>,
  row: { provider: string; endpoint: string; apiKey: string | null },
  seal: (id: string, apiKey: string) => string,
): Promise<Planted> {
  const { id } = await db
    .insertInto('llm_configs')
    .values({
      name: `m-${randomBytes(6).toString('hex')}`,
      provider: row.provider,
      model: 'm',
      endpoint: row.endpoint,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const stored = row.apiKey === null ? null : seal(String(id), row.apiKey);
  await db.updateTable('llm_configs').set({ api_key_encrypted: stored }).where('id', '=', id).execute();
  return { id: String(id), provider: row.provider, endpoint: row.endpoint, apiKey: row.apiKey, stored };
}

const legacy = (_id: string, apiKey: string) => encryptSecret(secretKey, apiKey);

async function storedKeys(db: Kysely<Database>): Promise<Map<string, string | null>> {
  const rows = await db.selectFrom('llm_configs').select(['id', 'api_key_encrypted']).execute();
  return new Map(rows.map((r) => [String(r.id), r.api_key_encrypted]));
}

/** Real-world endpoints, each with the provider that serves it. */
const ENDPOINTS: readonly [string, string][] = [
  ['openai', 'https://api.openai.com/v1'],
  ['azure', 'https://example-resource.openai.azure.com/openai/v1/'],
  ['openai', 'https://openrouter.ai/api/v1'],
  ['openai', 'http://127.0.0.1:11434/v1'],
  ['openai', 'https://models.example.com:8443/v1'],
  ['groq', 'https://api.groq.com/openai/v1'],
];

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/=+ कखग€😀';
const generatedKey = () =>
  Array.from({ length: randomInt(1, 200) }, () => [...ALPHABET][randomInt([...ALPHABET].length)]).join('');

describe('migration 0023: legacy model keys sealed to their rows', () => {
  it('seals every legacy key so it opens in its own row only, leaving bound and absent keys as they are', async () => {
    const db = await databaseBefore();
    const legacyRows: Planted[] = [];
    for (const [provider, endpoint] of ENDPOINTS) {
      legacyRows.push(
        await plant(db, { provider, endpoint, apiKey: `sk-${randomBytes(8).toString('hex')}` }, legacy),
      );
    }
    for (let i = 0; i < 40; i += 1) {
      const [provider, endpoint] = ENDPOINTS[randomInt(ENDPOINTS.length)]!;
      legacyRows.push(await plant(db, { provider, endpoint, apiKey: generatedKey() }, legacy));
    }
    const bound = await plant(
      db,
      { provider: 'openai', endpoint: 'https://api.openai.com/v1', apiKey: 'sk-bound' },
      (id, k) => sealLlmKey(secretKey, { id, provider: 'openai', endpoint: 'https://api.openai.com/v1' }, k),
    );
    const keyless = await plant(
      db,
      { provider: 'openai', endpoint: 'http://127.0.0.1:11434/v1', apiKey: null },
      legacy,
    );

    await migrateToLatest(db, { llmConfigKey: hexKey });
    await assertSchemaCurrent(db);

    const after = await storedKeys(db);
    expect(after.get(bound.id)).toBe(bound.stored);
    expect(after.get(keyless.id)).toBeNull();
    for (const [i, row] of legacyRows.entries()) {
      const stored = after.get(row.id) ?? '';
      expect(stored.startsWith('v2:')).toBe(true);
      expect(openLlmKey(secretKey, row, stored)).toBe(row.apiKey);
      // The same ciphertext presented for another row, provider or origin does not open.
      const other = legacyRows[(i + 1) % legacyRows.length]!;
      for (const elsewhere of [
        { ...row, id: other.id },
        { ...row, provider: `${row.provider}-other` },
        { ...row, endpoint: 'https://attacker.example/v1' },
      ]) {
        expect(() => openLlmKey(secretKey, elsewhere, stored)).toThrow(SecretKeyError);
      }
    }
  });

  it('refuses, after the migration, a legacy ciphertext written into a row and a key copied from another row', async () => {
    const db = await databaseBefore();
    const a = await plant(
      db,
      { provider: 'openai', endpoint: 'https://api.openai.com/v1', apiKey: 'sk-a' },
      legacy,
    );
    const b = await plant(
      db,
      { provider: 'azure', endpoint: 'https://r.openai.azure.com/openai/v1/', apiKey: 'sk-b' },
      legacy,
    );
    await migrateToLatest(db, { llmConfigKey: hexKey });

    const replayed = encryptSecret(secretKey, 'sk-a');
    await db
      .updateTable('llm_configs')
      .set({ api_key_encrypted: replayed })
      .where('id', '=', Number(a.id))
      .execute();
    const copied = (await storedKeys(db)).get(b.id) ?? '';
    const rowA = await db
      .selectFrom('llm_configs')
      .select(['id', 'provider', 'endpoint', 'api_key_encrypted'])
      .where('id', '=', Number(a.id))
      .executeTakeFirstOrThrow();
    expect(() => openLlmKey(secretKey, rowA, rowA.api_key_encrypted ?? '')).toThrow(
      /stored without associated data, so it is refused/,
    );
    expect(() => openLlmKey(secretKey, rowA, copied)).toThrow(SecretKeyError);
    // A later run of the migrations does not take the planted legacy ciphertext back in.
    await migrateToLatest(db, { llmConfigKey: hexKey });
    expect((await storedKeys(db)).get(a.id)).toBe(replayed);
  });

  it('without LLM_CONFIG_KEY fails naming the variable and the rows, changing nothing until it is given', async () => {
    const db = await databaseBefore();
    const row = await plant(
      db,
      { provider: 'openai', endpoint: 'https://api.openai.com/v1', apiKey: 'sk-x' },
      legacy,
    );
    const error = await migrateToLatest(db).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toContain(THIS);
    expect((error as Error).message).toContain('LLM_CONFIG_KEY');
    expect((error as Error).message).toContain(`rows ${row.id} `);
    expect((await storedKeys(db)).get(row.id)).toBe(row.stored);
    await expect(assertSchemaCurrent(db)).rejects.toThrow(THIS);

    await migrateToLatest(db, { llmConfigKey: secretKey.toString('base64') });
    expect(openLlmKey(secretKey, row, (await storedKeys(db)).get(row.id) ?? '')).toBe('sk-x');
  });

  it('fails naming the rows the given key does not open, and a malformed key, changing nothing', async () => {
    const db = await databaseBefore();
    const readable = await plant(
      db,
      { provider: 'openai', endpoint: 'https://api.openai.com/v1', apiKey: 'sk-r' },
      legacy,
    );
    const foreign = await plant(
      db,
      { provider: 'openai', endpoint: 'https://api.openai.com/v1', apiKey: 'sk-f' },
      (_id, k) => encryptSecret(randomBytes(32), k),
    );
    const error = await migrateToLatest(db, { llmConfigKey: hexKey }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toContain(
      `does not open the model API keys of llm_configs rows ${foreign.id};`,
    );
    expect(
      await migrateToLatest(db, { llmConfigKey: 'not-a-key' }).catch((e: unknown) => (e as Error).message),
    ).toContain('LLM_CONFIG_KEY must be 32 bytes');
    const after = await storedKeys(db);
    expect(after.get(readable.id)).toBe(readable.stored);
    expect(after.get(foreign.id)).toBe(foreign.stored);
  });

  it('needs no key when no legacy key is stored', async () => {
    const db = await databaseBefore();
    await plant(db, { provider: 'openai', endpoint: 'https://api.openai.com/v1', apiKey: 'sk-b' }, (id, k) =>
      sealLlmKey(secretKey, { id, provider: 'openai', endpoint: 'https://api.openai.com/v1' }, k),
    );
    await migrateToLatest(db);
    await assertSchemaCurrent(db);
  });
});
