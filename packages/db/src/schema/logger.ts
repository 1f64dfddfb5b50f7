import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type { GeneratedJson, GeneratedTimestamp, TextArray, Timestamp } from './columns.ts';

/**
 * The tables the logger owns: every event of every request, the per-request log folded from
 * them, and feedback. Each table says who else writes it and who only reads it; the services'
 * database roles grant exactly that (migration 0024).
 */

/** The outcome of the MCP call that followed a passed write validation. */
export interface WriteMcpResult {
  success: boolean;
  error?: string;
}

/** One write validation of a request, as kept in `query_routing_logs.write_tool_results`. */
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

/**
 * Every event of every request, exactly as it travelled on the bus.
 * Written by the logger (it may only move an event earlier); read by the gateway (analytics, replay).
 */
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

/**
 * One row per request: its route, tools, writes, guardrails, usage and outcome.
 * Written by the logger; read by the gateway (analytics, metrics).
 */
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
  /** The user who asked; null: the tenant's owner, no user named (or an older request: see `actor_roles`). */
  actor_user_id: string | null;
  /** Their roles for the entity; null when the request's events named no actor (older requests). */
  actor_roles: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  /** How they asked: `api`, `mcp` or `messaging`. */
  actor_via: string | null;
  /** Time of the request's earliest event. */
  created_at: Timestamp;
  updated_at: GeneratedTimestamp;
}

/**
 * Explicit (thumbs) and implicit (rephrase, follow-up, action) feedback with its context.
 * Written by the logger (implicit feedback, `learned_at`) and the gateway (a user's thumbs).
 */
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
