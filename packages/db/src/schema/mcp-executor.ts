import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type {
  GeneratedJson,
  GeneratedTimestamp,
  NullableJson,
  NullableTimestamp,
  TextArray,
  Timestamp,
} from './columns.ts';

/**
 * The tables the MCP executor owns: the tools it lists, their pinned definitions, and the
 * idempotency of write calls. Each table says who else writes it and who only reads it; the
 * services' database roles grant exactly that (migration 0024).
 */

/**
 * MCP tool metadata with keywords, module mapping and usage count.
 * Written by the executor; read by the gateway.
 */
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

/**
 * The definition of each tool of each server an operator trusts, and the one listed now, so a changed definition waits for review.
 * Written by the executor; the gateway accepts or refuses a change.
 */
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

/**
 * Idempotency of one write tool call; see migration 0004.
 * Written and read by the executor alone.
 */
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
