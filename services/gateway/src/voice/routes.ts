import { QueryRequestSchema } from '@munim/contracts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError, validationError } from '../http-errors.ts';
import type { FileUpload } from '../multipart.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import { answerQuery } from '../query/routes.ts';
import { quotaRefusalError } from '../quotas.ts';
import { credentialOf, requestTenant } from '../tenant-gate.ts';
import { createTranscriber, readAudio } from './transcriber.ts';

/** Why a transcription must name its tenant while quotas are kept. */
const NO_QUOTA_TENANT = 'entityId, orgId: name the organisation whose quota this transcription counts in';

/**
 * Speech to text: `POST /v1/transcribe` answers the transcript, and `POST /v1/query/audio`
 * answers a spoken query like a typed one. Both take a multipart form, streamed and size-limited
 * as it is read.
 */
export const transcribeRoutes: FastifyPluginAsync<GatewayContext> = async (app, ctx) => {
  const { config } = ctx;
  const transcriber = createTranscriber({
    baseURL: config.STT_BASE_URL ?? config.OPENAI_BASE_URL,
    apiKey: config.STT_API_KEY ?? config.OPENAI_API_KEY,
    model: config.STT_MODEL,
    maxBytes: config.STT_MAX_BYTES,
  });
  const transcribe = async (
    request: FastifyRequest,
    beforeTranscribing?: (upload: FileUpload) => Promise<void>,
  ) => {
    const upload = await readAudio(request, config.STT_MAX_BYTES);
    await beforeTranscribing?.(upload);
    return { upload, text: await transcriber.transcribe(upload) };
  };

  app.post('/v1/transcribe', { schema: HIDDEN }, async (request, reply) => {
    const credential = credentialOf(request);
    // Speech to text is paid per call: with quotas kept, each transcription counts as one query of
    // the tenant, taken before it is paid for, so a tenant cannot transcribe past its quota.
    const { text } = await transcribe(request, async ({ fields }) => {
      if (!credential && !ctx.quotas.counting) return;
      const tenant = requestTenant(request, fields, NO_QUOTA_TENANT);
      if (!ctx.quotas.counting) return;
      const refused = await ctx.quotas.admit(tenant);
      if (refused) throw quotaRefusalError(refused);
    });
    return reply.send({ text, model: config.STT_MODEL });
  });

  app.post('/v1/query/audio', { sse: 'manual', schema: HIDDEN }, async (request, reply) => {
    // Another tenant, or one out of quota, is refused before the transcription is paid for.
    const transcript = await transcribe(request, async ({ fields }) => {
      const refused = await ctx.quotas.check(requestTenant(request, fields));
      if (refused) throw quotaRefusalError(refused);
    });
    if (!transcript.text) {
      throw new HttpRefusal(
        422,
        httpError('BAD_REQUEST', 'file: no speech was recognised in the audio', { field: 'file' }),
      );
    }
    const { entityId, orgId, conversationId } = transcript.upload.fields;
    // The query is made of the transcript and the form's fields, known only once both are read.
    const parsed = QueryRequestSchema.safeParse({
      query: transcript.text,
      entityId,
      orgId,
      ...(conversationId ? { conversationId } : {}),
    });
    if (!parsed.success) throw new HttpRefusal(400, validationError(parsed.error.issues));
    return answerQuery(ctx, request, reply, parsed.data);
  });
};
