import type { ColumnType, Generated, Insertable, JSONColumnType, Selectable, Updateable } from 'kysely';

/*
 * Column conventions (see `createDb`): `bigint`, `bigserial` and `numeric` read as JS numbers;
 * `timestamptz` reads as `Date` and accepts a `Date` or an ISO string; `jsonb` columns are
 * written as JSON text (`JSON.stringify(value)`), because `pg` would turn a JS array into a
 * PostgreSQL array literal, not JSON; `text[]` columns take plain string arrays.
 */

/** A `timestamptz` the writer must supply. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A `timestamptz` with a database default (`now()`). */
export type GeneratedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** A `timestamptz` that may be null. */
export type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;
/** A `text[]` column with a default of `'{}'`. */
export type TextArray = ColumnType<string[], string[] | undefined, string[]>;
/** A `jsonb` column with a default, written as JSON text. */
export type GeneratedJson<T extends object> = JSONColumnType<T, string | undefined, string>;
/** A nullable `jsonb` column, written as JSON text. */
export type NullableJson<T extends object> = JSONColumnType<
  T | null,
  string | null | undefined,
  string | null
>;

/** The outcome of the MCP call that followed a passed write validation (seed 000 §9.1). */
export interface WriteMcpResult {
  success: boolean;
  error?: string;
}

/** One write validation of a request, as kept in `query_routing_logs.write_tool_results` (seed 000 §9.1). */
export interface WriteToolResult {
  tool: string;
  validation_status: 'blocked' | 'passed';
  /** Fields the validator looked at: the ones it validated plus the ones it found missing. */
  fields_checked: string[];
  missing_fields?: string[];
  message?: string;
  duration_ms: number;
  /** Filled by the `tool_result` of this call; null while blocked or not yet executed. */
  mcp_result: WriteMcpResult | null;
}

/** One step of an intent's resolution flow (seed 003 §2.5 `pipelineSteps`, with its arguments). */
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

/** One message of a stored conversation (seed 003 §9.1). */
export interface ConversationMessage {
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
  requestId?: string;
  ts?: string;
  metadata?: Record<string, unknown>;
}

/** Every event of every request, exactly as it travelled on the bus. */
export interface RequestEventsTable {
  /** The envelope id. */
  id: string;
  request_id: string;
  /** JetStream stream sequence: the order of the request's events. */
  seq: ColumnType<number, number, number>;
  type: string;
  service: string;
  conversation_id: string;
  entity_id: string;
  org_id: string;
  payload: JSONColumnType<Record<string, unknown>>;
  ts: Timestamp;
  stored_at: GeneratedTimestamp;
}

/** One row per request: its route, tools, writes, guardrails, usage and outcome (seed 000 §9). */
export interface QueryRoutingLogsTable {
  request_id: string;
  query: string | null;
  path: string | null;
  category: string | null;
  confidence: number | null;
  tier: string | null;
  intent_id: string | null;
  intent_confidence: number | null;
  entity_id: string;
  org_id: string;
  conversation_id: string;
  is_write_operation: Generated<boolean>;
  write_tool_results: GeneratedJson<WriteToolResult[]>;
  guardrails_triggered: TextArray;
  tools_used: TextArray;
  tools_failed: TextArray;
  llm_model: string | null;
  iteration_count: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  latency_ms: number | null;
  /** `running` until `complete` (then its status) or `error` (then `error`). */
  status: Generated<string>;
  error_code: string | null;
  response: string | null;
  trace_id: string | null;
  /** Time of the request's earliest event. */
  created_at: Timestamp;
  updated_at: GeneratedTimestamp;
}

/** Financial query intents with training phrases and resolution flows (seed 003 §3.2). */
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

/** MCP tool metadata with keywords, module mapping and usage count (seed 003 §11). */
export interface ToolRegistryTable {
  tool_name: string;
  description: string | null;
  input_schema: GeneratedJson<Record<string, unknown>>;
  annotations: NullableJson<Record<string, unknown>>;
  is_write: Generated<boolean>;
  tool_group: string | null;
  keywords: TextArray;
  module_id: string | null;
  usage_count: Generated<number>;
  last_seen_at: NullableTimestamp;
  updated_at: GeneratedTimestamp;
  /** The MCP server that lists the tool (its configured name). */
  server_name: string | null;
  /** Why the tool is a read or a write: `verb`, `annotation`, `policy` or `default`. */
  access_reason: string | null;
  /** The same in words: which verb, annotation or policy entry decided. */
  access_detail: string | null;
  /** Confirmation tier of a write (0 for reads and policy-exempt writes). */
  confirm_tier: number | null;
}

