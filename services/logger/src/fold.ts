import type { AgentEvent, EventPayload, EventType, Message } from '@munim/contracts';
import type { QueryRoutingLogRow, WriteToolResult } from '@munim/db';

/** The `query_routing_logs` row as the fold sees it (the database keeps `updated_at`). */
export type RoutingLog = Omit<QueryRoutingLogRow, 'updated_at'>;

type FoldHandler<T extends EventType> = (
  row: RoutingLog,
  payload: EventPayload<T>,
  message: Message<AgentEvent>,
) => void;

/** Guardrail recorded when the validator blocks a write before it reaches the MCP server. */
export const WRITE_PREFLIGHT_BLOCK = 'write_preflight_block';

/** Security event: the executor refused a write that came without the user's approval of that call. */
export const UNAPPROVED_WRITE_REFUSED = 'unapproved_write_refused';

/** A request's row before any event is folded in. */
export function emptyRow(
  ids: Pick<RoutingLog, 'request_id' | 'entity_id' | 'org_id' | 'conversation_id' | 'trace_id'> &
    Partial<Pick<RoutingLog, 'actor_user_id' | 'actor_roles' | 'actor_via'>>,
  createdAt: Date,
): RoutingLog {
  return {
    // Who asked is in the envelopes, not in the stored events: a refolded row keeps its own.
    actor_user_id: null,
    actor_roles: null,
    actor_via: null,
    ...ids,
    query: null,
    path: null,
    category: null,
    confidence: null,
    tier: null,
    intent_id: null,
    intent_confidence: null,
    is_write_operation: false,
    write_tool_results: [],
    guardrails_triggered: [],
    tools_used: [],
    tools_failed: [],
    llm_model: null,
    iteration_count: null,
    input_tokens: null,
    output_tokens: null,
    latency_ms: null,
    status: 'running',
    error_code: null,
    response: null,
    created_at: createdAt,
  };
}

function withDistinct(list: readonly string[], value: string): string[] {
  return list.includes(value) ? [...list] : [...list, value];
}

/** Milliseconds from the request's first event to this one. */
function latencySince(row: RoutingLog, message: Message<AgentEvent>): number {
  return Math.max(0, Math.round(Date.parse(message.ts) - row.created_at.getTime()));
}

const noop = (): void => {};

/**
 * How each event type changes its request's row. Typed over every event type, so a new
 * event type does not compile until it is decided here, even if only as a no-op.
 */
export const fold: { [T in EventType]: FoldHandler<T> } = {
  connected: noop,
  understanding_started: (row, p) => {
    row.query = p.query;
  },
  route_started: noop,
  route_classified: (row, p) => {
    row.path = p.path;
    row.category = p.category;
    row.confidence = p.confidence;
    if (p.tier !== undefined) row.tier = p.tier;
  },
  tools_filtered: noop,
  intent_detecting: noop,
  intent_detected: (row, p) => {
    row.intent_id = p.intent?.id ?? null;
    row.intent_confidence = p.confidence;
  },
  entities_extracted: noop,
  pipeline_planned: noop,
  pipeline_executing: noop,
  enrichments_planned: noop,
  enrichments_applying: noop,
  executing_tool: noop,
  tool_result: (row, p) => {
    if (p.success) row.tools_used = withDistinct(row.tools_used, p.tool);
    else row.tools_failed = withDistinct(row.tools_failed, p.tool);
    if (p.code === 'WRITE_NOT_APPROVED') {
      row.guardrails_triggered = withDistinct(row.guardrails_triggered, UNAPPROVED_WRITE_REFUSED);
    }
    const results = row.write_tool_results;
    for (let i = results.length - 1; i >= 0; i -= 1) {
      const entry = results[i]!;
      if (entry.tool === p.tool && entry.validation_status === 'passed' && entry.mcp_result === null) {
        entry.mcp_result =
          p.success || p.error === undefined ? { success: p.success } : { success: false, error: p.error };
        break;
      }
    }
  },
  mode_switch: noop,
  // The write's own row (pending_actions) and the audit trail keep who must approve it.
  approval_requested: noop,
  write_validation: (row, p) => {
    row.is_write_operation = true;
    const entry: WriteToolResult = {
      tool: p.tool,
      validation_status: p.status,
      fields_checked: [...new Set([...(p.fields_validated ?? []), ...(p.missing_fields ?? [])])],
      ...(p.missing_fields !== undefined && { missing_fields: p.missing_fields }),
      ...(p.message !== undefined && { message: p.message }),
      duration_ms: p.duration_ms,
      mcp_result: null,
    };
    row.write_tool_results = [...row.write_tool_results, entry];
    if (p.status === 'blocked') {
      row.guardrails_triggered = withDistinct(row.guardrails_triggered, WRITE_PREFLIGHT_BLOCK);
      row.tools_failed = withDistinct(row.tools_failed, p.tool);
    }
  },
  tool_retry: noop,
  mcq: noop,
  confirmation: noop,
  response_generating: noop,
  response_chunk: noop,
  response_replace: noop,
  complete: (row, p, message) => {
    row.status = p.status;
    row.response = p.response;
    row.path = p.path;
    row.category = p.category;
    row.llm_model = p.llmModel || null;
    row.iteration_count = p.iterationCount;
    row.input_tokens = p.usage.input_tokens;
    row.output_tokens = p.usage.output_tokens;
    row.latency_ms = latencySince(row, message);
    if (!row.query) row.query = p.query;
    for (const guardrail of p.guardrails ?? []) {
      row.guardrails_triggered = withDistinct(row.guardrails_triggered, guardrail);
    }
    if (row.intent_id === null && p.matchedIntent) {
      row.intent_id = p.matchedIntent.id;
      row.intent_confidence = p.matchedIntent.confidence;
    }
  },
  error: (row, p, message) => {
    row.status = 'error';
    row.error_code = p.code;
    row.response = p.message;
    row.latency_ms = latencySince(row, message);
  },
};

function apply<T extends EventType>(
  row: RoutingLog,
  event: { type: T; payload: EventPayload<T> },
  message: Message<AgentEvent>,
) {
  (fold[event.type] as FoldHandler<T>)(row, event.payload, message);
}

/**
 * Folds events into a row the caller owns, in the order given. The row's `created_at` is its
 * earliest event, so an event folded out of order that is older moves it back (and a latency
 * already measured grows by as much).
 */
export function foldInto(row: RoutingLog, messages: Iterable<Message<AgentEvent>>): RoutingLog {
  for (const message of messages) {
    noteActor(row, message);
    const ts = new Date(message.ts);
    if (ts < row.created_at) {
      if (row.latency_ms !== null) row.latency_ms += row.created_at.getTime() - ts.getTime();
      row.created_at = ts;
    }
    apply(row, message.data, message);
  }
  return row;
}

/** Records who asked, from the first envelope of the request that names them. */
export function noteActor(row: RoutingLog, message: Message<AgentEvent>): void {
  if (row.actor_roles !== null || !message.actor) return;
  row.actor_user_id = message.actor.userId;
  row.actor_roles = [...message.actor.roles];
  row.actor_via = message.actor.via;
}

/** The row after one more event (see {@link foldInto}): a copy, the input is left untouched. */
export const foldEvent = (row: RoutingLog, message: Message<AgentEvent>): RoutingLog =>
  foldInto(structuredClone(row), [message]);
