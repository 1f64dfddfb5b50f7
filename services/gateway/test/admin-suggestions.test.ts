import type { Database } from '@munim/db';
import { type FixtureNats, test } from '@munim/testkit';
import { SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { startGateway } from './helpers.ts';

let testBus: FixtureNats;
const SECRET = 'a-test-secret-of-at-least-32-characters!';
const ADMIN_KEY = 'admin-key-0123456789abcdef';
const TENANT_KEY = 'tenant-key-0123456789abcdef';
/** Another org with the same entity id as TENANT_KEY's. */
const TENANT_B_KEY = 'tenant-b-key-0123456789abcdef';
let db: Kysely<Database>;
let gateway: Gateway;
let url: string;
let open: { gateway: Gateway; url: string };

const token = (claims: Record<string, unknown>) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('someone')
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));
const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });
const json = (credential: string) => ({ ...bearer(credential), 'content-type': 'application/json' });

test.beforeAll(async ({ nats, db: fileDb }) => {
  testBus = nats;
  db = fileDb;
  ({ gateway, url } = await startGateway(
    testBus,
    {
      GATEWAY_API_KEYS: `${TENANT_KEY}:ent-a:org-a,${TENANT_B_KEY}:ent-a:org-b`,
      GATEWAY_ADMIN_KEYS: ` ${ADMIN_KEY} ,`,
      GATEWAY_JWT_SECRET: SECRET,
    },
    db,
  ));
  open = await startGateway(testBus, {}, db);
});

afterAll(async () => {
  await gateway?.stop();
  await open?.gateway.stop();
});

/** The admin URL of a tenant's suggestions (or one of them): the entity in the path, the org in the query. */
const suggestionsUrl = (entityId: string, orgId = 'org-a', id?: number) =>
  `${url}/v1/admin/entities/${entityId}/suggestions${id === undefined ? '' : `/${id}`}?orgId=${orgId}`;

describe('admin access', () => {
  test('refuses a tenant key, a tenant token and a token of another role with 403, and changes nothing', async () => {
    const credentials = [
      TENANT_KEY,
      await token({ entity_id: 'ent-a', org_id: 'org-a' }),
      await token({ entity_id: 'ent-a', org_id: 'org-a', roles: ['viewer'], role: 'accountant' }),
    ];
    for (const credential of credentials) {
      const created = await fetch(suggestionsUrl('ent-a'), {
        method: 'POST',
        headers: json(credential),
        body: JSON.stringify({ text: 'sneaky' }),
      });
      expect(created.status).toBe(403);
      expect(await created.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
      const analytics = await fetch(`${url}/v1/admin/analytics`, { headers: bearer(credential) });
      expect(analytics.status).toBe(403);
    }
    expect(await db.selectFrom('quick_suggestions').selectAll().execute()).toEqual([]);
  });

  test('refuses no or a wrong credential with 401', async () => {
    expect((await fetch(suggestionsUrl('ent-a'))).status).toBe(401);
    expect((await fetch(suggestionsUrl('ent-a'), { headers: bearer('admin-key-wrong-000000') })).status).toBe(
      401,
    );
  });

  test('admits an admin key, a token with the admin role (roles or role claim) without a tenant', async () => {
    const credentials = [
      ADMIN_KEY,
      await token({ roles: ['viewer', 'admin'] }),
      await token({ role: 'admin', entity_id: 'ent-a', org_id: 'org-a' }),
    ];
    for (const credential of credentials) {
      const response = await fetch(suggestionsUrl('ent-x'), { headers: bearer(credential) });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ suggestions: [] });
    }
  });

  test('refuses a token with neither tenant nor admin role', async () => {
    const response = await fetch(suggestionsUrl('ent-a'), { headers: bearer(await token({ roles: ['x'] })) });
    expect(response.status).toBe(401);
  });
});