/** Whether the server lists the pinned definition of a tool, one an operator refused, or another. */
export type ToolPinState = 'pinned' | 'changed' | 'refused';

/** A tool's wire definition as pinned: what `tools/list` says of it, hashed. */
export interface PinnedToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** The definition of each tool of each server an operator trusts, and the one listed now (issue 26). */
export interface ToolPinsTable {
  /** The server's configured name. */
  server_name: string;
  /** The tool's name on its own server. */
  tool_name: string;
  pinned_hash: string;
  pinned_definition: JSONColumnType<PinnedToolDefinition>;
  /** When the pinned definition was first listed or accepted. */
  pinned_at: GeneratedTimestamp;
  /** Who accepted the pinned definition; null for the first listing's. */
  accepted_by: string | null;
  listed_hash: string;
  listed_definition: JSONColumnType<PinnedToolDefinition>;
  listed_at: GeneratedTimestamp;
  refused_hash: string | null;
  refused_by: string | null;
  refused_at: NullableTimestamp;
  /** Derived by the database from the three hashes. */
  state: ColumnType<ToolPinState, never, never>;
}

/** Conversation history, numbered per tenant (entity + org: #MJ-0001 …) and soft-deletable (seed 003 §6.14). */
export interface UnifiedConversationsTable {
  /** The conversation id. */
  id: string;
  entity_id: string;
  org_id: string;
  chat_number: number;
  chat_name: string | null;
  messages: GeneratedJson<ConversationMessage[]>;
  message_count: Generated<number>;
  last_message_preview: string | null;
  summary: string | null;
  /** How many of the first messages `summary` covers. */
  summarized_count: Generated<number>;
  is_deleted: Generated<boolean>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

/** Token usage and latency per LLM call site (seed 003 §1.4). */
export interface LlmUsageLogsTable {
  id: Generated<number>;
  request_id: string | null;
  entity_id: string | null;
  org_id: string | null;
  model: string;
  /** Pipeline stage: `chat`, `summarization`, … */
  section: Generated<string>;
  input_tokens: Generated<number>;
  output_tokens: Generated<number>;
  total_tokens: Generated<number>;
  latency_ms: number | null;
  /** `success` or `error`. */
  status: Generated<string>;
  error: string | null;
  created_at: GeneratedTimestamp;
}

/** Explicit (thumbs) and implicit (rephrase, follow-up, action) feedback with its context (seed 003 §6.11, §8.5). */
export interface FeedbackLogTable {
  id: Generated<number>;
  request_id: string | null;
  conversation_id: string | null;
  entity_id: string;
  org_id: string;
  kind: 'explicit' | 'implicit';
  /** `thumbs_up`, `thumbs_down`, `rephrase`, `follow_up`, `action_taken`, … */
  signal: string | null;
  score: number | null;
  query: string | null;
  response: string | null;
  intent_id: string | null;
  tools_used: TextArray;
  llm_model: string | null;
  latency_ms: number | null;
  comment: string | null;
  created_at: GeneratedTimestamp;
  /** When the logger applied it to the routing stats (migration 0020); null: not yet. */
  learned_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** Cached answers by tenant (entity + org) and SHA-256 of normalized query + path, with a TTL (seed 003 §6.13). */
export interface ResponseCacheTable {
  entity_id: string;
  org_id: string;
  /** SHA-256 hex. */
  cache_key: string;
  path: string;
  query_normalized: string;
  response: JSONColumnType<Record<string, unknown>>;
  /** Decides the TTL: `volatile`, `report`, `static`. */
  data_kind: string;
  expires_at: Timestamp;
  created_at: GeneratedTimestamp;
}

/** Success and failure per intent per confidence bucket of 0.05 (seed 003 §8.1). */
export interface IntentRoutingStatsTable {
  intent_id: string;
  /** numeric(3,2), e.g. 0.85. */
  confidence_bucket: number;
  total_attempts: Generated<number>;
  successful_attempts: Generated<number>;
  failed_attempts: Generated<number>;
  avg_response_ms: Generated<number>;
  avg_feedback_score: number | null;
  updated_at: GeneratedTimestamp;
}

/** LLM-path query patterns, for discovering intents (seed 003 §8.3). */
export interface LlmPathPatternsTable {
  query_hash: string;
  query_text: string;
  tools_used: TextArray;
  strategy: string | null;
  occurrence_count: Generated<number>;
  avg_response_ms: Generated<number>;
  avg_feedback_score: number | null;
  first_seen_at: GeneratedTimestamp;
  last_seen_at: GeneratedTimestamp;
}

/** Intents suggested from frequent LLM-path patterns, pending review (seed 003 §8.4). */
export interface SuggestedIntentsTable {
  id: Generated<number>;
  pattern_hash: string;
  name: string;
  training_phrases: GeneratedJson<string[]>;
  tools: GeneratedJson<string[]>;
  /** `pending`, `approved`, `rejected`. */
  status: Generated<string>;
  created_at: GeneratedTimestamp;
}

/** Idempotency of one write tool call (issue 6); see migration 0004. */
export interface ToolIdempotencyTable {
  key: string;
  request_id: string;
  call_id: string;
  tool: string;
  args_hash: string;
  state: ColumnType<'pending' | 'succeeded' | 'failed' | 'unknown', string | undefined, string>;
  result: NullableJson<Record<string, unknown>>;
  owner: string;
  deadline_at: Timestamp;
  expires_at: Timestamp;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

/** The database of munim, as kysely sees it. */
/** A write waiting for the user's confirmation (seed 000 §7). */
export interface PendingActionsTable {
  action_id: string;
  request_id: string;
  conversation_id: string;
  entity_id: string;
  org_id: string;
  tool: string;
  args: JSONColumnType<Record<string, unknown>, string, string>;
  args_hash: string;
  tier: number;
  confirm_text: string | null;
  question: string;
  call_id: string;
  tool_call_id: string;
  state: JSONColumnType<Record<string, unknown>, string, string>;
  status: ColumnType<
    'pending' | 'executing' | 'executed' | 'cancelled' | 'expired' | 'void',
    string | undefined,
    string
  >;
  result: NullableJson<Record<string, unknown>>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  created_at: GeneratedTimestamp;
  decided_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** When the user confirmed it: from then on the executor accepts it as proof for one call. */
  approved_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The call that used the approval; a retry of that call finds it again, no other call does. */
  executed_call_id: string | null;
  /** The request that carried the approval (a redelivery of it finishes the write). */
  approved_by_request: string | null;
  /** The request whose call used the approval: with `executed_call_id`, the one call it binds. */
  executed_request_id: string | null;
  /** When the approval was used; a retry of its call is accepted while its outcome is kept. */
  executed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** The router's decision for a request still running (issue 4); see migration 0008. */
export interface RouterRoutesTable {
  request_id: string;
  entity_id: string;
  org_id: string;
  query_normalized: string;
  path: string;
  category: string;
  strategy: string;
  /** False for conversation-dependent routes (follow-ups, pagination, confirmations). */
  cacheable: boolean;
  intent_id: string | null;
  confidence: number | null;
  created_at: GeneratedTimestamp;
}

/**
 * What the router counted for one request (the intent's fast-path outcome, the LLM-path pattern)
 * and the feedback score since applied to those counts (migration 0020).
 */
export interface RoutingOutcomesTable {
  request_id: string;
  entity_id: string;
  org_id: string;
  intent_id: string | null;
  /** numeric(3,2); set exactly when `intent_id` is. */
  confidence_bucket: number | null;
  answered: boolean;
  pattern_hash: string | null;
  feedback_score: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: GeneratedTimestamp;
}

/** Clickable sample queries per tenant (entity + org, seed 003 §6.1); see migrations 0011, 0017. */
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

/** Model configurations (seed 003 §1.4); see migration 0012. `api_key_encrypted` is `sealLlmKey` output (migration 0023 sealed the `v1` keys written before keys were bound to their rows; `openLlmKey` refuses `v1`). */
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

/** An uploaded file (seed 003 §6.3); its bytes are in local or S3-compatible storage under `storage_key`. */
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

/** Per-tenant usage in one fixed window (quotas, issue 17 item 10). */
export interface TenantUsageTable {
  entity_id: string;
  org_id: string;
  /** Start of the window: a multiple of the window length since the epoch. */
  window_start: Timestamp;
  kind: UsageKind;
  count: number;
  updated_at: GeneratedTimestamp;
}

/** Whose figures are written how: the large-number words and grouping of a country. */
export type NumberSystem = 'indian' | 'international';

/** Country settings (seed 003 §11); see migration 0019. */
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

/** A tenant's business (seed 003 §11): its country and any overrides of the country's settings; see migration 0019. */
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

export interface Database {
  pending_actions: PendingActionsTable;
  request_events: RequestEventsTable;
  query_routing_logs: QueryRoutingLogsTable;
  intents: IntentsTable;
  tool_registry: ToolRegistryTable;
  tool_pins: ToolPinsTable;
  unified_conversations: UnifiedConversationsTable;
  llm_usage_logs: LlmUsageLogsTable;
  feedback_log: FeedbackLogTable;
  response_cache: ResponseCacheTable;
  intent_routing_stats: IntentRoutingStatsTable;
  llm_path_patterns: LlmPathPatternsTable;
  suggested_intents: SuggestedIntentsTable;
  tool_idempotency: ToolIdempotencyTable;
  router_routes: RouterRoutesTable;
  routing_outcomes: RoutingOutcomesTable;
  quick_suggestions: QuickSuggestionsTable;
  llm_configs: LlmConfigsTable;
  attachments: AttachmentsTable;
  tenant_usage: TenantUsageTable;
  country_configs: CountryConfigsTable;
  business_contexts: BusinessContextsTable;
}

/** Every table the migrations create. */
export const TABLE_NAMES = [
  'request_events',
  'query_routing_logs',
  'intents',
  'tool_registry',
  'unified_conversations',
  'llm_usage_logs',
  'feedback_log',
  'response_cache',
  'intent_routing_stats',
  'llm_path_patterns',
  'suggested_intents',
  'pending_actions',
  'tool_idempotency',
  'router_routes',
  'routing_outcomes',
  'quick_suggestions',
  'llm_configs',
  'attachments',
  'tenant_usage',
  'country_configs',
  'business_contexts',
  'tool_pins',
] as const satisfies readonly (keyof Database)[];

export type RequestEventRow = Selectable<RequestEventsTable>;
export type NewRequestEvent = Insertable<RequestEventsTable>;
export type QueryRoutingLogRow = Selectable<QueryRoutingLogsTable>;
export type NewQueryRoutingLog = Insertable<QueryRoutingLogsTable>;
export type QueryRoutingLogUpdate = Updateable<QueryRoutingLogsTable>;
export type IntentRow = Selectable<IntentsTable>;
export type NewIntent = Insertable<IntentsTable>;
export type ToolRegistryRow = Selectable<ToolRegistryTable>;
export type NewToolRegistryEntry = Insertable<ToolRegistryTable>;
export type ToolPinRow = Selectable<ToolPinsTable>;
export type ConversationRow = Selectable<UnifiedConversationsTable>;
export type NewConversation = Insertable<UnifiedConversationsTable>;
export type LlmUsageLogRow = Selectable<LlmUsageLogsTable>;
export type NewLlmUsageLog = Insertable<LlmUsageLogsTable>;
export type FeedbackRow = Selectable<FeedbackLogTable>;
export type NewFeedback = Insertable<FeedbackLogTable>;
export type ResponseCacheRow = Selectable<ResponseCacheTable>;
export type NewResponseCacheEntry = Insertable<ResponseCacheTable>;
export type IntentRoutingStatsRow = Selectable<IntentRoutingStatsTable>;
export type LlmPathPatternRow = Selectable<LlmPathPatternsTable>;
export type SuggestedIntentRow = Selectable<SuggestedIntentsTable>;
