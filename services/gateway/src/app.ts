import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import fastifySse, { type SSEPluginOptions } from '@fastify/sse';
import type { Bus, Following } from '@munim/bus';
import { QueryRequestSchema, RequestIdSchema, TERMINAL_EVENT_TYPES } from '@munim/contracts';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ApiKeyAuth, mayActFor, type Tenant } from './auth.ts';
import type { Env } from './env.ts';
import { httpError, validationError } from './http-errors.ts';
import { registerMcp } from './mcp.ts';
import { checkReadiness } from './readiness.ts';
import { OpenStreams, relay } from './relay.ts';
import { SubmitError, submitQuery } from './submit.ts';

/** The gateway's settings (a subset of its environment). */
export type GatewayConfig = Pick<
  Env,
  'GATEWAY_API_KEYS' | 'BODY_LIMIT_BYTES' | 'STREAM_TIMEOUT_MS' | 'REQUEST_TIMEOUT_MS' | 'SSE_HEARTBEAT_MS'
>;

export interface GatewayDeps {
  bus: Bus;
  log: Logger;
  config: GatewayConfig;
}

export interface Gateway {
  /** The fastify app: `listen()` it, or `inject()` requests in tests. */
  app: FastifyInstance;
  start(): Promise<void>;
  /** Ends every open stream with an `error` event (SERVICE_UNAVAILABLE), then closes the server. */
  stop(): Promise<void>;
}

const ReplayParamsSchema = z.object({ requestId: RequestIdSchema });
const LastEventIdSchema = z
  .string()
  .regex(/^\d{1,15}$/, 'must be the id of an earlier event (a sequence number)');

/** A client went away; nothing is written for it. */
const DISCONNECTED = { code: 'SERVICE_UNAVAILABLE', message: 'client disconnected' } as const;

function sendUnavailable(reply: FastifyReply) {
  return reply
    .code(503)
    .send(httpError('SERVICE_UNAVAILABLE', 'The gateway cannot reach the message bus; try again shortly.'));
}

