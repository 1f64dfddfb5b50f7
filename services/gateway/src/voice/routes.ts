import { QueryRequestSchema } from '@munim/contracts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError, validationError } from '../http-errors.ts';
import type { FileUpload } from '../multipart.ts';
import { tenantOf } from '../plugins/auth.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import { answerQuery } from '../query/routes.ts';
import { quotaRefusalError } from '../quotas.ts';
import { createTranscriber, readAudio } from './transcriber.ts';

/**
 * Speech to text (seed 003 §6.2): `POST /v1/transcribe` answers the transcript, and
 * `POST /v1/query/audio` answers a spoken query like a typed one. Both take a multipart form,
 * streamed and size-limited as it is read.
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
    // An admin credential administers: it transcribes for no tenant (it is refused before the upload is read).
    const tenant = tenantOf(request);
    // Speech to text is paid per call: with quotas kept, each transcription counts as one query of
    // the tenant, taken before it is paid for, so a tenant cannot transcribe past its quota.
    const { text } = await transcribe(request, async ({ fields }) => {
      if (!ctx.quotas.counting) return;
      const { entityId, orgId } = tenant ?? fields;
      if (!entityId || !orgId) {
        throw new HttpRefusal(
          400,
          httpError(
            'BAD_REQUEST',
            'entityId, orgId: name the organisation whose quota this transcription counts in',
            {
              field: entityId ? 'orgId' : 'entityId',
            },
          ),
        );
      }
      const refused = await ctx.quotas.admit({ entityId, orgId });
      if (refused) throw quotaRefusalError(refused);
    });
    return reply.send({ text, model: config.STT_MODEL });
  });

  app.post('/v1/query/audio', { sse: 'manual', schema: HIDDEN }, async (request, reply) => {
    // A tenant out of quota is refused before the transcription is paid for.
    const transcript = await transcribe(request, async ({ fields }) => {
      const { entityId, orgId } = tenantOf(request) ?? fields;
      const refused = entityId && orgId ? await ctx.quotas.check({ entityId, orgId }) : null;
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
