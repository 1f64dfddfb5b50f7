import { z } from 'zod';
import { PERSON_ROLES } from './approval-policy.ts';
import { CardChangeSchema, CardDetailSchema } from './confirmation-card.ts';
import { ErrorCodeSchema, FieldIssueSchema } from './errors.ts';

/** Routing paths. */
export const PathSchema = z.enum(['fast', 'llm', 'cached']);
export type Path = z.infer<typeof PathSchema>;

/** Query categories of the keyword classifier. */
export const CategorySchema = z.enum(['unified', 'general_chat']);
export type Category = z.infer<typeof CategorySchema>;

/** Model tiers. */
export const ModelTierSchema = z.enum(['cheap', 'capable']);
export type ModelTier = z.infer<typeof ModelTierSchema>;

/** How a request ended (`complete.status`). */
export const CompletionStatusSchema = z.enum([
  'answered',
  'awaiting_confirmation',
  'cancelled',
  'needs_input',
  /** The maker confirmed a write the approval policy gives to other people: it waits for them. */
  'awaiting_approval',
]);
export type CompletionStatus = z.infer<typeof CompletionStatusSchema>;

export const MatchedIntentSchema = z.object({
  id: z.string(),
  name: z.string(),
  moduleId: z.string().nullable(),
  confidence: z.number().min(0).max(1),
  description: z.string().nullable(),
});
export type MatchedIntent = z.infer<typeof MatchedIntentSchema>;

export const PipelineStepSchema = z.object({
  tool: z.string(),
  description: z.string(),
  purpose: z.string(),
});
export type PipelineStep = z.infer<typeof PipelineStepSchema>;

export const EnrichmentSchema = z.object({ type: z.string(), description: z.string() });

export const McpToolResultSchema = z.object({
  tool: z.string(),
  input: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.string().optional(),
  success: z.boolean(),
  /** Whether the registry classifies the tool as a write: the one decision every reader uses. */
  write: z.boolean().optional(),
});
export type McpToolResult = z.infer<typeof McpToolResultSchema>;

