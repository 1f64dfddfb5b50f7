import { z } from 'zod';
import { AttachmentIdsSchema } from '../attachments.ts';
import { IdSchema, RequestIdSchema } from '../envelope.ts';
import { MAX_QUERY_LENGTH, McqResponseSchema } from '../subjects/query.ts';

/**
 * Body of `POST /v1/query`: either a new `query`, or an `mcqResponse`
 * answering a pending confirmation of the conversation.
 */
export const QueryRequestSchema = z
  .object({
    query: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(MAX_QUERY_LENGTH)
      .optional()
      .describe('The question or order, in any language; required unless mcqResponse is sent.'),
    entityId: IdSchema.describe(
      'The entity (business) to act for; must be the credential’s when auth is on.',
    ),
    orgId: IdSchema.describe('The organisation to act for; must be the credential’s when auth is on.'),
    conversationId: IdSchema.optional().describe(
      'Continues this conversation; a new one is started without it. Required with mcqResponse.',
    ),
    mcqResponse: McqResponseSchema.optional().describe(
      'Answers the pending confirmation (`mcq` event) of the conversation instead of asking.',
    ),
    attachmentIds: AttachmentIdsSchema.optional().describe(
      'Uploaded files the query is about (`POST /v1/attachments`).',
    ),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.query === undefined && body.mcqResponse === undefined) {
      ctx.addIssue({ code: 'custom', path: ['query'], message: 'is required (or mcqResponse)' });
    }
    if (body.query !== undefined && body.mcqResponse !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['mcqResponse'], message: 'cannot be sent together with query' });
    }
    if (body.attachmentIds !== undefined && body.mcqResponse !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['attachmentIds'], message: 'cannot be sent with mcqResponse' });
    }
    if (body.mcqResponse !== undefined && body.conversationId === undefined) {
      ctx.addIssue({ code: 'custom', path: ['conversationId'], message: 'is required with mcqResponse' });
    }
  });
export type QueryRequest = z.infer<typeof QueryRequestSchema>;

/**
 * Query string of `POST /v1/query`: `debug=true` streams the tools' full results (for the pipeline
 * debugger; an admin credential, or a gateway without authentication). Without it a tool result
 * is its outcome, record count and duration. `compact=true` leaves out of `complete` what the
 * stream carried before it: `response` (the `response_chunk`s, and any `response_replace`, carry
 * it), `query`, `pipelineSteps` and `mcpToolResults`.
 */
export const QueryOptionsSchema = z.object({
  debug: z
    .enum(['true', '1', 'false', '0'])
    .optional()
    .describe('Stream each tool’s input and full result (admin credential, or no auth).'),
  compact: z
    .enum(['true', '1', 'false', '0'])
    .optional()
    .describe('Leave out of `complete` what the stream carried before it.'),
});

/** Path of `GET /v1/requests/:requestId/events`. */
export const ReplayParamsSchema = z.object({ requestId: RequestIdSchema });

/** `Last-Event-ID` (header, or `?lastEventId=`): the sequence number of the last event the client saw. */
export const LastEventIdSchema = z
  .string()
  .regex(/^\d{1,15}$/, 'must be the id of an earlier event (a sequence number)');
