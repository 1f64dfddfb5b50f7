import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDb,
  type Database,
  decryptSecret,
  encryptSecret,
  migrateToLatest,
  openLlmKey,
  resealUnboundLlmKeys,
  SecretKeyError,
  sealLlmKey,
} from '../src/index.ts';
import { createTestDatabase, type TestDatabase } from '../src/testing.ts';

const secretKey = randomBytes(32);
let testDb: TestDatabase;
let db: Kysely<Database>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.url, { max: 2 });
  await migrateToLatest(db);
});

afterAll(async () => {
  await db?.destroy();
  await testDb?.drop();
});

describe('secrets bound to associated data', () => {
  it('opens only with the associated data it was sealed with', () => {
    const stored = encryptSecret(secretKey, 'sk-bound', 'row 1');
    expect(stored.startsWith('v2:')).toBe(true);
    expect(decryptSecret(secretKey, stored, 'row 1')).toBe('sk-bound');
    expect(() => decryptSecret(secretKey, stored, 'row 2')).toThrow(SecretKeyError);
    expect(() => decryptSecret(secretKey, stored)).toThrow(SecretKeyError);
    // A v1 secret, written before, opens whatever associated data the reader gives.
    expect(decryptSecret(secretKey, encryptSecret(secretKey, 'sk-old'), 'row 1')).toBe('sk-old');
  });
});

describe('llm_configs keys', () => {
  const owner = { id: 7, provider: 'openai', endpoint: 'https://models.example.com/v1' };

  it('binds a key to its row, provider and endpoint origin (not the path)', () => {
    const stored = sealLlmKey(secretKey, owner, 'sk-7');
    expect(openLlmKey(secretKey, owner, stored)).toBe('sk-7');
    expect(openLlmKey(secretKey, { ...owner, endpoint: 'https://models.example.com/v2/' }, stored)).toBe(
      'sk-7',
    );
    for (const other of [
      { ...owner, id: 8 },
      { ...owner, provider: 'azure' },
      { ...owner, endpoint: 'https://attacker.example/v1' },
      { ...owner, endpoint: 'https://models.example.com:8443/v1' },
    ]) {
      expect(() => openLlmKey(secretKey, other, stored)).toThrow(SecretKeyError);
    }
  });

  it('seals the keys stored before keys were bound, leaving the rest as they are', async () => {
    const insert = async (name: string, api_key_encrypted: string | null) =>
      db
        .insertInto('llm_configs')
        .values({
          name,
          provider: 'openai',
          model: 'm',
          endpoint: `https://${name}.example/v1`,
          api_key_encrypted,
        })
        .returning(['id', 'provider', 'endpoint'])
        .executeTakeFirstOrThrow();
    const legacy = await insert('legacy', encryptSecret(secretKey, 'sk-legacy'));
    const foreign = await insert('foreign', encryptSecret(randomBytes(32), 'sk-foreign'));
    const keyless = await insert('keyless', null);
    const bound = await insert('bound', null);
    const boundKey = sealLlmKey(secretKey, bound, 'sk-bound');
    await db
      .updateTable('llm_configs')
      .set({ api_key_encrypted: boundKey })
      .where('id', '=', bound.id)
      .execute();

    expect(await resealUnboundLlmKeys(db, secretKey)).toEqual({ sealed: 1, unreadable: 1 });
    const rows = new Map(
      (await db.selectFrom('llm_configs').select(['id', 'api_key_encrypted']).execute()).map((r) => [
        r.id,
        r.api_key_encrypted,
      ]),
    );
    const resealed = rows.get(legacy.id) ?? '';
    expect(resealed.startsWith('v2:')).toBe(true);
    expect(openLlmKey(secretKey, legacy, resealed)).toBe('sk-legacy');
    expect(() => openLlmKey(secretKey, foreign, resealed)).toThrow(SecretKeyError);
    expect(rows.get(foreign.id)?.startsWith('v1:')).toBe(true);
    expect(rows.get(keyless.id)).toBeNull();
    expect(rows.get(bound.id)).toBe(boundKey);
    // Nothing left to do on the next run.
    expect(await resealUnboundLlmKeys(db, secretKey)).toEqual({ sealed: 0, unreadable: 1 });
  });
});