/** Builds the gateway: HTTP API with SSE streams, API-key auth, health endpoints and the MCP endpoint. */
export async function buildGateway(deps: GatewayDeps): Promise<Gateway> {
  const { bus, log, config } = deps;
  const auth = new ApiKeyAuth(config.GATEWAY_API_KEYS);
  const tenants = new WeakMap<FastifyRequest, Tenant>();
  const tenantOf = (request: FastifyRequest) => tenants.get(request) ?? null;
  const openStreams = new OpenStreams();

  const app = Fastify({ loggerInstance: log as FastifyBaseLogger, bodyLimit: config.BODY_LIMIT_BYTES });
  // Only JSON bodies are accepted; without this, text/plain would be parsed as a string.
  app.removeContentTypeParser('text/plain');
  // The package's default export at runtime is its fastify-plugin wrapped function (so its onRoute
  // hook sees every route); its typings describe the CommonJS module object instead.
  await app.register(fastifySse as unknown as FastifyPluginAsync<SSEPluginOptions>, {
    heartbeatInterval: config.SSE_HEARTBEAT_MS,
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (request.url.startsWith('/mcp') && status < 500) {
      return reply.code(400).send({
        jsonrpc: '2.0',
        error: { code: -32700, message: `Parse error: ${error.message}` },
        id: null,
      });
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply
          .code(400)
          .send(
            httpError('BAD_REQUEST', 'content-type: must be application/json', { field: 'content-type' }),
          );
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.code(400).send(
          httpError('BAD_REQUEST', `body: must be at most ${config.BODY_LIMIT_BYTES} bytes`, {
            field: 'body',
          }),
        );
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply.code(400).send(httpError('BAD_REQUEST', 'body: must not be empty', { field: 'body' }));
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return reply.code(400).send(httpError('BAD_REQUEST', 'body: is not valid JSON', { field: 'body' }));
    }
    if (status >= 400 && status < 500) {
      return reply.code(400).send(httpError('BAD_REQUEST', error.message, { field: 'body' }));
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send(httpError('INTERNAL', 'Something went wrong on our side.'));
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(httpError('NOT_FOUND', `${request.method} ${request.url.split('?')[0]} does not exist`)),
  );

  // Node counts a socket that never sent a request (a browser's preconnect) as busy, so close()
  // would wait for its headers timeout; such sockets are cut once the streams have ended.
  const unusedSockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    unusedSockets.add(socket);
    socket.once('close', () => unusedSockets.delete(socket));
  });
  app.server.on('request', (request: IncomingMessage) => unusedSockets.delete(request.socket));

  app.addHook('preClose', async () => {
    await openStreams.closeAll({ code: 'SERVICE_UNAVAILABLE', message: 'gateway shutting down' });
    for (const socket of unusedSockets) socket.destroy();
  });

  /** Streams a request's events as SSE until its end, a timeout, the client leaving or shutdown. */
  async function streamEvents(reply: FastifyReply, following: Following): Promise<void> {
    await openStreams.track(async (shutdown) => {
      const gone = new AbortController();
      reply.sse.onClose(() => gone.abort(DISCONNECTED));
      // The client may have left while the query was being submitted, before onClose was set.
      if (!reply.sse.isConnected) gone.abort(DISCONNECTED);
      reply.sse.sendHeaders(200);
      reply.raw.flushHeaders();
      const ended = await relay({
        following,
        signal: AbortSignal.any([shutdown, gone.signal]),
        timeoutMs: config.STREAM_TIMEOUT_MS,
        onEvent: async ({ seq, message }) => {
          if (!reply.sse.isConnected) return gone.abort(DISCONNECTED);
          await reply.sse.send({ id: String(seq), event: message.data.type, data: message.data.payload });
        },
      });
      // A gateway-side end has no id: the client's Last-Event-ID stays on the last real event.
      if (ended && reply.sse.isConnected) await reply.sse.send({ event: 'error', data: ended });
    });
  }

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const readiness = await checkReadiness(bus, config.REQUEST_TIMEOUT_MS);
    return reply.code(readiness.ready ? 200 : 503).send({
      status: readiness.ready ? 'ok' : 'unavailable',
      nats: readiness.nats,
      services: readiness.services,
    });
  });

  // Everything under /v1 and /mcp acts for a tenant: with keys configured it needs one.
  await app.register(async (api) => {
    api.addHook('onRequest', async (request, reply) => {
      if (!auth.enabled) return;
      const tenant = auth.authenticate(request.headers.authorization);
      if (!tenant) {
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer')
          .send(httpError('UNAUTHORIZED', 'A valid API key is required: Authorization: Bearer <key>.'));
      }
      tenants.set(request, tenant);
    });

    api.post('/v1/query', { sse: 'manual' }, async (request, reply) => {
      if (request.body === undefined) {
        return reply.code(400).send(httpError('BAD_REQUEST', 'body: is required', { field: 'body' }));
      }
      const parsed = QueryRequestSchema.safeParse(request.body);
      if (!parsed.success) return reply.code(400).send(validationError(parsed.error.issues));
      const body = parsed.data;
      const tenant = tenantOf(request);
      if (tenant && !mayActFor(tenant, body.entityId, body.orgId)) {
        return reply.code(403).send(
          httpError('FORBIDDEN', 'Your API key may not act for this entity and organisation.', {
            field: 'entityId',
          }),
        );
      }
      let submission: Awaited<ReturnType<typeof submitQuery>>;
      try {
        submission = await submitQuery(bus, body);
      } catch (error) {
        if (!(error instanceof SubmitError)) throw error;
        request.log.error({ err: error }, 'query could not be submitted');
        return sendUnavailable(reply);
      }
      request.log.info(
        { requestId: submission.scope.requestId, conversationId: submission.scope.conversationId },
        'query submitted',
      );
      await streamEvents(reply, submission.following);
    });

    api.get('/v1/requests/:requestId/events', { sse: 'manual' }, async (request, reply) => {
      const params = ReplayParamsSchema.safeParse(request.params);
      if (!params.success) return reply.code(400).send(validationError(params.error.issues));
      const { requestId } = params.data;
      const query = (request.query ?? {}) as Record<string, unknown>;
      const header = request.headers['last-event-id'];
      const rawLastId = typeof header === 'string' && header !== '' ? header : query.lastEventId;
      let afterSeq: number | undefined;
      if (rawLastId !== undefined) {
        const lastId = LastEventIdSchema.safeParse(rawLastId);
        if (!lastId.success) {
          const message = lastId.error.issues[0]?.message ?? 'is invalid';
          return reply
            .code(400)
            .send(httpError('BAD_REQUEST', `Last-Event-ID: ${message}`, { field: 'Last-Event-ID' }));
        }
        afterSeq = Number(lastId.data);
      }
      let last: Awaited<ReturnType<Bus['lastEvent']>>;
      try {
        last = await bus.lastEvent(requestId);
      } catch (error) {
        request.log.error({ err: error, requestId }, 'could not look up the request');
        return sendUnavailable(reply);
      }
      const tenant = tenantOf(request);
      // Another tenant's request is reported as unknown, so ids cannot be probed.
      if (!last || (tenant && !mayActFor(tenant, last.message.entityId, last.message.orgId))) {
        return reply
          .code(404)
          .send(httpError('NOT_FOUND', `No events for request ${requestId}.`, { field: 'requestId' }));
      }
      const finished = TERMINAL_EVENT_TYPES.includes(last.message.data.type);
      if (finished && afterSeq !== undefined && afterSeq >= last.seq) {
        // Nothing was missed and nothing more will come.
        reply.sse.sendHeaders(200);
        return;
      }
      let following: Following;
      try {
        following = await bus.follow(requestId, afterSeq === undefined ? {} : { afterSeq });
      } catch (error) {
        request.log.error({ err: error, requestId }, 'could not follow the request');
        return sendUnavailable(reply);
      }
      await streamEvents(reply, following);
    });

    registerMcp(api, { bus, log, openStreams, streamTimeoutMs: config.STREAM_TIMEOUT_MS, tenantOf });
  });

  return {
    app,
    start: async () => {
      await app.ready();
    },
    stop: async () => {
      await app.close();
    },
  };
}
