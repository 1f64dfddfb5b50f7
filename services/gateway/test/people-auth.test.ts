// Every request acts as a person. A key issued through /v1/admin/users is looked up (by its hash) on
// the gateway's database and acts as its user, with that user's roles for the entity asked about,
// and only for entities the user has roles on; a revoked key or a disabled user is refused. A
// JWT's `sub` is the user and its roles claim the roles. Without authentication a request is its
// tenant's owner. The person travels in the envelope of the submitted query.
import { createHmac, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Actor, PERSON_ROLES, type PersonRole } from '@munim/contracts';
import { createDb, type Database, type KeyHolder } from '@munim/db';
import { type FixtureNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { Authenticator, rolesIn } from '../src/auth.ts';
import { completeEvent, fakeBackend, postQuery, readSse, startGateway } from './helpers.ts';

const ADMIN_KEY = `admin-${randomBytes(12).toString('hex')}`;
const ENV_OWNER_KEY = `env-owner-${randomBytes(12).toString('hex')}`;
const ENV_VIEWER_KEY = `env-viewer-${randomBytes(12).toString('hex')}`;
const JWT_SECRET = randomBytes(32).toString('hex');
const ROLES_CLAIM = 'https://munim.example/roles';

let testBus: FixtureNats;
let db: Kysely<Database>;
let authUrl: string;
let openUrl: string;
let backend: Awaited<ReturnType<typeof fakeBackend>>;
const stops: (() => Promise<void>)[] = [];

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const json = (token: string) => ({ ...bearer(token), 'content-type': 'application/json' });

async function admin(method: string, path: string, body?: unknown) {
  const res = await fetch(`${authUrl}${path}`, {
    method,
    headers: body === undefined ? bearer(ADMIN_KEY) : json(ADMIN_KEY),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A user of `orgId` with `roles`, and a key issued to it through the admin API. */
async function userWithKey(orgId: string, roles: { entityId: string; role: PersonRole }[]) {
  const made = await admin('POST', '/v1/admin/users', {
    orgId,
    name: `user ${randomBytes(3).toString('hex')}`,
    roles,
  });
  expect(made.status).toBe(201);
  const issued = await admin('POST', `/v1/admin/users/${made.body.userId}/keys`, { orgId });
  expect(issued.status).toBe(201);
  return {
    userId: made.body.userId as string,
    key: issued.body.key as string,
    keyId: issued.body.keyId as string,
  };
}

/** An HS256 token with these claims (and an expiry). */
function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ exp: Math.floor(Date.now() / 1000) + 300, ...claims })}`;
  return `${body}.${createHmac('sha256', JWT_SECRET).update(body).digest('base64url')}`;
}

/** Asks as `headers` for the tenant; the actor the submitted query carried, or the refusal's status. */
async function actorAsking(
  url: string,
  tenant: { entityId: string; orgId: string },
  headers: Record<string, string> = {},
): Promise<{ status: number; actor?: Actor | undefined }> {
  const query = `who am i ${randomBytes(6).toString('hex')}`;
  const response = await postQuery(url, { query, ...tenant }, headers);
  if (response.status !== 200) {
    await response.body?.cancel();
    return { status: response.status };
  }
  await readSse(response);
  const received = backend.received.find((r) => r.message.data.query === query);
  return { status: 200, actor: received?.message.actor };
}

test.beforeAll(async ({ nats, serviceLogins }) => {
  testBus = nats;
  db = createDb(serviceLogins.gateway, { max: 3 });
  backend = await fakeBackend(testBus, (message) => [completeEvent(message.data.query, 'ok')]);
  const authed = await startGateway(
    testBus,
    {
      GATEWAY_ADMIN_KEYS: ADMIN_KEY,
      GATEWAY_API_KEYS: `${ENV_OWNER_KEY}:ent-env:org-env, ${ENV_VIEWER_KEY}:ent-env:org-env:env-user-1:viewer`,
      GATEWAY_JWT_SECRET: JWT_SECRET,
      GATEWAY_JWT_ROLES_CLAIM: ROLES_CLAIM,
    },
    db,
  );
  authUrl = authed.url;
  stops.push(() => authed.gateway.stop());
  const open = await startGateway(testBus, {}, db);
  openUrl = open.url;
  stops.push(() => open.gateway.stop());
});

afterAll(async () => {
  await backend?.stop();
  for (const stop of stops) await stop();
  await db?.destroy();
});

describe('keys issued through /v1/admin/users', () => {
  test('act as their user, with its roles for the entity asked about', async () => {
    const maker = await userWithKey('org-p', [
      { entityId: 'ent-p1', role: 'maker' },
      { entityId: 'ent-p1', role: 'approver' },
      { entityId: 'ent-p2', role: 'viewer' },
    ]);
    expect(await actorAsking(authUrl, { entityId: 'ent-p1', orgId: 'org-p' }, bearer(maker.key))).toEqual({
      status: 200,
      actor: { userId: maker.userId, roles: ['approver', 'maker'], via: 'api' },
    });
    expect(await actorAsking(authUrl, { entityId: 'ent-p2', orgId: 'org-p' }, bearer(maker.key))).toEqual({
      status: 200,
      actor: { userId: maker.userId, roles: ['viewer'], via: 'api' },
    });
  });

  test('are refused (403) for an entity the user has no role on, and for another org, publishing nothing', async () => {
    const user = await userWithKey('org-q', [{ entityId: 'ent-q1', role: 'maker' }]);
    const before = backend.received.length;
    expect(
      (await actorAsking(authUrl, { entityId: 'ent-q2', orgId: 'org-q' }, bearer(user.key))).status,
    ).toBe(403);
    expect(
      (await actorAsking(authUrl, { entityId: 'ent-q1', orgId: 'org-other' }, bearer(user.key))).status,
    ).toBe(403);
    const nobody = await userWithKey('org-q', []);
    expect(
      (await actorAsking(authUrl, { entityId: 'ent-q1', orgId: 'org-q' }, bearer(nobody.key))).status,
    ).toBe(403);
    expect(backend.received.length).toBe(before);
  });

  test('are refused (401) once revoked, or once their user is disabled; a made-up one too', async () => {
    const tenant = { entityId: 'ent-r', orgId: 'org-r' };
    const revoked = await userWithKey('org-r', [{ entityId: 'ent-r', role: 'maker' }]);
    const disabled = await userWithKey('org-r', [{ entityId: 'ent-r', role: 'owner' }]);
    expect((await actorAsking(authUrl, tenant, bearer(revoked.key))).status).toBe(200);
    expect((await actorAsking(authUrl, tenant, bearer(disabled.key))).status).toBe(200);
    expect(
      (await admin('DELETE', `/v1/admin/users/${revoked.userId}/keys/${revoked.keyId}?orgId=org-r`)).status,
    ).toBe(204);
    expect(
      (await admin('POST', `/v1/admin/users/${disabled.userId}/disable`, { orgId: 'org-r' })).status,
    ).toBe(200);
    expect((await actorAsking(authUrl, tenant, bearer(revoked.key))).status).toBe(401);
    expect((await actorAsking(authUrl, tenant, bearer(disabled.key))).status).toBe(401);
    expect(
      (await actorAsking(authUrl, tenant, bearer(`munim_${randomBytes(32).toString('base64url')}`))).status,
    ).toBe(401);
  });
});

describe('keys issued to users, over /mcp', () => {
  test('act as their user through the tool, for the entity its arguments name, refusing one without a role', async () => {
    const user = await userWithKey('org-m', [
      { entityId: 'ent-m1', role: 'viewer' },
      { entityId: 'ent-m2', role: 'maker' },
    ]);
    const client = new Client({ name: 'people-auth', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${authUrl}/mcp`), {
        requestInit: { headers: bearer(user.key) },
      }),
    );
    try {
      for (const [entityId, roles] of [
        ['ent-m2', ['maker']],
        ['ent-m1', ['viewer']],
      ] as const) {
        const query = `mcp who am i ${randomBytes(6).toString('hex')}`;
        const result = await client.callTool({
          name: 'query_cfo_agent',
          arguments: { query, entityId, orgId: 'org-m' },
        });
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
        const received = backend.received.find((r) => r.message.data.query === query);
        expect(received?.message.entityId).toBe(entityId);
        expect(received?.message.actor).toEqual({ userId: user.userId, roles, via: 'mcp' });
      }
      const before = backend.received.length;
      await expect(
        client.callTool({
          name: 'query_cfo_agent',
          arguments: { query: 'x', entityId: 'ent-m3', orgId: 'org-m' },
        }),
      ).rejects.toThrow(/403|entity/i);
      expect(backend.received.length).toBe(before);
    } finally {
      await client.close();
    }
  });
});

