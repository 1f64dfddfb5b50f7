import type { Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database, hashApiKey, People, PeopleError } from '../src/index.ts';
import { createMigratedTestDatabase, serviceLoginUrls, type TestDatabase } from '../src/testing.ts';

/**
 * People on a real PostgreSQL, as the gateway's own role keeps them: users per org with roles per
 * entity, API keys kept only as hashes, every lookup bounded by the org that asks.
 */
let database: TestDatabase;
let gateway: Kysely<Database>;
let owner: pg.Pool;
let people: People;

beforeAll(async () => {
  database = await createMigratedTestDatabase();
  const urls = await serviceLoginUrls(database);
  gateway = createDb(urls.gateway, { max: 2 });
  owner = new pg.Pool({ connectionString: database.url, max: 1 });
  people = new People(gateway);
});

afterAll(async () => {
  await gateway?.destroy();
  await owner?.end();
  await database?.drop();
});

describe('people of an org', () => {
  it('keeps a user with roles per entity, and shows them only to that org', async () => {
    const made = await people.create(
      'org-a',
      {
        name: 'Priya Sharma',
        email: 'priya@example.in',
        phone: '+919812345678',
        roles: [
          { entityId: 'ent-1', role: 'maker' },
          { entityId: 'ent-2', role: 'approver' },
        ],
      },
      'admin-1',
    );
    expect(made).toMatchObject({
      orgId: 'org-a',
      name: 'Priya Sharma',
      phone: '+919812345678',
      disabled: false,
      createdBy: 'admin-1',
      roles: [
        { entityId: 'ent-1', role: 'maker' },
        { entityId: 'ent-2', role: 'approver' },
      ],
    });
    expect(await people.get('org-b', made.userId)).toBeUndefined();
    expect((await people.list('org-b')).map((p) => p.userId)).not.toContain(made.userId);
    await expect(people.setRoles('org-b', made.userId, [], 'x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const changed = await people.setRoles(
      'org-a',
      made.userId,
      [{ entityId: 'ent-1', role: 'owner' }],
      'admin-1',
    );
    expect(changed.roles).toEqual([{ entityId: 'ent-1', role: 'owner' }]);
  });

  it('refuses bad input, naming the field, and changes nothing', async () => {
    const before = (await people.list('org-c')).length;
    const cases: [Parameters<People['create']>[1], RegExp][] = [
      [{ name: ' ', roles: [] }, /^name: /],
      [{ name: 'A', email: 'not-an-email', roles: [] }, /^email: /],
      [{ name: 'A', phone: '98123 45678', roles: [] }, /^phone: .*E\.164/],
      [{ name: 'A', phone: '+0123456789', roles: [] }, /^phone: /],
      [
        { name: 'A', roles: [{ entityId: 'e', role: 'superuser' as never }] },
        /^roles: "superuser" is not one of/,
      ],
      [{ name: 'A', roles: [{ entityId: '', role: 'viewer' }] }, /^roles: /],
    ];
    for (const [input, message] of cases) {
      const error = await people.create('org-c', input, 'admin').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PeopleError);
      expect((error as PeopleError).code).toBe('INVALID_INPUT');
      expect((error as Error).message).toMatch(message);
    }
    await people.create('org-c', { name: 'Ravi', email: 'Ravi@Example.in', roles: [] }, 'admin');
    await expect(
      people.create('org-c', { name: 'Ravi again', email: 'ravi@example.in', roles: [] }, 'admin'),
    ).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/^email: /) });
    // Another org may have its own Ravi.
    await people.create('org-d', { name: 'Ravi', email: 'ravi@example.in', roles: [] }, 'admin');
    expect(await people.list('org-c')).toHaveLength(before + 1);
  });
});

describe('API keys', () => {
  it('are shown once, kept only as a hash, and name their user and roles', async () => {
    const user = await people.create(
      'org-k',
      { name: 'Meera', roles: [{ entityId: 'ent-9', role: 'maker' }] },
      'admin',
    );
    const { key, keyId, prefix } = await people.issueKey('org-k', user.userId, {
      label: 'laptop',
      by: 'admin',
    });
    expect(key.startsWith(prefix)).toBe(true);
    expect(key.length).toBeGreaterThan(40);
    const stored = await owner.query('select * from api_keys where id = $1', [keyId]);
    expect(JSON.stringify(stored.rows)).not.toContain(key.slice(prefix.length));
    expect(stored.rows[0].key_hash).toBe(hashApiKey(key));
    expect(await people.authenticate(key)).toEqual({
      keyId,
      kind: 'person',
      userId: user.userId,
      orgId: 'org-k',
      name: 'Meera',
      roles: [{ entityId: 'ent-9', role: 'maker' }],
    });
    expect(await people.keys('org-k', user.userId)).toEqual([
      expect.objectContaining({
        keyId,
        prefix,
        label: 'laptop',
        revokedAt: null,
        lastUsedAt: expect.any(String),
      }),
    ]);
  });

  it('stop working when revoked or when their user is disabled, and only their org can revoke them', async () => {
    const user = await people.create(
      'org-r',
      { name: 'Arjun', roles: [{ entityId: 'e', role: 'viewer' }] },
      'admin',
    );
    const first = await people.issueKey('org-r', user.userId, { by: 'admin' });
    const second = await people.issueKey('org-r', user.userId, { by: 'admin' });
    expect(await people.revokeKey('org-other', first.keyId)).toBe(false);
    expect(await people.authenticate(first.key)).toBeDefined();
    expect(await people.revokeKey('org-r', first.keyId)).toBe(true);
    expect(await people.revokeKey('org-r', first.keyId)).toBe(false);
    expect(await people.authenticate(first.key)).toBeUndefined();
    expect(await people.authenticate(second.key)).toBeDefined();
    await people.disable('org-r', user.userId);
    expect(await people.authenticate(second.key)).toBeUndefined();
    for (const guess of ['', 'munim_', `${second.key}x`, second.key.slice(0, -1), hashApiKey(second.key)])
      expect(await people.authenticate(guess), guess).toBeUndefined();
  });
});
