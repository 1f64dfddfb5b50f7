import type { Generated } from 'kysely';
import type { GeneratedJson, GeneratedTimestamp } from './columns.ts';

/**
 * Reference data no service writes: country settings and each tenant's business, set by the
 * migrations (and by operators in SQL). The agent reads them.
 */

/** Whose figures are written how: the large-number words and grouping of a country. */
export type NumberSystem = 'indian' | 'international';

/**
 * Country settings; see migration 0019.
 * Written by the migrations; read by the agent.
 */
export interface CountryConfigsTable {
  country_code: string;
  country_name: string;
  currency_code: string;
  currency_symbol: string;
  locale: string;
  number_system: NumberSystem;
  date_format: string;
  fy_start_month: number;
  tax_name: string;
  timezone: string;
  thresholds: GeneratedJson<Record<string, number>>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

/**
 * A tenant's business: its country and any overrides of the country's settings; see migration 0019.
 * Written by operators; read by the agent.
 */
export interface BusinessContextsTable {
  entity_id: string;
  org_id: string;
  company_name: string | null;
  country_code: Generated<string>;
  currency_code: string | null;
  locale: string | null;
  number_system: NumberSystem | null;
  fy_start_month: number | null;
  timezone: string | null;
  industry: string | null;
  entity_size: string | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}
