// An entity's business context and closed period through the admin API: read and set by admin
// credentials for any entity, or by the entity's own admins and owners for theirs (a maker, or
// another entity's owner, is refused); a bad value is refused with 400 naming the field; every
// change is a row of the audit trail. The gateway runs on its own database role; real NATS and
// PostgreSQL.
import { createDb, type Database, readAudit } from '@munim/db';
import { test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { startGateway } from './helpers.ts';

const ADMIN_KEY = 'admin-key-business-context-0001';
const OWNER_A = 'owner-key-business-context-org-a-01';
const ADMIN_A = 'admin-key-business-context-org-a-02';
const MAKER_A = 'maker-key-business-context-org-a-03';
const OWNER_A2 = 'owner-key-business-context-org-a-04';
const OWNER_B = 'owner-key-business-context-org-b-05';
const KEYS = [
  `${OWNER_A}:ent-1:org-bc-a`,
  `${ADMIN_A}:ent-1:org-bc-a:user-admin:admin`,
  `${MAKER_A}:ent-1:org-bc-a:user-maker:maker`,
  `${OWNER_A2}:ent-2:org-bc-a`,
  `${OWNER_B}:ent-9:org-bc-b`,
].join(',');

let db: Kysely<Database>;
let gateway: Gateway;
let url: string;

const call = async (method: string, path: string, key?: string, body?: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};
const path = (entityId: string, orgId: string, what: 'business-context' | 'lock-date') =>
  `/v1/admin/entities/${entityId}/${what}?orgId=${orgId}`;

test.beforeAll(async ({ nats, serviceLogins }) => {
  db = createDb(serviceLogins.gateway, { max: 3 });
  ({ gateway, url } = await startGateway(
    nats,
    { GATEWAY_ADMIN_KEYS: ADMIN_KEY, GATEWAY_API_KEYS: KEYS },
    db,
  ));
});

afterAll(async () => {
  try {
    await gateway?.stop();
  } finally {
    await db?.destroy();
  }
});

describe('/v1/admin/entities/:entityId/business-context', () => {
  test('answers the defaults until set, then the settings in force, each change on the trail', async () => {
    const before = await call('GET', path('ent-1', 'org-bc-a', 'business-context'), ADMIN_KEY);
    expect(before).toMatchObject({
      status: 200,
      body: {
        entityId: 'ent-1',
        orgId: 'org-bc-a',
        configured: false,
        currency: 'INR',
        gstin: null,
        lockDate: null,
      },
    });
    const set = await call('PUT', path('ent-1', 'org-bc-a', 'business-context'), ADMIN_A, {
      companyName: 'Sharma Traders',
      state: 'Maharashtra',
      gstin: '27aapfu0939f1zv',
      fyStartMonth: 4,
      locale: 'en-GB',
    });
    expect(set).toMatchObject({
      status: 200,
      body: { configured: true, companyName: 'Sharma Traders', gstin: '27AAPFU0939F1ZV', locale: 'en-GB' },
    });
    expect((await call('GET', path('ent-1', 'org-bc-a', 'business-context'), OWNER_A)).body).toEqual(
      set.body,
    );
    const trail = await readAudit(db, { orgId: 'org-bc-a' });
    expect(trail.at(-1)).toMatchObject({
      entityId: 'ent-1',
      actor: 'user-admin',
      action: 'configured',
      summary: expect.stringContaining('state none → Maharashtra'),
    });
  });

  test('refuses a bad value with 400 naming the field, and changes nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ currency: 'RUPEES' }, 'currency'],
      [{ currency: 'ABC' }, 'currency'],
      [{ locale: 'not a locale!' }, 'locale'],
      [{ fyStartMonth: 13 }, 'fyStartMonth'],
      [{ fyStartMonth: 0 }, 'fyStartMonth'],
      [{ fyStartMonth: 4.5 }, 'fyStartMonth'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ gstin: '27AAPFU0939F1ZW' }, 'gstin'],
      [{ gstin: '27AAPFU0939F1Z' }, 'gstin'],
      [{ countryCode: 'india' }, 'countryCode'],
      [{ countryCode: 'ZZ' }, 'countryCode'],
      [{ countryCode: 'US' }, 'gstin'],
      [{ colour: 'blue' }, 'colour'],
      [{ state: '' }, 'state'],
    ];
    const before = (await call('GET', path('ent-1', 'org-bc-a', 'business-context'), ADMIN_KEY)).body;
    for (const [body, field] of cases) {
      const res = await call('PUT', path('ent-1', 'org-bc-a', 'business-context'), ADMIN_KEY, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toMatchObject({ code: 'BAD_REQUEST', field });
    }
    expect((await call('GET', path('ent-1', 'org-bc-a', 'business-context'), ADMIN_KEY)).body).toEqual(
      before,
    );
  });
});

