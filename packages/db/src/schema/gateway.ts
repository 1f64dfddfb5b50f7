import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type { GeneratedJson, GeneratedTimestamp, NullableTimestamp, Timestamp } from './columns.ts';
import type { NumberSystem } from './reference.ts';

/**
 * The tables the gateway owns: what operators and users change through its HTTP API (intents,
 * model configurations, sample queries, attachments) and the per-tenant usage it admits queries by.
 * Each table says who else writes it and who only reads it; the services' database roles grant
 * exactly that (migration 0024).
 */

/** One step of an intent's resolution flow, with its arguments. */
export interface ResolutionStep {
  tool: string;
  args: Record<string, unknown>;
  description: string;
  purpose: string;
}

/** An entity an intent extracts from the query (e.g. a date range or a customer name). */
export interface IntentEntitySpec {
  name: string;
  type: string;
  required?: boolean;
}

/**
 * Financial query intents with training phrases and resolution flows.
 * Written by the gateway (intent authoring); read by the router and the agent.
 */
export interface IntentsTable {
  id: string;
  name: string;
  module_id: string | null;
  description: string | null;
  training_phrases: GeneratedJson<string[]>;
  entities: GeneratedJson<IntentEntitySpec[]>;
  resolution_flow: GeneratedJson<ResolutionStep[]>;
  /** `table`, `report`, `narrative`, … */
  response_format: Generated<string>;
  is_active: Generated<boolean>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

/**
 * Clickable sample queries per tenant (entity + org); see migrations 0011, 0017.
 * Written by the gateway; read by the agent.
 */
export interface QuickSuggestionsTable {
  id: Generated<number>;
  entity_id: string;
  org_id: string;
  text: string;
  sort_order: Generated<number>;
  is_active: Generated<boolean>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

/**
 * Model configurations an operator saved; see migration 0012. `api_key_encrypted` is `sealLlmKey` output (migration 0023 sealed the `v1` keys written before keys were bound to their rows; `openLlmKey` refuses `v1`).
 * Written by the gateway; the agent reads them and adds only its usage counters.
 */
export interface LlmConfigsTable {
  id: Generated<number>;
  name: string;
  provider: string;
  model: string;
  endpoint: string;
  api_style: Generated<'openai' | 'azure'>;
  api_key_encrypted: string | null;
  temperature: number | null;
  max_tokens: number | null;
  is_default: Generated<boolean>;
  /** Ids of the configurations a call fails over to, in order, when this one is the default (migration 0036); bigint[] reads as strings. */
  fallback_ids: ColumnType<string[], number[] | undefined, number[]>;
  total_input_tokens: Generated<number>;
  total_output_tokens: Generated<number>;
  total_requests: Generated<number>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

/** Details of what was read from an attachment. */
export interface ExtractionDetails {
  rows?: number;
  pages?: number;
  sheets?: string[];
  /** Header cells of the first sheet or of a CSV. */
  columns?: string[];
  truncated?: boolean;
}

/**
 * An uploaded file; its bytes are in local or S3-compatible storage under `storage_key`.
 * Written by the gateway (uploads) and messaging (files sent from a phone); read by the agent.
 */
export interface AttachmentsTable {
  id: string;
  entity_id: string;
  org_id: string;
  conversation_id: string | null;
  filename: string;
  mime_type: string;
  category: 'image' | 'spreadsheet' | 'pdf' | 'document';
  size_bytes: number;
  sha256: string;
  storage: 'local' | 's3';
  storage_key: string;
  extraction_status: 'done' | 'failed' | 'skipped';
  extracted_text: string | null;
  extraction_error: string | null;
  extraction_details: GeneratedJson<ExtractionDetails>;
  created_at: GeneratedTimestamp;
}

/** What a tenant's usage row counts: queries admitted, or model tokens spent. */
export type UsageKind = 'queries' | 'tokens';

/**
 * Per-tenant usage in one fixed window, counted against its quotas.
 * Written by the gateway (queries admitted) and the agent (model tokens).
 */
export interface TenantUsageTable {
  entity_id: string;
  org_id: string;
  /** Start of the window: a multiple of the window length since the epoch. */
  window_start: Timestamp;
  kind: UsageKind;
  count: number;
  updated_at: GeneratedTimestamp;
}

/** A role a user may hold for an entity. */
export type UserRole = 'viewer' | 'maker' | 'approver' | 'admin' | 'owner' | 'automation';

/** What an issued API key is for: a person's own use, or a program's. */
export type KeyKind = 'person' | 'program';

/**
 * A person of an org (or a program, with the `automation` role), whom requests act as.
 * Written by the gateway (the admin API); read by the agent and messaging (a sender's phone names a user).
 */
export interface UsersTable {
  id: string;
  org_id: string;
  name: string;
  email: string | null;
  /** E.164, e.g. +919812345678. */
  phone: string | null;
  created_at: GeneratedTimestamp;
  created_by: string;
  disabled_at: NullableTimestamp;
}

/** What a user may do for one entity. Written by the gateway (the admin API); read by the agent and messaging. */
export interface UserRolesTable {
  user_id: string;
  org_id: string;
  entity_id: string;
  role: UserRole;
  granted_at: GeneratedTimestamp;
  granted_by: string;
}

/** A user's API key, kept only as its SHA-256. Written and read by the gateway alone. */
export interface ApiKeysTable {
  id: string;
  user_id: string;
  org_id: string;
  key_hash: string;
  /** The key's first characters, so a person can tell their keys apart. */
  shown_prefix: string;
  label: string | null;
  /** `person` (default) or `program`: a program's key never confirms its own writes without `automation`. */
  kind: Generated<KeyKind>;
  created_at: GeneratedTimestamp;
  created_by: string;
  revoked_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
}

/**
 * A standing approval: writes within its scope need only their maker's confirmation.
 * Written by the gateway (granted and revoked through the API); the agent counts its uses.
 */
export interface StandingApprovalsTable {
  id: string;
  org_id: string;
  entity_id: string;
  granted_by: string | null;
  granted_roles: string[];
  write_class: string | null;
  tool: string | null;
  party: string | null;
  max_amount: ColumnType<string | null, number | string | null | undefined, never>;
  max_total: ColumnType<string | null, number | string | null | undefined, never>;
  max_uses: number;
  uses: ColumnType<number, number | undefined, number>;
  used_total: ColumnType<string, number | string | undefined, number | string>;
  expires_at: ColumnType<Date, Date | string, never>;
  created_at: GeneratedTimestamp;
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  revoked_by: string | null;
}

/**
 * An org's approval policy (who must approve which writes), set through the admin API; see
 * migration 0027. Written by the gateway, checked against the policy schema first; read by the agent.
 */
export interface ApprovalPoliciesTable {
  org_id: string;
  policy: JSONColumnType<Record<string, unknown>, string, string>;
  updated_by: string;
  updated_at: GeneratedTimestamp;
}

/**
 * A tenant's business: its country, any overrides of the country's settings, its state and GSTIN;
 * see migrations 0019 and 0030. Written by the gateway (the admin API; once only by the
 * migrations and operators in SQL); read by the agent, the router (a question's period) and
 * messaging (the business's formats on a phone).
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
  /** Where the business is registered within its country (India: the GST state). */
  state: string | null;
  /** The business's own GST registration. */
  gstin: string | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

/**
 * Closed periods: the last day of a tenant's (entity + org) closed books; see migration 0030. A
 * write dated on or before it is refused. Written by the gateway (the admin API, each change on
 * the audit trail); read by the agent before it proposes a write.
 */
export interface LockDatesTable {
  entity_id: string;
  org_id: string;
  /** `YYYY-MM-DD`; null: no period is closed. */
  lock_date: ColumnType<string | null, string | null, string | null>;
  updated_by: string;
  updated_at: GeneratedTimestamp;
}
