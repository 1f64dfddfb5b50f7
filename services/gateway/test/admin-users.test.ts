// The admin API of people: users per org with roles per entity, and their API keys, shown once and
// kept only as hashes; every change names the admin who made it, bad input is named, and a user
// of one org is never reached through another. The gateway runs on its own database role.
import { createHash } from 'node:crypto';
import { createDb, type Database } from '@munim/db';
import { type FixtureNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { startGateway } from './helpers.ts';

let testBus: FixtureNats;
const ADMIN_KEY = 'admin-key-users-000000001';
const TENANT_KEY = 'tenant-key-users-00000001';
let db: Kysely<Database>;
let owner: pg.Pool;
let gateway: Gateway;
let url: string;

const headers = (key = ADMIN_KEY) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
const call = async (method: string, path: string, body?: unknown, key = ADMIN_KEY) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? { authorization: `Bearer ${key}` } : headers(key),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
};

test.beforeAll(async ({ nats, database, serviceLogins }) => {
  testBus = nats;
  db = createDb(serviceLogins.gateway, { max: 3 });
  owner = new pg.Pool({ connectionString: database.url, max: 1 });
  ({ gateway, url } = await startGateway(
    testBus,
    { GATEWAY_ADMIN_KEYS: ADMIN_KEY, GATEWAY_API_KEYS: `${TENANT_KEY}:ent-1:org-a` },
    db,
  ));
});

afterAll(async () => {
  try {
    await gateway?.stop();
  } finally {
    await db?.destroy();
    await owner?.end();
  }
});

describe('/v1/admin/users', () => {
  test('adds a user with roles per entity, lists it for its org only, and changes its roles', async () => {
    const made = await call('POST', '/v1/admin/users', {
      orgId: 'org-a',
      name: 'Priya Sharma',
      email: 'priya@example.in',
      phone: '+919812345678',
      roles: [
        { entityId: 'ent-1', role: 'maker' },
        { entityId: 'ent-2', role: 'approver' },
      ],
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ orgId: 'org-a', name: 'Priya Sharma', disabled: false });
    expect(made.body.createdBy).toMatch(/^admin:[0-9a-f]+$/);
    const { userId } = made.body;
    expect(
      (await call('GET', '/v1/admin/users?orgId=org-a')).body.users.map((u: { userId: string }) => u.userId),
    ).toContain(userId);
    expect((await call('GET', '/v1/admin/users?orgId=org-b')).body.users).toEqual([]);
    expect((await call('GET', `/v1/admin/users/${userId}?orgId=org-b`)).status).toBe(404);
    const roles = await call('PUT', `/v1/admin/users/${userId}/roles`, {
      orgId: 'org-a',
      roles: [{ entityId: 'ent-1', role: 'owner' }],
    });
    expect(roles.body.roles).toEqual([{ entityId: 'ent-1', role: 'owner' }]);
    expect((await call('PUT', `/v1/admin/users/${userId}/roles`, { orgId: 'org-b', roles: [] })).status).toBe(
      404,
    );
  });

  test('refuses bad input naming the field, and adds nothing', async () => {
    const bad: [unknown, string][] = [
      [{ orgId: 'org-c', name: '' }, 'name'],
      [{ orgId: 'org-c', name: 'A', phone: '98123 45678' }, 'phone'],
      [{ orgId: 'org-c', name: 'A', email: 'nope' }, 'email'],
      [{ orgId: 'org-c', name: 'A', roles: [{ entityId: 'e', role: 'superuser' }] }, 'roles.0.role'],
      [{ orgId: 'org-c', name: 'A', password: 'x' }, 'password'],
      [{ name: 'A' }, 'orgId'],
    ];
    for (const [body, field] of bad) {
      const res = await call('POST', '/v1/admin/users', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.field, JSON.stringify(body)).toBe(field);
    }
    await call('POST', '/v1/admin/users', { orgId: 'org-c', name: 'Ravi', email: 'ravi@example.in' });
    const twice = await call('POST', '/v1/admin/users', {
      orgId: 'org-c',
      name: 'Ravi 2',
      email: 'RAVI@example.in',
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toMatch(/^email: /);
    expect((await call('GET', '/v1/admin/users?orgId=org-c')).body.users).toHaveLength(1);
  });

  test('shows a key once, keeps only its hash, and revokes it for its own user and org only', async () => {
    const { userId } = (await call('POST', '/v1/admin/users', { orgId: 'org-k', name: 'Meera' })).body;
    const made = await call('POST', `/v1/admin/users/${userId}/keys`, { orgId: 'org-k', label: 'laptop' });
    expect(made.status).toBe(201);
    expect(made.headers.get('cache-control')).toBe('no-store');
    const { key, keyId, prefix } = made.body;
    expect(key.startsWith(prefix)).toBe(true);
    const stored = await owner.query('select * from api_keys where id = $1', [keyId]);
    expect(stored.rows[0].key_hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(stored.rows)).not.toContain(key.slice(prefix.length));
    const listed = await call('GET', `/v1/admin/users/${userId}/keys?orgId=org-k`);
    expect(listed.body.keys).toEqual([
      expect.objectContaining({ keyId, prefix, label: 'laptop', revokedAt: null }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(key.slice(prefix.length));
    // Another org's admin path, or another user, cannot reach it.
    expect((await call('DELETE', `/v1/admin/users/${userId}/keys/${keyId}?orgId=org-x`)).status).toBe(404);
    const other = (await call('POST', '/v1/admin/users', { orgId: 'org-k', name: 'Arjun' })).body.userId;
    expect((await call('DELETE', `/v1/admin/users/${other}/keys/${keyId}?orgId=org-k`)).status).toBe(404);
    expect((await call('DELETE', `/v1/admin/users/${userId}/keys/${keyId}?orgId=org-k`)).status).toBe(204);
    expect((await call('DELETE', `/v1/admin/users/${userId}/keys/${keyId}?orgId=org-k`)).status).toBe(404);
    const after = await call('GET', `/v1/admin/users/${userId}/keys?orgId=org-k`);
    expect(after.body.keys[0].revokedAt).toEqual(expect.any(String));
  });

  test('is for admins only: a tenant key gets 403 and nothing changes', async () => {
    const before = (await owner.query('select count(*)::int as n from users')).rows[0].n;
    for (const [method, path, body] of [
      ['GET', '/v1/admin/users?orgId=org-a', undefined],
      ['POST', '/v1/admin/users', { orgId: 'org-a', name: 'Sneaky' }],
    ] as const) {
      expect((await call(method, path, body, TENANT_KEY)).status).toBe(403);
    }
    expect((await owner.query('select count(*)::int as n from users')).rows[0].n).toBe(before);
  });
});
