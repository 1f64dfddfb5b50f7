import { type Kysely, sql } from 'kysely';
import type { Database, NumberSystem } from './schema.ts';

/** How a tenant's business writes money, numbers and dates, and when its financial year starts. */
export interface BusinessContext {
  companyName: string | null;
  countryCode: string;
  countryName: string;
  /** ISO 4217 code of the books' currency. */
  currency: string;
  currencySymbol: string;
  /** BCP 47 locale for numbers and dates. */
  locale: string;
  numberSystem: NumberSystem;
  /** The date pattern users of this locale read, e.g. DD/MM/YYYY. */
  dateFormat: string;
  /** 1 = January … 12 = December. */
  fyStartMonth: number;
  /** The indirect tax's name: GST, VAT, Sales tax. */
  taxName: string;
  timezone: string;
  industry: string | null;
  entitySize: string | null;
  /** False when the tenant has no business context row and these are the defaults. */
  configured: boolean;
}

/** An Indian business: what every tenant is until a business context says otherwise. */
export const DEFAULT_BUSINESS_CONTEXT: Readonly<BusinessContext> = Object.freeze({
  companyName: null,
  countryCode: 'IN',
  countryName: 'India',
  currency: 'INR',
  currencySymbol: '₹',
  locale: 'en-IN',
  numberSystem: 'indian',
  dateFormat: 'DD/MM/YYYY',
  fyStartMonth: 4,
  taxName: 'GST',
  timezone: 'Asia/Kolkata',
  industry: null,
  entitySize: null,
  configured: false,
});

/** A stored locale Intl understands, else undefined (an admin's typo must not break every answer). */
function validLocale(locale: string | null | undefined): string | undefined {
  if (!locale) return undefined;
  try {
    return Intl.getCanonicalLocales(locale)[0];
  } catch {
    return undefined;
  }
}

function validTimeZone(zone: string | null | undefined): string | undefined {
  if (!zone) return undefined;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone;
  } catch {
    return undefined;
  }
}

/** DD/MM/YYYY, MM/DD/YYYY, YYYY-MM-DD…: the order a locale writes a short date in. */
export function datePattern(locale: string): string {
  const parts = new Intl.DateTimeFormat(locale, {
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    timeZone: 'UTC',
  }).formatToParts(new Date(Date.UTC(2001, 10, 22)));
  const token: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {
    day: 'DD',
    month: 'MM',
    year: 'YYYY',
  };
  return parts.map((p) => token[p.type] ?? p.value).join('');
}

function currencySymbol(locale: string, currency: string): string {
  try {
    return (
      new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: 'narrowSymbol' })
        .formatToParts(0)
        .find((p) => p.type === 'currency')?.value ?? currency
    );
  } catch {
    return currency;
  }
}

/**
 * The columns of {@link BusinessContextRow} over a tenant's `b` (business_contexts) and `c`
 * (country_configs), with `configured`: whether the tenant has a row, over a configured country.
 */
export const BUSINESS_COLUMNS = sql`
  b.company_name, b.country_code, c.country_name,
  b.currency_code as own_currency, c.currency_code as country_currency, c.currency_symbol,
  b.locale as own_locale, c.locale as country_locale,
  b.number_system as own_number_system, c.number_system as country_number_system,
  c.date_format, b.fy_start_month as own_fy_start_month, c.fy_start_month as country_fy_start_month,
  c.tax_name, b.timezone as own_timezone, c.timezone as country_timezone,
  b.industry, b.entity_size,
  c.country_code is not null as configured`;

/** A tenant's `b` and `c` as one row, always (their columns null when it has no business context). */
export const businessFrom = (tenant: { entityId: string; orgId: string }) => sql`
  (select) as one
  left join business_contexts b on b.entity_id = ${tenant.entityId} and b.org_id = ${tenant.orgId}
  left join country_configs c on c.country_code = b.country_code`;

/**
 * The business context of a tenant (entity + org): its row in `business_contexts` over its
 * country's `country_configs`, or the Indian default when it has none.
 */
export async function loadBusinessContext(
  db: Kysely<Database>,
  tenant: { entityId: string; orgId: string },
): Promise<BusinessContext> {
  const { rows } = await sql<Partial<BusinessContextRow> & { configured: boolean }>`
    select ${BUSINESS_COLUMNS} from ${businessFrom(tenant)}`.execute(db);
  return businessOf(rows[0]?.configured ? (rows[0] as BusinessContextRow) : undefined);
}

/** The columns of a business context row over its country's, as {@link loadBusinessContext} reads them. */
export interface BusinessContextRow {
  company_name: string | null;
  country_code: string;
  country_name: string;
  own_currency: string | null;
  country_currency: string;
  currency_symbol: string;
  own_locale: string | null;
  country_locale: string;
  own_number_system: NumberSystem | null;
  country_number_system: NumberSystem;
  date_format: string;
  own_fy_start_month: number | null;
  country_fy_start_month: number;
  tax_name: string;
  own_timezone: string | null;
  country_timezone: string;
  industry: string | null;
  entity_size: string | null;
}

/** A tenant's business context from its row; the Indian default without one. */
export function businessOf(row: BusinessContextRow | undefined): BusinessContext {
  if (!row) return { ...DEFAULT_BUSINESS_CONTEXT };
  const ownLocale = validLocale(row.own_locale);
  const locale = ownLocale ?? validLocale(row.country_locale) ?? DEFAULT_BUSINESS_CONTEXT.locale;
  const currency = row.own_currency ?? row.country_currency;
  return {
    companyName: row.company_name,
    countryCode: row.country_code,
    countryName: row.country_name,
    currency,
    currencySymbol:
      currency === row.country_currency && !ownLocale
        ? row.currency_symbol
        : currencySymbol(locale, currency),
    locale,
    numberSystem: row.own_number_system ?? row.country_number_system,
    dateFormat: ownLocale ? datePattern(locale) : row.date_format,
    fyStartMonth: row.own_fy_start_month ?? row.country_fy_start_month,
    taxName: row.tax_name,
    timezone:
      validTimeZone(row.own_timezone) ??
      validTimeZone(row.country_timezone) ??
      DEFAULT_BUSINESS_CONTEXT.timezone,
    industry: row.industry,
    entitySize: row.entity_size,
    configured: true,
  };
}
