// Business context: currency, locale, number system and financial year per
// tenant (entity + org) over its country's settings; an Indian business when nothing is set.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDb,
  type Database,
  DEFAULT_BUSINESS_CONTEXT,
  datePattern,
  loadBusinessContext,
  migrateToLatest,
} from '../src/index.ts';
import { createTestDatabase, type TestDatabase } from '../src/testing.ts';

let database: TestDatabase;
let db: Kysely<Database>;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb(database.url, { max: 2 });
  await migrateToLatest(db);
});

afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

describe('business context', () => {
  it('is an Indian business (INR, en-IN, lakh/crore, April year) when the tenant has none', async () => {
    const ctx = await loadBusinessContext(db, { entityId: 'nobody', orgId: 'org-x' });
    expect(ctx).toEqual(DEFAULT_BUSINESS_CONTEXT);
    expect(ctx).toMatchObject({
      currency: 'INR',
      locale: 'en-IN',
      numberSystem: 'indian',
      fyStartMonth: 4,
      configured: false,
    });
  });

  it('takes the country settings and the tenant overrides, keyed by entity and org', async () => {
    await db
      .insertInto('business_contexts')
      .values([
        { entity_id: 'ent-1', org_id: 'org-us', company_name: 'Acme Inc', country_code: 'US' },
        { entity_id: 'ent-1', org_id: 'org-gb', country_code: 'GB', fy_start_month: 1, locale: 'en-US' },
      ])
      .execute();
    const us = await loadBusinessContext(db, { entityId: 'ent-1', orgId: 'org-us' });
    expect(us).toMatchObject({
      companyName: 'Acme Inc',
      currency: 'USD',
      currencySymbol: '$',
      locale: 'en-US',
      numberSystem: 'international',
      dateFormat: 'MM/DD/YYYY',
      fyStartMonth: 1,
      taxName: 'Sales tax',
      configured: true,
    });
    const gb = await loadBusinessContext(db, { entityId: 'ent-1', orgId: 'org-gb' });
    // The tenant's own locale wins, and the date pattern follows it; the FY start is its own.
    expect(gb).toMatchObject({ currency: 'GBP', locale: 'en-US', dateFormat: 'MM/DD/YYYY', fyStartMonth: 1 });
    // The same entity in another org is another tenant.
    expect(await loadBusinessContext(db, { entityId: 'ent-1', orgId: 'org-other' })).toMatchObject({
      currency: 'INR',
      configured: false,
    });
  });

  it('ignores a stored locale or time zone Intl cannot use, keeping the country’s', async () => {
    await db
      .insertInto('business_contexts')
      .values({
        entity_id: 'ent-typo',
        org_id: 'org-1',
        country_code: 'AE',
        locale: 'not a locale!',
        timezone: 'Mars/Olympus',
        currency_code: 'USD',
      })
      .execute();
    const ctx = await loadBusinessContext(db, { entityId: 'ent-typo', orgId: 'org-1' });
    expect(ctx).toMatchObject({ locale: 'en-AE', timezone: 'Asia/Dubai', currency: 'USD' });
    expect(ctx.currencySymbol).toMatch(/\$/);
  });

  it('refuses what the tables do not allow: an unknown country, a 13th month, a bad number system', async () => {
    const bad = [
      { entity_id: 'e', org_id: 'o1', country_code: 'ZZ' },
      { entity_id: 'e', org_id: 'o2', fy_start_month: 13 },
      { entity_id: 'e', org_id: 'o3', number_system: 'roman' as never },
    ];
    for (const values of bad)
      await expect(db.insertInto('business_contexts').values(values).execute()).rejects.toThrow();
  });

  it('writes date patterns in each locale’s order', () => {
    expect(datePattern('en-IN')).toBe('DD/MM/YYYY');
    expect(datePattern('en-US')).toBe('MM/DD/YYYY');
    expect(datePattern('sv-SE')).toBe('YYYY-MM-DD');
  });
});
