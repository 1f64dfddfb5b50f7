import { z } from 'zod';
import { AttachmentIdsSchema } from './attachments.ts';
import { IdSchema } from './envelope.ts';
import { ErrorCodeSchema } from './errors.ts';
import { MAX_QUERY_LENGTH, McqResponseSchema } from './subjects/query.ts';

/**
 * Body of `POST /v1/query` (DESIGN §3.2): either a new `query`, or an `mcqResponse`
 * answering a pending confirmation of the conversation.
 */
export const QueryRequestSchema = z
  .object({
    query: z.string().trim().min(1, 'must not be empty').max(MAX_QUERY_LENGTH).optional(),
    entityId: IdSchema,
    orgId: IdSchema,
    conversationId: IdSchema.optional(),
    mcqResponse: McqResponseSchema.optional(),
    /** Uploaded files the query is about (`POST /v1/attachments`). */
    attachmentIds: AttachmentIdsSchema.optional(),
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

/** JSON error body of every 4xx/5xx HTTP answer. */
export const HttpErrorSchema = z.object({
  error: z.object({
    code: ErrorCodeSchema,
    message: z.string(),
    /** The offending field, dotted (e.g. `mcqResponse.value`), when one field is at fault. */
    field: z.string().optional(),
    issues: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  }),
});
export type HttpError = z.infer<typeof HttpErrorSchema>;
