import type { Bus, Following } from '@munim/bus';
import { LastEventIdSchema, ReplayParamsSchema, TERMINAL_EVENT_TYPES } from '@munim/contracts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { streamView } from '../detail.ts';
import { HttpRefusal, httpError } from '../http-errors.ts';
import { acquireStream } from '../plugins/limits.ts';
import { errorResponses, SECURITY, SSE_RESPONSE } from '../plugins/openapi.ts';
import { streamEvents } from '../plugins/streams.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { credentialOf, mayActFor } from '../tenant-gate.ts';
import { busUnavailable } from './routes.ts';

/**
 * The sequence number after which to replay: the `Last-Event-ID` header or, when it is absent or
 * empty, `?lastEventId=` (for EventSource reconnects and for links). Undefined replays everything.
 */
function afterSeqOf(request: FastifyRequest): number | undefined {
  const header = request.headers['last-event-id'];
  const query = request.query as Record<string, unknown>;
  const raw = typeof header === 'string' && header !== '' ? header : query.lastEventId;
  if (raw === undefined) return undefined;
  // Validated here rather than by the route schema: the value comes from either part.
  const lastId = LastEventIdSchema.safeParse(raw);
  if (!lastId.success) {
    const message = lastId.error.issues[0]?.message ?? 'is invalid';
    throw new HttpRefusal(
      400,
      httpError('BAD_REQUEST', `Last-Event-ID: ${message}`, { field: 'Last-Event-ID' }),
    );
  }
  return Number(lastId.data);
}

/** `GET /v1/requests/:requestId/events`: replays a request's events after Last-Event-ID, then follows it live. */
export const replayRoutes: FastifyPluginAsync<GatewayContext> = async (app, ctx) => {
  const { bus } = ctx;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/requests/:requestId/events',
    {
      sse: 'manual',
      schema: {
        summary: 'Replay the events of a request (after Last-Event-ID), then follow it live until it ends',
        tags: ['query'],
        security: SECURITY,
        params: ReplayParamsSchema,
        // Documented only: read by afterSeqOf.
        querystring: {
          type: 'object',
          properties: {
            lastEventId: { type: 'string', description: 'Instead of the Last-Event-ID header.' },
            debug: {
              type: 'string',
              enum: ['true', '1', 'false', '0'],
              description: 'Stream the tools’ full results (an admin credential, or no authentication).',
            },
            compact: {
              type: 'string',
              enum: ['true', '1', 'false', '0'],
              description:
                '`complete` without what the stream carried before it: the answer (its chunks), the question, the pipeline and the tools’ outcomes.',
            },
          },
        },
        headers: {
          type: 'object',
          properties: { 'last-event-id': { type: 'string', pattern: '^\\d{1,15}$' } },
        },
        response: { 200: SSE_RESPONSE, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      const { requestId } = request.params;
      const afterSeq = afterSeqOf(request);
      const view = streamView(ctx, request);
      const tenant = credentialOf(request);
      let last: Awaited<ReturnType<Bus['lastEvent']>>;
      try {
        last = await bus.lastEvent(requestId);
      } catch (error) {
        request.log.error({ err: error, requestId }, 'could not look up the request');
        throw busUnavailable();
      }
      // Another tenant's request is reported as unknown, so ids cannot be probed.
      if (!last || (tenant && !mayActFor(tenant, last.message.entityId, last.message.orgId))) {
        throw new HttpRefusal(
          404,
          httpError('NOT_FOUND', `No events for request ${requestId}.`, { field: 'requestId' }),
        );
      }
      const finished = TERMINAL_EVENT_TYPES.includes(last.message.data.type);
      if (finished && afterSeq !== undefined && afterSeq >= last.seq) {
        // Nothing was missed and nothing more will come.
        reply.sse.sendHeaders(200);
        return;
      }
      const release = acquireStream(ctx, request);
      try {
        let following: Following;
        try {
          following = await bus.follow(requestId, afterSeq === undefined ? {} : { afterSeq });
        } catch (error) {
          request.log.error({ err: error, requestId }, 'could not follow the request');
          throw busUnavailable();
        }
        await streamEvents(ctx, reply, following, view);
      } finally {
        release();
      }
    },
  );
};
