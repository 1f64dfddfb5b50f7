import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type { GeneratedJson, GeneratedTimestamp, NullableJson, Timestamp } from './columns.ts';

/**
 * The tables the agent owns: conversations, the writes waiting for confirmation, and model usage.
 * Each table says who else writes it and who only reads it; the services' database roles grant
 * exactly that (migration 0024).
 */

/** One message of a stored conversation. */
export interface ConversationMessage {
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
  requestId?: string;
  ts?: string;
  metadata?: Record<string, unknown>;
}

/**
 * Conversation history, numbered per tenant (entity + org: #MJ-0001 …) and soft-deletable.
 * Written by the agent; the gateway may only soft-delete; read by the router.
 */
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

/**
 * The last chat number given in each tenant (entity + org), taken by the statement that inserts
 * a conversation. Written by the agent only.
 */
export interface ConversationChatNumbersTable {
  entity_id: string;
  org_id: string;
  last_number: number;
}

/**
 * Token usage and latency per LLM call site.
 * Written by the agent (inserts only); no service updates or deletes a row.
 */
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

/**
 * A write waiting for the user's confirmation.
 * Written by the agent (only it proposes); the executor sets only `executed_*` when it uses an approval; read by the router, the gateway (the approvals inbox) and messaging (an approval card's conversation).
 */
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
    | 'pending'
    | 'executing'
    | 'executed'
    | 'cancelled'
    | 'expired'
    | 'void'
    | 'awaiting_approval'
    | 'rejected',
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
  /** The user who asked for the write; null: the tenant's owner (or a proposal from before people). */
  requested_by: string | null;
  /** Their roles for the entity when they asked; null on proposals from before people. */
  requested_roles: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  /** The user whose confirmation moved it to `executing`; null: the tenant's owner, or not confirmed. */
  approved_by: string | null;
  /** People other than the maker who must approve it (0: the maker's confirmation is enough). */
  approvals_needed: ColumnType<number, number | undefined, number>;
  /** Roles any of whom may approve it. */
  approver_roles: ColumnType<string[], string[] | undefined, string[]>;
  /** Why it needs them, in words (the policy's rule, or a program asked). */
  approval_reason: string | null;
  /** When its maker's confirmation sent it for approval. */
  approval_requested_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/**
 * One person's decision on a write waiting for approval; an edit keeps the call before and after.
 * Written by the agent; read by the gateway (the approvals inbox).
 */
export interface ApprovalDecisionsTable {
  id: Generated<string>;
  action_id: string;
  org_id: string;
  entity_id: string;
  user_id: string | null;
  roles: string[];
  decision: 'approve' | 'reject';
  reason: string | null;
  /** The call decided on: an approval counts only for the call as it now stands. */
  args_hash: string;
  args_before: NullableJson<Record<string, unknown>>;
  args_after: NullableJson<Record<string, unknown>>;
  request_id: string;
  decided_at: GeneratedTimestamp;
}

/**
 * Each write a standing approval let through, with its amount.
 * Written by the agent (when a maker's confirmation uses a grant); read by the gateway.
 */
export interface StandingApprovalUsesTable {
  id: Generated<string>;
  grant_id: string;
  action_id: string;
  amount: ColumnType<string | null, number | string | null | undefined, never>;
  used_by: string | null;
  used_at: GeneratedTimestamp;
}

/**
 * What the audit trail records a person or program doing to a write, or an admin doing to the
 * books' settings (`locked`: the lock date; `configured`: the business context), or an approver
 * doing to a standing approval (`granted`, `revoked`).
 */
export type AuditAction =
  | 'proposed'
  | 'confirmed'
  | 'approved'
  | 'rejected'
  | 'edited'
  | 'executed'
  | 'failed'
  | 'cancelled'
  | 'expired'
  | 'locked'
  | 'configured'
  | 'granted'
  | 'revoked';

/**
 * The audit trail of writes, append-only and hash-chained per org: `hash` is
 * the SHA-256 of `prev_hash` and the row's canonical JSON (see `auditHash`).
 * Written by the agent, the gateway and the executor, by insert alone: no one changes or removes a row.
 */
export interface AuditLogTable {
  entity_id: string;
  org_id: string;
  seq: number;
  at: Timestamp;
  actor: string;
  action: AuditAction;
  tool: string | null;
  args_hash: string | null;
  summary: string;
  prev_hash: string;
  hash: string;
}