describe('GATEWAY_API_KEYS entries', () => {
  test('act as their user and roles, or as the tenant’s owner when they name no user', async () => {
    const tenant = { entityId: 'ent-env', orgId: 'org-env' };
    expect(await actorAsking(authUrl, tenant, bearer(ENV_OWNER_KEY))).toEqual({
      status: 200,
      actor: { userId: null, roles: ['owner'], via: 'api' },
    });
    expect(await actorAsking(authUrl, tenant, bearer(ENV_VIEWER_KEY))).toEqual({
      status: 200,
      actor: { userId: 'env-user-1', roles: ['viewer'], via: 'api' },
    });
  });

  test('are matched in constant time among themselves, before and without any database lookup', async () => {
    const looked: string[] = [];
    const holders = {
      authenticate: async (key: string): Promise<KeyHolder | undefined> => {
        looked.push(key);
        return undefined;
      },
    };
    const envKey = `munim_${randomBytes(20).toString('hex')}`;
    const auth = new Authenticator(
      [{ key: envKey, entityId: 'e', orgId: 'o', roles: ['owner'] }],
      undefined,
      undefined,
      holders,
    );
    expect((await auth.authenticate(`Bearer ${envKey}`))?.tenant).toEqual({ entityId: 'e', orgId: 'o' });
    expect(looked).toEqual([]);
    expect(await auth.authenticate(`Bearer ${envKey}x`)).toBeNull();
    expect(looked).toEqual([`${envKey}x`]);
    // Not shaped like an issued key: never looked up.
    expect(await auth.authenticate('Bearer something-else-entirely-0000')).toBeNull();
    expect(looked).toHaveLength(1);
  });
});

