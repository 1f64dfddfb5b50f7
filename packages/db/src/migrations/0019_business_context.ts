import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/**
 * Country settings, seeded for the countries munim is first used in. Thresholds are the
 * registration turnovers of each country's indirect tax, in its own currency.
 */
const COUNTRIES = [
  {
    country_code: 'IN',
    country_name: 'India',
    currency_code: 'INR',
    currency_symbol: '₹',
    locale: 'en-IN',
    number_system: 'indian',
    date_format: 'DD/MM/YYYY',
    fy_start_month: 4,
    tax_name: 'GST',
    timezone: 'Asia/Kolkata',
    thresholds: { tax_registration_turnover: 4_000_000, tax_registration_turnover_services: 2_000_000 },
  },
  {
    country_code: 'US',
    country_name: 'United States',
    currency_code: 'USD',
    currency_symbol: '$',
    locale: 'en-US',
    number_system: 'international',
    date_format: 'MM/DD/YYYY',
    fy_start_month: 1,
    tax_name: 'Sales tax',
    timezone: 'America/New_York',
    thresholds: {},
  },
  {
    country_code: 'GB',
    country_name: 'United Kingdom',
    currency_code: 'GBP',
    currency_symbol: '£',
    locale: 'en-GB',
    number_system: 'international',
    date_format: 'DD/MM/YYYY',
    fy_start_month: 4,
    tax_name: 'VAT',
    timezone: 'Europe/London',
    thresholds: { tax_registration_turnover: 90_000 },
  },
  {
    country_code: 'AE',
    country_name: 'United Arab Emirates',
    currency_code: 'AED',
    currency_symbol: 'AED',
    locale: 'en-AE',
    number_system: 'international',
    date_format: 'DD/MM/YYYY',
    fy_start_month: 1,
    tax_name: 'VAT',
    timezone: 'Asia/Dubai',
    thresholds: { tax_registration_turnover: 375_000 },
  },
  {
    country_code: 'SG',
    country_name: 'Singapore',
    currency_code: 'SGD',
    currency_symbol: 'S$',
    locale: 'en-SG',
    number_system: 'international',
    date_format: 'DD/MM/YYYY',
    fy_start_month: 1,
    tax_name: 'GST',
    timezone: 'Asia/Singapore',
    thresholds: { tax_registration_turnover: 1_000_000 },
  },
  {
    country_code: 'AU',
    country_name: 'Australia',
    currency_code: 'AUD',
    currency_symbol: 'A$',
    locale: 'en-AU',
    number_system: 'international',
    date_format: 'DD/MM/YYYY',
    fy_start_month: 7,
    tax_name: 'GST',
    timezone: 'Australia/Sydney',
    thresholds: { tax_registration_turnover: 75_000 },
  },
];

/**
 * Business context: per country its currency, locale, number
 * system and financial year (`country_configs`), and per tenant — entity and org — its country and
 * any overrides (`business_contexts`). A tenant without a row is an Indian business (INR, en-IN).
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('country_configs')
    .ifNotExists()
    .addColumn('country_code', 'text', (c) => c.primaryKey().check(sql`country_code ~ '^[A-Z]{2}$'`))
    .addColumn('country_name', 'text', (c) => c.notNull())
    .addColumn('currency_code', 'text', (c) => c.notNull().check(sql`currency_code ~ '^[A-Z]{3}$'`))
    .addColumn('currency_symbol', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('number_system', 'text', (c) =>
      c.notNull().check(sql`number_system in ('indian', 'international')`),
    )
    .addColumn('date_format', 'text', (c) => c.notNull())
    .addColumn('fy_start_month', 'smallint', (c) => c.notNull().check(sql`fy_start_month between 1 and 12`))
    .addColumn('tax_name', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('thresholds', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db
    .insertInto('country_configs')
    .values(COUNTRIES.map((c) => ({ ...c, thresholds: JSON.stringify(c.thresholds) })))
    .onConflict((oc) => oc.column('country_code').doNothing())
    .execute();
  await db.schema
    .createTable('business_contexts')
    .ifNotExists()
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('company_name', 'text')
    .addColumn('country_code', 'text', (c) =>
      c.notNull().defaultTo('IN').references('country_configs.country_code'),
    )
    // Overrides of the country's settings; null means "as the country".
    .addColumn('currency_code', 'text', (c) => c.check(sql`currency_code ~ '^[A-Z]{3}$'`))
    .addColumn('locale', 'text')
    .addColumn('number_system', 'text', (c) => c.check(sql`number_system in ('indian', 'international')`))
    .addColumn('fy_start_month', 'smallint', (c) => c.check(sql`fy_start_month between 1 and 12`))
    .addColumn('timezone', 'text')
    .addColumn('industry', 'text')
    .addColumn('entity_size', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('business_contexts_pkey', ['entity_id', 'org_id'])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('business_contexts').ifExists().execute();
  await db.schema.dropTable('country_configs').ifExists().execute();
}
