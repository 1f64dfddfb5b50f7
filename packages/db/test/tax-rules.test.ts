// Tax rules as data by country and date: India's seeded by migration 0029, another country as
// rows; the agent reads them (and the business's state and GSTIN) to hand to the validator.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDb,
  type Database,
  loadBusinessBooks,
  loadBusinessContext,
  loadTaxRegistration,
  loadTaxRules,
  migrateToLatest,
  readLockDate,
} from '../src/index.ts';
import { INDIA_TAX_RULES } from '../src/migrations/0029_tax_rules.ts';
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

const ratesOn = (rules: Awaited<ReturnType<typeof loadTaxRules>>, date: string) =>
  rules
    .filter(
      (r) => r.kind === 'rate' && r.from <= date && (r.to === undefined || date < r.to) && !r.productCodes,
    )
    .map((r) => r.rate)
    .sort((a, b) => Number(a) - Number(b));

describe('tax rules in the database', () => {
  it('holds India’s GST rates with a date on every one, before and after 22 September 2025', async () => {
    const rules = await loadTaxRules(db, 'IN');
    expect(rules).toHaveLength(INDIA_TAX_RULES.length);
    for (const rule of rules) expect(rule.from, JSON.stringify(rule)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(ratesOn(rules, '2025-09-21')).toEqual([0, 0.1, 0.25, 1.5, 3, 5, 12, 18, 28]);
    expect(ratesOn(rules, '2025-09-22')).toEqual([0, 0.1, 0.25, 1.5, 3, 5, 18, 40]);
    const tobacco = rules.find((r) => r.kind === 'rate' && r.rate === 28 && r.from === '2025-09-22');
    expect(tobacco).toMatchObject({ to: '2026-02-01', productCodes: ['24', '21069020'] });
  });

  it('holds the state codes, the identifiers’ formats and the split of GST as data', async () => {
    const rules = await loadTaxRules(db, 'IN');
    const codes = new Set(rules.filter((r) => r.kind === 'region').map((r) => r.code));
    for (let n = 1; n <= 38; n++) expect(codes.has(String(n).padStart(2, '0')), String(n)).toBe(true);
    expect(codes.has('97')).toBe(true);
    expect(rules.find((r) => r.kind === 'identifier' && r.name === 'GSTIN')).toMatchObject({
      checksum: 'mod36',
      regionAt: { start: 0, length: 2 },
      embeds: { name: 'PAN', start: 2, length: 10 },
    });
    expect(rules.find((r) => r.kind === 'split')).toMatchObject({
      within: ['CGST', 'SGST', 'UTGST'],
      across: ['IGST'],
    });
  });

  it('takes another country as rows, and refuses a rule that ends before it starts', async () => {
    await db
      .insertInto('tax_rules')
      .values([
        {
          country_code: 'AE',
          kind: 'rate',
          key: '5',
          effective_from: '2018-01-01',
          rule: JSON.stringify({ rate: 5 }),
        },
        {
          country_code: 'AE',
          kind: 'identifier',
          key: 'TRN',
          effective_from: '2018-01-01',
          rule: JSON.stringify({
            name: 'TRN',
            role: 'registration',
            fieldWords: ['trn'],
            patterns: ['^100[0-9]{12}$'],
          }),
        },
      ])
      .execute();
    expect(await loadTaxRules(db, 'AE')).toEqual([
      {
        kind: 'identifier',
        from: '2018-01-01',
        name: 'TRN',
        role: 'registration',
        fieldWords: ['trn'],
        patterns: ['^100[0-9]{12}$'],
      },
      { kind: 'rate', from: '2018-01-01', rate: 5 },
    ]);
    await expect(
      sql`insert into tax_rules (country_code, kind, key, effective_from, effective_to) values ('AE', 'rate', '7', '2026-01-01', '2025-01-01')`.execute(
        db,
      ),
    ).rejects.toThrow(/tax_rules_dates_check/);
    expect(await loadTaxRules(db, 'US')).toEqual([]);
  });

  it('reads the business’s state and GSTIN, none when it has no context', async () => {
    await db
      .insertInto('business_contexts')
      .values({
        entity_id: 'e-tax',
        org_id: 'o-tax',
        country_code: 'IN',
        state: 'Maharashtra',
        gstin: '27AAKCS4821M1ZW',
      })
      .execute();
    expect(await loadTaxRegistration(db, { entityId: 'e-tax', orgId: 'o-tax' })).toEqual({
      state: 'Maharashtra',
      taxId: '27AAKCS4821M1ZW',
    });
    expect(await loadTaxRegistration(db, { entityId: 'e-none', orgId: 'o-tax' })).toEqual({
      state: null,
      taxId: null,
    });
  });

  it('reads the business, its rules, registration and lock date in one statement, as their own reads do', async () => {
    await db
      .insertInto('business_contexts')
      .values({ entity_id: 'e-books', org_id: 'o-tax', country_code: 'AE', state: null, gstin: null })
      .execute();
    await db
      .insertInto('lock_dates')
      .values({ entity_id: 'e-books', org_id: 'o-tax', lock_date: '2026-03-31', updated_by: 'test' })
      .execute();
    // A business in a country with no tax rules, and a lock date without a business row.
    await db
      .insertInto('business_contexts')
      .values({
        entity_id: 'e-nowhere',
        org_id: 'o-tax',
        country_code: 'US',
        state: 'Texas',
        gstin: null,
      })
      .execute();
    await db
      .insertInto('lock_dates')
      .values({ entity_id: 'e-none', org_id: 'o-tax', lock_date: '2025-12-31', updated_by: 'test' })
      .execute();
    const tenants = [
      { entityId: 'e-tax', orgId: 'o-tax' },
      { entityId: 'e-books', orgId: 'o-tax' },
      { entityId: 'e-none', orgId: 'o-tax' },
      { entityId: 'e-nowhere', orgId: 'o-tax' },
      { entityId: 'e-tax', orgId: 'o-other' },
    ];
    for (const tenant of tenants) {
      const business = await loadBusinessContext(db, tenant);
      expect(await loadBusinessBooks(db, tenant), JSON.stringify(tenant)).toEqual({
        business,
        rules: await loadTaxRules(db, business.countryCode),
        registration: await loadTaxRegistration(db, tenant),
        lockDate: (await readLockDate(db, tenant)).lockDate,
      });
    }
    const books = await loadBusinessBooks(db, { entityId: 'e-books', orgId: 'o-tax' });
    expect([books.business.countryCode, books.lockDate, books.rules.length > 0]).toEqual([
      'AE',
      '2026-03-31',
      true,
    ]);
    expect((await loadBusinessBooks(db, { entityId: 'e-none', orgId: 'o-tax' })).lockDate).toBe('2025-12-31');
  });
});
