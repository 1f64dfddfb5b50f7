// Closed periods and the business context as the admin API sets them, on a real PostgreSQL and
// through the gateway's own database role: a tenant's lock date and business settings, each
// change a row of the hash-chained audit trail naming what changed, in the business's words.

import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BusinessSettingsError,
  createDb,
  type Database,
  readAudit,
  readBusinessSettings,
  readLockDate,
  saveBusinessSettings,
  setLockDate,
  todayIn,
  verifyAuditChain,
} from '../src/index.ts';
import { createMigratedTestDatabase, serviceLoginUrls, type TestDatabase } from '../src/testing.ts';

let database: TestDatabase;
let gateway: Kysely<Database>;
let agent: Kysely<Database>;

beforeAll(async () => {
  database = await createMigratedTestDatabase();
  const urls = await serviceLoginUrls(database);
  gateway = createDb(urls.gateway, { max: 4 });
  agent = createDb(urls.agent, { max: 2 });
});

afterAll(async () => {
  await gateway?.destroy();
  await agent?.destroy();
  await database?.drop();
});

/** A day in words, as the gateway passes its business's way of saying it. */
const inWords = (iso: string) =>
  new Intl.DateTimeFormat('en-IN', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(new Date(`${iso}T00:00:00Z`));
let n = 0;
const tenant = () => ({ entityId: `ent-lock-${++n}`, orgId: `org-lock-${n}` });

describe('dates in words', () => {
  it('finds today where the business is, not where the server is', () => {
    const evening = new Date('2026-10-31T20:00:00Z');
    expect(todayIn('Asia/Kolkata', evening)).toBe('2026-11-01');
    expect(todayIn('America/New_York', evening)).toBe('2026-10-31');
    // Generated instants: the date is the zone's own, whatever the hour.
    for (let h = 0; h < 48; h += 5) {
      const at = new Date(Date.UTC(2026, 0, 1, h));
      const shifted = new Date(at.getTime() + 5.5 * 3_600_000).toISOString().slice(0, 10);
      expect(todayIn('Asia/Kolkata', at), at.toISOString()).toBe(shifted);
    }
  });
});

describe('lock dates', () => {
  it('has none until one is set; the gateway sets it, the agent reads it, each change on the trail', async () => {
    const t = tenant();
    expect(await readLockDate(agent, t)).toEqual({ lockDate: null, updatedBy: null, updatedAt: null });
    const set = await setLockDate(gateway, t, '2026-10-31', { actor: 'u-admin', describe: inWords });
    expect(set).toMatchObject({ lockDate: '2026-10-31', updatedBy: 'u-admin', changed: true });
    expect(await readLockDate(agent, t)).toMatchObject({ lockDate: '2026-10-31', updatedBy: 'u-admin' });
    // The same date again changes nothing and records nothing.
    expect(
      (await setLockDate(gateway, t, '2026-10-31', { actor: 'u-admin', describe: inWords })).changed,
    ).toBe(false);
    await setLockDate(gateway, t, '2026-12-31', { actor: 'u-other', describe: inWords });
    await setLockDate(gateway, t, null, { actor: 'u-admin', describe: inWords });
    expect((await readLockDate(agent, t)).lockDate).toBeNull();
    const rows = (await readAudit(gateway, { orgId: t.orgId })).filter((r) => r.entityId === t.entityId);
    expect(rows.map((r) => [r.action, r.actor, r.summary])).toEqual([
      ['locked', 'u-admin', 'Closed the books up to 31 October 2026 (before: no period closed).'],
      [
        'locked',
        'u-other',
        'Closed the books up to 31 December 2026 (before: closed up to 31 October 2026).',
      ],
      [
        'locked',
        'u-admin',
        'Reopened the books: no period is closed now (before: closed up to 31 December 2026).',
      ],
    ]);
    expect(verifyAuditChain(rows)).toMatchObject({ ok: true, rows: 3 });
  });

  it('keeps one lock per entity and org, and the chain whole when changes race', async () => {
    const orgId = `org-race-${n}`;
    const entities = Array.from({ length: 6 }, (_, i) => ({ entityId: `ent-race-${i}`, orgId }));
    const dates = entities.map((_, i) => `2026-0${(i % 9) + 1}-2${i}`);
    await Promise.all(
      entities.map((e, i) =>
        setLockDate(gateway, e, dates[i] as string, { actor: 'u-admin', describe: inWords }),
      ),
    );
    for (const [i, e] of entities.entries()) expect((await readLockDate(agent, e)).lockDate).toBe(dates[i]);
    const rows = await readAudit(gateway, { orgId });
    expect(rows).toHaveLength(entities.length);
    expect(verifyAuditChain(rows)).toMatchObject({ ok: true });
  });

  it('is refused to every role but the gateway’s', async () => {
    await expect(
      agent
        .insertInto('lock_dates')
        .values({ entity_id: 'e', org_id: 'o', lock_date: '2026-01-01', updated_by: 'x' })
        .execute(),
    ).rejects.toMatchObject({ code: '42501' });
  });
});

describe('business settings', () => {
  it('sets the given fields over the country’s, clears an override with null, and records what changed', async () => {
    const t = tenant();
    expect(await readBusinessSettings(gateway, t)).toMatchObject({
      configured: false,
      currency: 'INR',
      gstin: null,
    });
    const saved = await saveBusinessSettings(
      gateway,
      t,
      { companyName: 'Sharma Traders', state: 'Maharashtra', gstin: '27AAPFU0939F1ZV', fyStartMonth: 1 },
      'u-admin',
    );
    expect(saved).toMatchObject({
      configured: true,
      companyName: 'Sharma Traders',
      countryCode: 'IN',
      currency: 'INR',
      state: 'Maharashtra',
      gstin: '27AAPFU0939F1ZV',
      fyStartMonth: 1,
      lockDate: null,
    });
    const moved = await saveBusinessSettings(
      gateway,
      t,
      { countryCode: 'IN', fyStartMonth: null, locale: 'en-GB' },
      'u-2',
    );
    expect(moved).toMatchObject({ fyStartMonth: 4, locale: 'en-GB', dateFormat: 'DD/MM/YYYY' });
    const rows = (await readAudit(gateway, { orgId: t.orgId })).map((r) => [r.action, r.actor, r.summary]);
    expect(rows[0]).toEqual([
      'configured',
      'u-admin',
      expect.stringMatching(
        /company name none → Sharma Traders.*state none → Maharashtra.*gstin none → 27AAPFU0939F1ZV/,
      ),
    ]);
    expect(rows[1]?.[2]).toMatch(/locale none → en-GB; fy start month 1 → none/);
    expect(rows[1]?.[2]).not.toMatch(/country code/);
  });

  it('refuses an unknown country and a GSTIN outside India, naming the field, and changes nothing', async () => {
    const t = tenant();
    await expect(saveBusinessSettings(gateway, t, { countryCode: 'ZZ' }, 'u')).rejects.toMatchObject({
      name: 'BusinessSettingsError',
      field: 'countryCode',
    });
    await saveBusinessSettings(gateway, t, { gstin: '27AAPFU0939F1ZV' }, 'u');
    const error = await saveBusinessSettings(gateway, t, { countryCode: 'US' }, 'u').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BusinessSettingsError);
    expect(error).toMatchObject({ field: 'gstin' });
    expect(await readBusinessSettings(gateway, t)).toMatchObject({
      countryCode: 'IN',
      gstin: '27AAPFU0939F1ZV',
    });
    // With the GSTIN cleared, the country may change.
    expect(await saveBusinessSettings(gateway, t, { countryCode: 'US', gstin: null }, 'u')).toMatchObject({
      countryCode: 'US',
      currency: 'USD',
      gstin: null,
    });
  });
});