export const UsageSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** Payload of every SSE event type, keyed by the type (docs/events.md). */
export const EventPayloads = {
  connected: z.object({ requestId: z.string(), conversationId: z.string() }),
  understanding_started: z.object({ query: z.string() }),
  route_started: z.object({
    intentCount: z.number().int().nonnegative(),
    toolCount: z.number().int().nonnegative(),
  }),
  route_classified: z.object({
    path: PathSchema,
    category: CategorySchema,
    confidence: z.number().min(0).max(1),
    tier: ModelTierSchema.optional(),
    reasoning: z.string().optional(),
  }),
  tools_filtered: z.object({
    strategy: z.string(),
    groups: z.array(z.string()),
    tools: z.array(z.string()),
    count: z.number().int().nonnegative(),
  }),
  intent_detecting: z.object({ intentCount: z.number().int().nonnegative() }),
  intent_detected: z.object({ intent: MatchedIntentSchema.nullable(), confidence: z.number().min(0).max(1) }),
  entities_extracted: z.object({ entities: z.record(z.string(), z.unknown()) }),
  pipeline_planned: z.object({ steps: z.array(PipelineStepSchema) }),
  pipeline_executing: z.object({
    step: z.number().int().positive(),
    total: z.number().int().positive(),
    tool: z.string(),
  }),
  enrichments_planned: z.object({ enrichments: z.array(EnrichmentSchema) }),
  enrichments_applying: z.object({ enrichments: z.array(z.string()) }),
  executing_tool: z.object({ tool: z.string(), callId: z.string().optional(), args: z.unknown().optional() }),
  tool_result: z.object({
    tool: z.string(),
    success: z.boolean(),
    result: z.unknown().optional(),
    error: z.string().optional(),
    /** The error's code, when it failed (`WRITE_NOT_APPROVED`, `TOOL_FAILED`, …). */
    code: ErrorCodeSchema.optional(),
    callId: z.string().optional(),
    duration_ms: z.number().nonnegative().optional(),
    truncated: z.boolean().optional(),
    /** How many records the result holds (a list's items, or 1), when it is a read that succeeded. */
    recordCount: z.number().int().nonnegative().optional(),
  }),
  mode_switch: z.object({ from: CategorySchema, to: CategorySchema, reason: z.string() }),
  write_validation: z.object({
    tool: z.string(),
    status: z.enum(['blocked', 'passed']),
    missing_fields: z.array(z.string()).optional(),
    fields_validated: z.array(z.string()).optional(),
    errors: z.array(FieldIssueSchema).optional(),
    message: z.string().optional(),
    duration_ms: z.number().nonnegative(),
  }),
  tool_retry: z.object({ tool: z.string(), attempt: z.number().int().min(2), reason: z.string() }),
  mcq: z.object({
    actionId: z.string(),
    mcq_type: z.string(),
    tier: z.number().int().min(1).max(3),
    question: z.string(),
    options: z.array(z.object({ label: z.string(), value: z.string() })),
    pending_tool: z.string(),
    pending_args: z.record(z.string(), z.unknown()),
    confirm_text: z.string().optional(),
    /** The user's message did not ask for this change: it came from something read (guardrail `unrequested_write`). */
    unrequested: z.boolean().optional(),
    /** The record the change acts on, in words (name, number or reference). */
    record: z.string().optional(),
    /** What the card shows, in words: the action, record, party, amount, date and the call's other values; never ids. */
    details: z.array(CardDetailSchema).optional(),
    /** Tier 2: each field the change sets, as it is now (when it could be read) and as it will be. */
    changes: z.array(CardChangeSchema).optional(),
    /**
     * The record of the books this new one likely repeats (the same GSTIN, PAN or name of a party;
     * the same number, or the same party and amount a few days apart, of a document, payment or
     * journal), in words — "Acme Corp Pvt Ltd, GSTIN 27AABCA1234B1Z5, created 3 Nov 2026". The
     * confirmation is then typed (tier 3) and the request logs the guardrail `duplicate_suspected`.
     */
    duplicate_of: z.object({ summary: z.string() }).optional(),
  }),
  /** A confirmed write now waits for other people (the approval policy's rule, or a program asked). */
  approval_requested: z.object({
    approvalId: z.string(),
    tool: z.string(),
    /** The change, in words. */
    summary: z.string(),
    /** Roles any of whom may approve. */
    requiredRoles: z.array(z.enum(PERSON_ROLES)),
    /** People other than the maker who must still approve. */
    approversNeeded: z.number().int().min(1),
    expiresAt: z.iso.datetime(),
  }),
  /** One step of a confirmation's life, with the hash that binds it to the exact call. */
  confirmation: z.object({
    actionId: z.string(),
    step: z.enum([
      'proposed',
      'approved',
      'cancelled',
      'rejected',
      'expired',
      'void',
      'executed',
      /** Confirmed by its maker, now waiting for the people the approval policy names. */
      'awaiting_approval',
    ]),
    tool: z.string(),
    tier: z.number().int().min(1).max(3),
    args_hash: z.string(),
    reason: z.string().optional(),
  }),
  response_generating: z.object({ model: z.string().optional(), tier: ModelTierSchema.optional() }),
  response_chunk: z.object({ text: z.string() }),
  /**
   * The answer text shown so far (the `response_chunk`s since the request began or since the last
   * `response_replace`) is replaced by `text`; later `response_chunk`s append to it. Sent once when
   * the final checks (reverse guardrails, block repair, output guardrails) change an answer already
   * streamed, and with `text: ""` when streamed text turns out not to be the answer (its turn went
   * on to call tools). `complete.response` still carries the final text: a client that ignores
   * this event ends with the right answer. `reason`, when present, says why in words for the reader:
   * the model stopped answering mid-answer and another configured model answers instead (the text
   * it had sent is withdrawn, never left as a half-answer).
   */
  response_replace: z.object({ text: z.string(), reason: z.string().optional() }),
  complete: z.object({
    query: z.string(),
    path: PathSchema,
    category: CategorySchema,
    matchedIntent: MatchedIntentSchema.nullable(),
    extractedEntities: z.record(z.string(), z.unknown()),
    reasoning: z.string(),
    pipelineSteps: z.array(PipelineStepSchema),
    enrichments: z.array(EnrichmentSchema),
    responseFormat: z.string(),
    response: z.string(),
    mcpToolResults: z.array(McpToolResultSchema),
    dataSources: z.array(z.string()),
    llmModel: z.string(),
    iterationCount: z.number().int().nonnegative(),
    usage: UsageSchema,
    status: CompletionStatusSchema,
    /** Guardrails that changed this answer (e.g. `hallucinated_success_stripped`). */
    guardrails: z.array(z.string()).optional(),
    /** The pending confirmation, when `status` is `awaiting_confirmation`. */
    actionId: z.string().optional(),
    /** What a decision on an approval came to (`POST /v1/approvals/:approvalId` answers with it). */
    approval: z
      .object({
        approvalId: z.string(),
        status: z.enum(['executed', 'failed', 'rejected', 'awaiting_approval']),
        error: z.string().optional(),
      })
      .optional(),
    /** The W3C trace id of the query (one query is one trace). */
    traceId: z
      .string()
      .regex(/^[0-9a-f]{32}$/)
      .optional(),
  }),
  error: z.object({ code: ErrorCodeSchema, message: z.string() }),
} as const;

export type EventType = keyof typeof EventPayloads;
export const EVENT_TYPES = Object.keys(EventPayloads) as EventType[];
export const EventTypeSchema = z.enum(EVENT_TYPES as [EventType, ...EventType[]]);
export type EventPayload<T extends EventType> = z.infer<(typeof EventPayloads)[T]>;

/** Events that end a request's stream. */
export const TERMINAL_EVENT_TYPES: readonly EventType[] = ['complete', 'error'];

type EventVariant<T extends EventType> = z.ZodObject<{
  type: z.ZodLiteral<T>;
  payload: (typeof EventPayloads)[T];
}>;

function variants(): { [T in EventType]: EventVariant<T> }[EventType][] {
  return EVENT_TYPES.map((type) =>
    z.object({ type: z.literal(type), payload: EventPayloads[type] }),
  ) as never;
}

/** One agent event: its type and its payload. */
export const AgentEventSchema = z.discriminatedUnion(
  'type',
  variants() as [EventVariant<'connected'>, ...EventVariant<EventType>[]],
);
export type AgentEvent = { [T in EventType]: { type: T; payload: EventPayload<T> } }[EventType];
