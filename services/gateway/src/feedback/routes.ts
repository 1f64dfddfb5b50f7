import { FeedbackRequestSchema, FeedbackResponseSchema } from '@munim/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { noConversations } from '../conversations/store.ts';
import { HttpRefusal, httpError } from '../http-errors.ts';
import { errorResponses, SECURITY } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { mayActFor, requestTenant } from '../tenant-gate.ts';

/** `POST /v1/feedback`: thumbs up or down on one of the caller's answered requests. */
export const feedbackRoutes: FastifyPluginAsync<Pick<GatewayContext, 'bus' | 'db'>> = async (
  app,
  { bus, db },
) => {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/feedback',
    {
      schema: {
        summary: 'Thumbs up or down on one of the caller’s answered requests',
        tags: ['feedback'],
        security: SECURITY,
        body: FeedbackRequestSchema,
        response: { 201: FeedbackResponseSchema, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const tenant = requestTenant(request, body);
      if (!db) throw noConversations();
      const last = await bus.lastEvent(body.requestId);
      // Another tenant's request is reported as unknown, so ids cannot be probed.
      if (!last || !mayActFor(tenant, last.message.entityId, last.message.orgId)) {
        throw new HttpRefusal(
          404,
          httpError('NOT_FOUND', `No request ${body.requestId}.`, { field: 'requestId' }),
        );
      }
      const complete = last.message.data.type === 'complete' ? last.message.data.payload : undefined;
      const row = await db
        .insertInto('feedback_log')
        .values({
          request_id: body.requestId,
          conversation_id: last.message.conversationId,
          entity_id: tenant.entityId,
          org_id: tenant.orgId,
          kind: 'explicit',
          signal: body.signal,
          score: body.signal === 'thumbs_up' ? 1 : -1,
          query: complete?.query ?? null,
          response: complete?.response ?? null,
          llm_model: complete?.llmModel ?? null,
          comment: body.comment ?? null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return reply.code(201).send({ id: row.id });
    },
  );
};
