import { sql } from 'kysely';
import { applyGrants, type Grants, type RoleService } from './grants.ts';
import type { MigrationDb } from './types.ts';

/**
 * A country's tax rules as data, each in force from a date (`tax_rules`): its rates, the formats of
 * its tax identifiers, its regions and how its tax splits within and across them. The validator
 * checks writes against the rules in force on a document's date, which the agent reads here and
 * sends with each call. India's are seeded: the GST rates before and after the rate change of
 * 22 September 2025, GSTIN, PAN and HSN/SAC, the GST state codes, CGST+SGST against IGST. Another
 * country is more rows. `business_contexts` gains the business's state and GSTIN.
 */

/** What each service's role may do with these tables. */
export const TAX_RULE_GRANTS: Partial<Record<RoleService, Grants>> = {
  agent: { tax_rules: { select: true } },
};

/** One rule as stored: its country, kind, key (the rate, code or name), dates, and the rest of it. */
export interface TaxRuleSeed {
  country_code: string;
  kind: 'rate' | 'identifier' | 'region' | 'split';
  key: string;
  effective_from: string;
  effective_to?: string;
  rule: Record<string, unknown>;
}

const GST_START = '2017-07-01';
/** GST rates rationalised (Notification 9/2025-Central Tax (Rate) of 17 September 2025). */
const GST_2025 = '2025-09-22';
/** Compensation cess ends; tobacco and pan masala move from 28% to 40%. */
const CESS_END = '2026-02-01';

const rate = (n: number, from: string, to?: string, limited?: { codes: string[]; note: string }) => ({
  country_code: 'IN',
  kind: 'rate' as const,
  key: String(n),
  effective_from: from,
  ...(to ? { effective_to: to } : {}),
  rule: { rate: n, ...(limited ? { productCodes: limited.codes, note: limited.note } : {}) },
});

const INDIA_RATES: TaxRuleSeed[] = [
  ...[0, 0.1, 0.25, 1.5, 3, 5, 12, 18, 28].map((n) => rate(n, GST_START, GST_2025)),
  ...[0, 0.1, 0.25, 1.5, 3, 5, 18, 40].map((n) => rate(n, GST_2025)),
  rate(28, GST_2025, CESS_END, {
    codes: ['24', '21069020'],
    note: 'tobacco and pan masala (HSN chapter 24 and 2106 90 20)',
  }),
];

const identifier = (name: string, from: string, rule: Record<string, unknown>): TaxRuleSeed => ({
  country_code: 'IN',
  kind: 'identifier',
  key: name,
  effective_from: from,
  rule: { name, ...rule },
});

const INDIA_IDS: TaxRuleSeed[] = [
  identifier('GSTIN', GST_START, {
    role: 'registration',
    format: '15 characters: a 2-digit state code, the PAN, an entity number, Z and a check character',
    fieldWords: [
      'gstin',
      'gst_no',
      'gst_number',
      'gstn',
      'gst_in',
      'gst_id',
      'gst_reg_no',
      'gst_registration',
      'gstin_uin',
    ],
    // Regular (on a PAN; the 14th character Z, or a digit or letter for more registrations); an
    // e-commerce collector's (C); a tax deductor's (on a TAN, D); a government department's; a
    // non-resident taxable person's (NR); a foreign online service provider's (99…OS); a UN body's
    // or embassy's (UN, ON). Every one ends with the mod-36 check character.
    patterns: [
      '^[0-9]{2}[A-Z]{5}[0-9]{4}[A-Z][1-9A-Z][Z1-9ABD-J][0-9A-Z]$',
      '^[0-9]{2}[A-Z]{5}[0-9]{4}[A-Z][1-9A-Z]C[0-9A-Z]$',
      '^[0-9]{2}[A-Z]{4}[A-Z0-9][0-9]{4}[A-Z][1-9A-Z]D[0-9A-Z]$',
      '^[0-9]{2}[A-Z]{4}[0-9]{5}[A-Z][0-9]Z[0-9]$',
      '^[0-9]{4}[A-Z]{3}[0-9]{5}NR[0-9A-Z]$',
      '^99[0-9]{2}[A-Z]{3}[0-9]{5}OS[0-9A-Z]$',
      '^[0-9]{4}[A-Z]{3}[0-9]{5}[UO]N[0-9A-Z]$',
    ],
    checksum: 'mod36',
    regionAt: { start: 0, length: 2 },
    embeds: { name: 'PAN', start: 2, length: 10 },
  }),
  identifier('PAN', '1961-04-01', {
    role: 'person',
    format: '10 characters: 5 letters, 4 digits and a letter, the fourth letter the holder’s kind',
    fieldWords: ['pan', 'pan_no', 'pan_number', 'permanent_account_number'],
    // The fourth letter is the holder's kind: company, person, HUF, firm, LLP, trust, AOP, BOI, government, …
    patterns: ['^[A-Z]{3}[ABCEFGHJLPT][A-Z][0-9]{4}[A-Z]$'],
  }),
  identifier('HSN/SAC', GST_START, {
    role: 'product',
    format: '4, 6 or 8 digits for goods; 99 and 2 or 4 more digits for services',
    fieldWords: ['hsn', 'sac', 'hsn_sac', 'hsnsac', 'hsn_code', 'sac_code', 'hsn_or_sac'],
    // Goods: chapters 01-98 as 4, 6 or 8 digits; services: 99 and 2 or 4 more digits.
    patterns: ['^(?!00)(?!99)[0-9]{2}([0-9]{2}|[0-9]{4}|[0-9]{6})$', '^99[0-9]{2}([0-9]{2})?$'],
  }),
];