describe('/v1/admin/entities/:entityId/lock-date', () => {
  test('closes the books up to a day, names it as the business writes dates, and reopens them', async () => {
    expect((await call('GET', path('ent-2', 'org-bc-a', 'lock-date'), OWNER_A2)).body).toMatchObject({
      lockDate: null,
      lockDateText: null,
    });
    const set = await call('PUT', path('ent-2', 'org-bc-a', 'lock-date'), OWNER_A2, {
      lockDate: '2026-10-31',
    });
    expect(set).toMatchObject({
      status: 200,
      body: { entityId: 'ent-2', lockDate: '2026-10-31', lockDateText: '31 October 2026' },
    });
    // The business's own locale writes the date its way.
    await call('PUT', path('ent-2', 'org-bc-a', 'business-context'), ADMIN_KEY, { locale: 'en-US' });
    expect((await call('GET', path('ent-2', 'org-bc-a', 'lock-date'), ADMIN_KEY)).body).toMatchObject({
      lockDate: '2026-10-31',
      lockDateText: 'October 31, 2026',
    });
    const reopened = await call('PUT', path('ent-2', 'org-bc-a', 'lock-date'), ADMIN_KEY, { lockDate: null });
    expect(reopened.body).toMatchObject({ lockDate: null, lockDateText: null });
    const locks = (await readAudit(db, { orgId: 'org-bc-a' })).filter(
      (r) => r.entityId === 'ent-2' && r.action === 'locked',
    );
    expect(locks.map((r) => r.summary)).toEqual([
      'Closed the books up to 31 October 2026 (before: no period closed).',
      'Reopened the books: no period is closed now (before: closed up to October 31, 2026).',
    ]);
    expect(locks[0]?.actor).toMatch(/^key:/);
  });

  test('refuses a day that is not a date, naming lockDate', async () => {
    for (const lockDate of ['2026-02-30', '31/10/2026', '2026-10-31T00:00:00Z', 20261031, '', undefined]) {
      const res = await call('PUT', path('ent-2', 'org-bc-a', 'lock-date'), ADMIN_KEY, { lockDate });
      expect(res.status, String(lockDate)).toBe(400);
      expect(res.body.error.field, String(lockDate)).toBe('lockDate');
    }
  });
});

describe('who may', () => {
  test('admin credentials any entity; an entity’s own admins and owners theirs; no one else', async () => {
    const routes = ['business-context', 'lock-date'] as const;
    for (const what of routes) {
      expect((await call('GET', path('ent-77', 'org-other', what), ADMIN_KEY)).status).toBe(200);
      expect((await call('GET', path('ent-1', 'org-bc-a', what), OWNER_A)).status).toBe(200);
      expect((await call('GET', path('ent-1', 'org-bc-a', what), ADMIN_A)).status).toBe(200);
      const refused: [string, string, string, string | undefined][] = [
        [MAKER_A, 'ent-1', 'org-bc-a', undefined],
        [OWNER_B, 'ent-1', 'org-bc-a', 'orgId'],
        [OWNER_A2, 'ent-1', 'org-bc-a', 'entityId'],
        [OWNER_A, 'ent-2', 'org-bc-a', 'entityId'],
      ];
      for (const [key, entityId, orgId, field] of refused) {
        const body = what === 'lock-date' ? { lockDate: '2020-01-01' } : { state: 'Goa' };
        for (const method of ['GET', 'PUT']) {
          const res = await call(
            method,
            path(entityId, orgId, what),
            key,
            method === 'PUT' ? body : undefined,
          );
          expect(res.status, `${method} ${what} ${entityId}`).toBe(403);
          if (field) expect(res.body.error.field).toBe(field);
        }
      }
      expect((await call('GET', path('ent-1', 'org-bc-a', what))).status).toBe(401);
    }
    // Nothing the refused calls sent was kept.
    expect((await call('GET', path('ent-1', 'org-bc-a', 'lock-date'), ADMIN_KEY)).body.lockDate).toBeNull();
  });
});
