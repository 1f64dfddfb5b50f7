import { z } from 'zod';
import { IdSchema, RequestIdSchema } from '../envelope.ts';

// HTTP shapes of the gateway's conversations and feedback API.

/** `?entityId&orgId`: taken from the credentials when auth is on (and must match if given). */
export const TenantQuerySchema = z
  .object({
    entityId: IdSchema.optional().describe(
      'The entity; required without auth, must be the credential’s with it.',
    ),
    orgId: IdSchema.optional().describe(
      'The organisation; required without auth, must be the credential’s with it.',
    ),
  })
  .describe('The tenant; required without auth, must match the credentials with it.');

export const ConversationListQuerySchema = TenantQuerySchema.extend({
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('Most conversations to list.'),
}).strict();

export const ConversationParamsSchema = z.object({ conversationId: IdSchema }).strict();

/** One conversation in the sidebar. */
export const ConversationSummarySchema = z.object({
  id: z.string(),
  chatNumber: z.number().int(),
  /** `#MJ-0001` */
  displayId: z.string(),
  name: z.string().nullable(),
  preview: z.string().nullable(),
  messageCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ConversationSummary = z.infer<typeof ConversationSummarySchema>;

export const ConversationListSchema = z.object({ conversations: z.array(ConversationSummarySchema) });

export const ConversationMessageSchema = z.object({
  role: z.enum(['user', 'assistant', 'system', 'tool']),
  content: z.string(),
  requestId: z.string().optional(),
  ts: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const ConversationSchema = ConversationSummarySchema.extend({
  summary: z.string().nullable(),
  messages: z.array(ConversationMessageSchema),
});
export type Conversation = z.infer<typeof ConversationSchema>;

/** Body of `POST /v1/feedback`: thumbs up or down on one answered request. */
export const FeedbackRequestSchema = z
  .object({
    requestId: RequestIdSchema,
    signal: z.enum(['thumbs_up', 'thumbs_down']),
    comment: z.string().trim().max(2000).optional(),
    entityId: IdSchema.optional(),
    orgId: IdSchema.optional(),
  })
  .strict();

export const FeedbackResponseSchema = z.object({ id: z.number().int() });