describe('quick suggestions', () => {
  test('falls back to one training phrase of each active intent when an entity has none', async () => {
    const response = await fetch(`${url}/v1/suggestions`, { headers: bearer(TENANT_KEY) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { source: string; suggestions: { text: string }[] };
    expect(body.source).toBe('intents');
    const active = await db
      .selectFrom('intents')
      .select(['name', 'training_phrases'])
      .where('is_active', '=', true)
      .orderBy('name')
      .execute();
    expect(body.suggestions.length).toBe(Math.min(8, active.length));
    expect(body.suggestions[0]?.text).toBe(active[0]?.training_phrases[0]);
  });

  test('creates, lists, edits, deactivates and deletes an entity’s suggestions, served in order', async () => {
    const create = async (text: string, sortOrder: number) => {
      const response = await fetch(suggestionsUrl('ent-a'), {
        method: 'POST',
        headers: json(ADMIN_KEY),
        body: JSON.stringify({ text, sortOrder }),
      });
      expect(response.status).toBe(201);
      return (await response.json()) as { id: number; text: string; isActive: boolean };
    };
    const second = await create('Show overdue invoices', 2);
    const first = await create('What is my cash position?', 1);
    const third = await create('Top customers this quarter', 3);
    // Another entity's suggestion is never served to ent-a.
    await fetch(suggestionsUrl('ent-b', 'org-b'), {
      method: 'POST',
      headers: json(ADMIN_KEY),
      body: JSON.stringify({ text: 'Other entity' }),
    });

    const served = async () =>
      (await (await fetch(`${url}/v1/suggestions`, { headers: bearer(TENANT_KEY) })).json()) as {
        source: string;
        suggestions: { text: string }[];
      };
    expect(await served()).toEqual({
      source: 'configured',
      suggestions: [
        { text: 'What is my cash position?' },
        { text: 'Show overdue invoices' },
        { text: 'Top customers this quarter' },
      ],
    });

    const edit = await fetch(suggestionsUrl('ent-a', 'org-a', second.id), {
      method: 'PATCH',
      headers: json(ADMIN_KEY),
      body: JSON.stringify({ text: 'Overdue invoices, please', sortOrder: 0 }),
    });
    expect(edit.status).toBe(200);
    expect(await edit.json()).toMatchObject({
      id: second.id,
      text: 'Overdue invoices, please',
      sortOrder: 0,
    });
    const off = await fetch(suggestionsUrl('ent-a', 'org-a', third.id), {
      method: 'PATCH',
      headers: json(ADMIN_KEY),
      body: JSON.stringify({ isActive: false }),
    });
    expect(await off.json()).toMatchObject({ isActive: false });
    expect((await served()).suggestions).toEqual([
      { text: 'Overdue invoices, please' },
      { text: 'What is my cash position?' },
    ]);

    const listed = await fetch(suggestionsUrl('ent-a'), { headers: bearer(ADMIN_KEY) });
    expect(
      ((await listed.json()) as { suggestions: { text: string }[] }).suggestions.map((s) => s.text),
    ).toEqual(['Overdue invoices, please', 'What is my cash position?', 'Top customers this quarter']);

    const removed = await fetch(suggestionsUrl('ent-a', 'org-a', first.id), {
      method: 'DELETE',
      headers: bearer(ADMIN_KEY),
    });
    expect(removed.status).toBe(204);
    expect((await served()).suggestions).toEqual([{ text: 'Overdue invoices, please' }]);
    // Deleting it again, or through another entity, finds nothing.
    const again = await fetch(suggestionsUrl('ent-a', 'org-a', first.id), {
      method: 'DELETE',
      headers: bearer(ADMIN_KEY),
    });
    expect(again.status).toBe(404);
    const crossEntity = await fetch(suggestionsUrl('ent-b', 'org-b', second.id), {
      method: 'PATCH',
      headers: json(ADMIN_KEY),
      body: JSON.stringify({ text: 'hijack' }),
    });
    expect(crossEntity.status).toBe(404);
  });

  test('refuses bad bodies with 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ text: '' }, 'text'],
      [{ text: 'ok', extra: 1 }, 'extra'],
      [{ text: 'ok', sortOrder: 1.5 }, 'sortOrder'],
    ];
    for (const [body, field] of cases) {
      const response = await fetch(suggestionsUrl('ent-a'), {
        method: 'POST',
        headers: json(ADMIN_KEY),
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'BAD_REQUEST', field } });
    }
    const empty = await fetch(suggestionsUrl('ent-a', 'org-a', 1), {
      method: 'PATCH',
      headers: json(ADMIN_KEY),
      body: JSON.stringify({}),
    });
    expect(empty.status).toBe(400);
  });

  test('without auth serves the suggestions of the entity given, and admin stays closed', async () => {
    const response = await fetch(`${open.url}/v1/suggestions?entityId=ent-b&orgId=org-b`);
    expect(await response.json()).toEqual({ source: 'configured', suggestions: [{ text: 'Other entity' }] });
    expect((await fetch(`${open.url}/v1/suggestions`)).status).toBe(400);
    expect((await fetch(`${open.url}/v1/admin/entities/ent-b/suggestions?orgId=org-b`)).status).toBe(403);
  });
});

describe('quick suggestions of two orgs sharing an entity id', () => {
  const served = async (key: string) =>
    (
      (await (await fetch(`${url}/v1/suggestions`, { headers: bearer(key) })).json()) as {
        suggestions: { text: string }[];
      }
    ).suggestions.map((s) => s.text);

  test('serves, lists and changes each org’s own only', async () => {
    const before = await served(TENANT_KEY);
    const created = await fetch(suggestionsUrl('ent-a', 'org-b'), {
      method: 'POST',
      headers: json(ADMIN_KEY),
      body: JSON.stringify({ text: 'Org B only' }),
    });
    expect(created.status).toBe(201);
    const mine = (await created.json()) as { id: number };
    expect(mine).toMatchObject({ entityId: 'ent-a', orgId: 'org-b', text: 'Org B only' });

    expect(await served(TENANT_B_KEY)).toEqual(['Org B only']);
    expect(await served(TENANT_KEY)).toEqual(before);
    expect(before).not.toContain('Org B only');
    const listed = await fetch(suggestionsUrl('ent-a', 'org-b'), { headers: bearer(ADMIN_KEY) });
    expect(((await listed.json()) as { suggestions: unknown[] }).suggestions).toEqual([
      expect.objectContaining({ id: mine.id, orgId: 'org-b' }),
    ]);

    // Through the other org of the same entity, the suggestion is not there.
    const [patch, remove] = await Promise.all([
      fetch(suggestionsUrl('ent-a', 'org-a', mine.id), {
        method: 'PATCH',
        headers: json(ADMIN_KEY),
        body: JSON.stringify({ text: 'hijack' }),
      }),
      fetch(suggestionsUrl('ent-a', 'org-a', mine.id), { method: 'DELETE', headers: bearer(ADMIN_KEY) }),
    ]);
    expect([patch.status, remove.status]).toEqual([404, 404]);
    expect(await served(TENANT_B_KEY)).toEqual(['Org B only']);
  });

  test('needs the org: without it the admin API answers 400 naming orgId', async () => {
    const bare = `${url}/v1/admin/entities/ent-a/suggestions`;
    for (const response of [
      await fetch(bare, { headers: bearer(ADMIN_KEY) }),
      await fetch(bare, { method: 'POST', headers: json(ADMIN_KEY), body: JSON.stringify({ text: 'x' }) }),
      await fetch(`${bare}/1`, { method: 'DELETE', headers: bearer(ADMIN_KEY) }),
    ]) {
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'BAD_REQUEST', field: 'orgId' } });
    }
  });
});