/** GST state codes: [code, name, aliases, from, to]. */
const STATES: [string, string, string[], string?, string?][] = [
  ['01', 'Jammu and Kashmir', ['JK', 'J&K']],
  ['02', 'Himachal Pradesh', ['HP']],
  ['03', 'Punjab', ['PB']],
  ['04', 'Chandigarh', ['CH']],
  ['05', 'Uttarakhand', ['UK', 'UT', 'Uttaranchal']],
  ['06', 'Haryana', ['HR']],
  ['07', 'Delhi', ['DL', 'New Delhi', 'NCT of Delhi']],
  ['08', 'Rajasthan', ['RJ']],
  ['09', 'Uttar Pradesh', ['UP']],
  ['10', 'Bihar', ['BR']],
  ['11', 'Sikkim', ['SK']],
  ['12', 'Arunachal Pradesh', ['AR']],
  ['13', 'Nagaland', ['NL']],
  ['14', 'Manipur', ['MN']],
  ['15', 'Mizoram', ['MZ']],
  ['16', 'Tripura', ['TR']],
  ['17', 'Meghalaya', ['ML']],
  ['18', 'Assam', ['AS']],
  ['19', 'West Bengal', ['WB']],
  ['20', 'Jharkhand', ['JH']],
  ['21', 'Odisha', ['OD', 'OR', 'Orissa']],
  ['22', 'Chhattisgarh', ['CG', 'Chattisgarh']],
  ['23', 'Madhya Pradesh', ['MP']],
  ['24', 'Gujarat', ['GJ']],
  ['25', 'Daman and Diu', ['DD'], GST_START, '2020-01-26'],
  ['26', 'Dadra and Nagar Haveli', ['DN'], GST_START, '2020-01-26'],
  [
    '26',
    'Dadra and Nagar Haveli and Daman and Diu',
    ['DNHDD', 'DH', 'Daman and Diu', 'Dadra and Nagar Haveli'],
    '2020-01-26',
  ],
  ['27', 'Maharashtra', ['MH']],
  ['28', 'Andhra Pradesh (before division)', []],
  ['29', 'Karnataka', ['KA']],
  ['30', 'Goa', ['GA']],
  ['31', 'Lakshadweep', ['LD']],
  ['32', 'Kerala', ['KL']],
  ['33', 'Tamil Nadu', ['TN']],
  ['34', 'Puducherry', ['PY', 'Pondicherry']],
  ['35', 'Andaman and Nicobar Islands', ['AN']],
  ['36', 'Telangana', ['TS', 'TG']],
  ['37', 'Andhra Pradesh', ['AP', 'AD']],
  ['38', 'Ladakh', ['LA'], '2019-10-31'],
  ['97', 'Other Territory', ['OT']],
  ['99', 'Centre Jurisdiction', []],
];

const INDIA_REGIONS: TaxRuleSeed[] = STATES.map(([code, name, aliases, from, to]) => ({
  country_code: 'IN',
  kind: 'region',
  key: code,
  effective_from: from ?? GST_START,
  ...(to ? { effective_to: to } : {}),
  rule: { code, name, ...(aliases.length > 0 ? { aliases } : {}) },
}));

/** India's GST rules as seeded (exported for tests that check against the data the database holds). */
export const INDIA_TAX_RULES: readonly TaxRuleSeed[] = [
  ...INDIA_RATES,
  ...INDIA_IDS,
  ...INDIA_REGIONS,
  {
    country_code: 'IN',
    kind: 'split',
    key: 'GST',
    effective_from: GST_START,
    // A supply to an SEZ unit or developer is inter-state even within the state (IGST Act, section 7(5)(b)).
    rule: {
      within: ['CGST', 'SGST', 'UTGST'],
      across: ['IGST'],
      acrossWhen: ['SEZ', 'special economic zone'],
    },
  },
];

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('tax_rules')
    .addColumn('country_code', 'text', (c) => c.notNull().references('country_configs.country_code'))
    .addColumn('kind', 'text', (c) =>
      c.notNull().check(sql`kind in ('rate', 'identifier', 'region', 'split')`),
    )
    // The rate, the region's code, the identifier's name: one rule of a kind from one date.
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('effective_from', 'date', (c) => c.notNull())
    // Exclusive; null: still in force.
    .addColumn('effective_to', 'date')
    .addColumn('rule', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('tax_rules_pkey', ['country_code', 'kind', 'key', 'effective_from'])
    .addCheckConstraint('tax_rules_dates_check', sql`effective_to is null or effective_to > effective_from`)
    .execute();
  await db
    .insertInto('tax_rules')
    .values(INDIA_TAX_RULES.map((r) => ({ ...r, rule: JSON.stringify(r.rule) })))
    .execute();
  // The business's GST state and GSTIN (the admin API's migration adds them too, if not already there).
  await sql`alter table business_contexts
    add column if not exists state text,
    add column if not exists gstin text`.execute(db);
  await applyGrants(db, TAX_RULE_GRANTS);
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('tax_rules').execute();
  await sql`alter table business_contexts drop column if exists state, drop column if exists gstin`.execute(
    db,
  );
}
