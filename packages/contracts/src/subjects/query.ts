import { z } from 'zod';
import { AttachmentIdsSchema } from '../attachments.ts';
import {
  CategorySchema,
  MatchedIntentSchema,
  ModelTierSchema,
  PathSchema,
  PipelineStepSchema,
} from '../events.ts';
import { defineSubject } from '../subject.ts';

/** A user's answer to a pending confirmation. */
export const McqResponseSchema = z.object({
  actionId: z.string().min(1).max(128).describe('The `actionId` of the `mcq` event being answered.'),
  value: z.enum(['confirm', 'cancel']).describe('Run the proposed write, or drop it.'),
  typedConfirmation: z
    .string()
    .max(200)
    .optional()
    .describe('The word the card asked to type (`confirm_text`), for changes confirmed by typing.'),
  args: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'Fields of the proposed call to change before confirming: the edited call is validated again and is the one confirmed; both versions are kept on the audit trail.',
    ),
});
export type McqResponse = z.infer<typeof McqResponseSchema>;

/**
 * A person's decision on a write waiting for approval (`POST /v1/approvals/:approvalId`), carried
 * as a request in the maker's conversation so the conversation shows the outcome.
 */
export const ApprovalDecisionSchema = z.object({
  approvalId: z.string().min(1).max(128),
  decision: z.enum(['approve', 'reject']),
  reason: z.string().max(1000).optional(),
  /** Fields of the call to change before approving: validated and checked again, both versions recorded. */
  args: z.record(z.string(), z.unknown()).optional(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** Longest query text accepted, in characters. */
export const MAX_QUERY_LENGTH = 4000;

/**
 * Where a query came from: the HTTP API (and console, CLI), the `/mcp` tool (whose confirmations
 * are never free text), or a messaging channel (a person's phone).
 */
export const ChannelSchema = z.enum(['http', 'mcp', 'messaging']);
export type Channel = z.infer<typeof ChannelSchema>;

export const QuerySubmittedSchema = z.object({
  query: z.string().max(MAX_QUERY_LENGTH),
  mcqResponse: McqResponseSchema.optional(),
  approvalDecision: ApprovalDecisionSchema.optional(),
  channel: ChannelSchema.optional(),
  /** Files of the tenant the query is about (checked by the gateway, read by the agent). */
  attachmentIds: AttachmentIdsSchema.optional(),
  /**
   * Asked by a caller allowed to debug (`?debug=true`): `complete` keeps each tool's input and
   * full result. Otherwise it names the tools and their outcomes only.
   */
  debug: z.boolean().optional(),
  /**
   * The gateway made this query's conversation id (the caller named none): nothing of the
   * conversation is stored yet, so no service looks it up. Absent: it may exist.
   */
  newConversation: z.literal(true).optional(),
});
export type QuerySubmitted = z.infer<typeof QuerySubmittedSchema>;

/** One tool call of a fast-path pipeline, with its arguments. */
export const PlannedCallSchema = PipelineStepSchema.extend({ args: z.record(z.string(), z.unknown()) });
export type PlannedCall = z.infer<typeof PlannedCallSchema>;

/** The router's decision for a query. */
export const RouteDecisionSchema = z.object({
  path: PathSchema,
  category: CategorySchema,
  confidence: z.number().min(0).max(1),
  tier: ModelTierSchema,
  intent: MatchedIntentSchema.nullable(),
  extractedEntities: z.record(z.string(), z.unknown()),
  strategy: z.string(),
  toolGroups: z.array(z.string()),
  /** Tools the LLM is offered (empty for general chat). */
  tools: z.array(z.string()),
  /** The fast-path pipeline (empty unless path is `fast`). */
  pipeline: z.array(PlannedCallSchema),
  reasoning: z.string(),
});
export type RouteDecision = z.infer<typeof RouteDecisionSchema>;

export const QueryRoutedSchema = z.object({
  query: z.string().max(MAX_QUERY_LENGTH),
  route: RouteDecisionSchema,
  mcqResponse: McqResponseSchema.optional(),
  approvalDecision: ApprovalDecisionSchema.optional(),
  channel: ChannelSchema.optional(),
  attachmentIds: AttachmentIdsSchema.optional(),
  /** See {@link QuerySubmittedSchema}. */
  debug: z.boolean().optional(),
  /** See {@link QuerySubmittedSchema}. */
  newConversation: z.literal(true).optional(),
});
export type QueryRouted = z.infer<typeof QueryRoutedSchema>;

export const querySubmitted = defineSubject({
  kind: 'stream',
  stream: 'work',
  subject: 'work.query.submitted',
  schema: QuerySubmittedSchema,
  description: 'A user query accepted by the gateway; consumed by the router.',
});

export const queryRouted = defineSubject({
  kind: 'stream',
  stream: 'work',
  subject: 'work.query.routed',
  schema: QueryRoutedSchema,
  description: 'A query with its routing decision; consumed by the agent.',
});