describe('JWTs', () => {
  const tenant = { entityId: 'ent-j', orgId: 'org-j' };
  const claims = (more: Record<string, unknown>) => ({
    entity_id: tenant.entityId,
    org_id: tenant.orgId,
    ...more,
  });

  test('act as their `sub`, with the roles of the configured claim (array or separated string)', async () => {
    for (const [shape, value] of [
      ['array', ['maker', 'approver']],
      ['spaces', 'maker approver'],
      ['commas', 'approver,maker'],
      ['mixed, with names that are no role', ' maker, cfo  approver,,superuser '],
    ] as const) {
      const seen = await actorAsking(
        authUrl,
        tenant,
        bearer(jwt(claims({ sub: 'jwt-user-7', [ROLES_CLAIM]: value }))),
      );
      expect(seen, shape).toEqual({
        status: 200,
        actor: { userId: 'jwt-user-7', roles: ['maker', 'approver'], via: 'api' },
      });
    }
  });

  test('without a roles claim (or only unknown names, or the default `roles` claim name) only read', async () => {
    for (const extra of [{}, { [ROLES_CLAIM]: ['cfo'] }, { [ROLES_CLAIM]: 42 }, { roles: ['owner'] }]) {
      const seen = await actorAsking(authUrl, tenant, bearer(jwt(claims({ sub: 'jwt-user-8', ...extra }))));
      expect(seen).toEqual({ status: 200, actor: { userId: 'jwt-user-8', roles: ['viewer'], via: 'api' } });
    }
  });

  test('whose `sub` is not an id are refused: it could not be recorded as who asked', async () => {
    const seen = await actorAsking(
      authUrl,
      tenant,
      bearer(jwt(claims({ sub: 'auth0|a b', [ROLES_CLAIM]: ['owner'] }))),
    );
    expect(seen.status).toBe(401);
  });
});

describe('without authentication (loopback only)', () => {
  test('a request acts as its tenant’s owner, no user named', async () => {
    expect(await actorAsking(openUrl, { entityId: 'ent-open', orgId: 'org-open' })).toEqual({
      status: 200,
      actor: { userId: null, roles: ['owner'], via: 'api' },
    });
  });
});

describe('roles claims of any shape', () => {
  test('keep exactly the person roles they name, and make a token naming none a viewer', () => {
    const junk = ['cfo', 'Admin', 'OWNER', 'root', '', 'maker2', 'view'];
    let seed = 29;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 500; i++) {
      const names = [...PERSON_ROLES, ...junk].filter(() => random() < 0.3);
      const shuffled = names.sort(() => random() - 0.5);
      const expected = PERSON_ROLES.filter((r) => names.includes(r));
      const separators = [' ', ',', ', ', '  ,', '\t'];
      const text = shuffled
        .map((n) => n + (separators[Math.floor(random() * separators.length)] as string))
        .join('');
      const want = expected.length > 0 ? expected : ['viewer'];
      expect(rolesIn(shuffled), JSON.stringify(shuffled)).toEqual(want);
      expect(rolesIn(text), JSON.stringify(text)).toEqual(want);
    }
    for (const value of [undefined, null, 7, {}, [1, 2], true]) expect(rolesIn(value)).toEqual(['viewer']);
  });
});
