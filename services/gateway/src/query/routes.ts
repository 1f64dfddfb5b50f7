import { QueryOptionsSchema, type QueryRequest, QueryRequestSchema } from '@munim/contracts';
import { SubmitError, submitQuery } from '@munim/kit';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { actorOf } from '../actor.ts';
import { checkQueryAttachments } from '../attachments/checks.ts';
import type { GatewayContext } from '../context.ts';
import { streamView } from '../detail.ts';
import { HttpRefusal, httpError } from '../http-errors.ts';
import { acquireStream } from '../plugins/limits.ts';
import { errorResponses, SECURITY, SSE_RESPONSE } from '../plugins/openapi.ts';
import { streamEvents } from '../plugins/streams.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { quotaRefusalError } from '../quotas.ts';
import { requestTenant } from '../tenant-gate.ts';

/** 503: the bus is not reachable. */
export const busUnavailable = () =>
  new HttpRefusal(
    503,
    httpError('SERVICE_UNAVAILABLE', 'The gateway cannot reach the message bus; try again shortly.'),
  );

/** Submits a validated query (typed or transcribed) for the request's tenant and streams its events. */
export async function answerQuery(
  ctx: GatewayContext,
  request: FastifyRequest,
  reply: FastifyReply,
  body: QueryRequest,
): Promise<void> {
  const tenant = requestTenant(request, body);
  if (body.attachmentIds) {
    await checkQueryAttachments(ctx.attachments, body.attachmentIds, tenant, body.conversationId);
  }
  const view = streamView(ctx, request);
  const release = acquireStream(ctx, request);
  try {
    const refused = await ctx.quotas.admit(tenant);
    if (refused) throw quotaRefusalError(refused);
    let submission: Awaited<ReturnType<typeof submitQuery>>;
    try {
      submission = await submitQuery(ctx.bus, {
        ...body,
        debug: view.detail,
        actor: actorOf(request, 'api'),
      });
    } catch (error) {
      if (!(error instanceof SubmitError)) throw error;
      request.log.error({ err: error }, 'query could not be submitted');
      throw busUnavailable();
    }
    request.log.info(
      { requestId: submission.scope.requestId, conversationId: submission.scope.conversationId },
      'query submitted',
    );
    if (body.attachmentIds && ctx.attachments) {
      // From now on these files belong to this conversation (a follow-up may refer to them).
      await ctx.attachments
        .bindToConversation(body.attachmentIds, tenant, submission.scope.conversationId)
        .catch((error: unknown) =>
          request.log.warn({ err: error }, 'attachments not bound to the conversation'),
        );
    }
    await streamEvents(ctx, reply, submission.following, view);
  } finally {
    release();
  }
}

/** `POST /v1/query` (see docs/api.md): a query or the answer to a pending confirmation, streamed as SSE. */
export const queryRoutes: FastifyPluginAsync<GatewayContext> = async (app, ctx) => {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/query',
    {
      sse: 'manual',
      config: { bodyRequired: true },
      schema: {
        summary: 'Ask a question, give an order, or answer a pending confirmation; streams its events',
        tags: ['query'],
        security: SECURITY,
        body: QueryRequestSchema,
        querystring: QueryOptionsSchema,
        response: { 200: SSE_RESPONSE, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    (request, reply) => answerQuery(ctx, request, reply, request.body),
  );
};
