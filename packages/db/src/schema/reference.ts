import type { GeneratedJson, GeneratedTimestamp } from './columns.ts';

/**
 * Reference data no service writes: country settings, set by the migrations (and by operators in
 * SQL). The agent and the gateway read them.
 */

/** Whose figures are written how: the large-number words and grouping of a country. */
export type NumberSystem = 'indian' | 'international';

/**
 * Country settings; see migration 0019.
 * Written by the migrations; read by the agent and the gateway.
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
