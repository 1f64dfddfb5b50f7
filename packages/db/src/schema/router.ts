import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type { GeneratedJson, GeneratedTimestamp, TextArray, Timestamp } from './columns.ts';

/**
 * The tables the router owns: its routes, response cache and what it counted per request, from
 * which intents are learned. Each table says who else writes it and who only reads it; the
 * services' database roles grant exactly that (migration 0024).
 */

/**
 * Cached answers by tenant (entity + org) and SHA-256 of normalized query + path, with a TTL.
 * Written and read by the router alone.
 */
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

/**
 * Success and failure per intent per confidence bucket of 0.05.
 * Written by the router; the logger applies feedback to it.
 */
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

/**
 * LLM-path query patterns, for discovering intents.
 * Written by the router; the logger applies feedback to it.
 */
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

/**
 * Intents suggested from frequent LLM-path patterns, pending review.
 * Written by the router; the gateway approves or rejects them.
 */
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

/**
 * The router's decision for a request still running; see migration 0008.
 * Written by the router; read by the logger.
 */
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
 * Written by the router; the logger sets only `feedback_score`.
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
