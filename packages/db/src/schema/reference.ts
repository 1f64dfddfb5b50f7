import type { ColumnType } from 'kysely';
import type { GeneratedJson, GeneratedTimestamp } from './columns.ts';

/**
 * Reference data no service writes: country settings, set by the migrations (and by operators in
 * SQL). The agent and the gateway read them.
 */

/** Whose figures are written how: the large-number words and grouping of a country. */
export type NumberSystem = 'indian' | 'international';

/**
 * Country settings; see migration 0019.
 * Written by the migrations; read by the agent, the gateway and the router (a question's period).
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
 * A country's tax rules, each in force from a date: rates, identifier formats, regions, and the
 * split of its tax within and across regions; see migration 0029. Written by the migrations (and by
 * operators in SQL: another country is more rows); read by the agent, which sends the rules to the
 * validator with each call.
 */
export interface TaxRulesTable {
  country_code: string;
  kind: 'rate' | 'identifier' | 'region' | 'split';
  /** The rate, the region's code or the identifier's name. */
  key: string;
  /** `YYYY-MM-DD`, inclusive. */
  effective_from: ColumnType<string, string, string>;
  /** `YYYY-MM-DD`, exclusive; null: still in force. */
  effective_to: ColumnType<string | null, string | null | undefined, string | null>;
  /** The rest of the rule (its rate, patterns, name…), as the validator's tax rules have it. */
  rule: GeneratedJson<Record<string, unknown>>;
  created_at: GeneratedTimestamp;
}
