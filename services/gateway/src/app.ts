import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import fastifyCors from '@fastify/cors';
import fastifyMultipart from '@fastify/multipart';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifySse, { type SSEPluginOptions } from '@fastify/sse';
import { createAttachments, StorageError } from '@munim/attachments';
import type { Bus, Following } from '@munim/bus';
import {
  type QueryRequest,
  QueryRequestSchema,
  RequestIdSchema,
  TERMINAL_EVENT_TYPES,
} from '@munim/contracts';
import { type Database, parseSecretKey, resealUnboundLlmKeys, TenantUsage } from '@munim/db';
import { isLoopbackHost } from '@munim/kit';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
  type FastifySchema,
} from 'fastify';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { z } from 'zod';
import { registerAdmin } from './admin/index.ts';
import { checkQueryAttachments, registerAttachmentContent, registerAttachments } from './attachments.ts';
import { Authenticator, mayActFor, type Principal } from './auth.ts';
import { registerConsole } from './console.ts';
import { registerConversations } from './conversations.ts';
import type { Env } from './env.ts';
import { registerHostCheck } from './host-check.ts';
import { HttpRefusal, httpError, validationError } from './http-errors.ts';
import { AuthFailures, type SlotRefusal, StreamSlots } from './limits.ts';
import { registerMcp } from './mcp.ts';
import { registerMetrics } from './metrics.ts';
import { errorResponses, jsonSchema, registerOpenApi, SECURITY, SSE_RESPONSE } from './openapi.ts';
import { QuotaGate, quotaRefusalError, sendQuotaRefusal } from './quotas.ts';
import { checkReadiness } from './readiness.ts';
import { OpenStreams, relay } from './relay.ts';
import { requestLogSerializers } from './request-log.ts';
import { SubmitError, submitQuery } from './submit.ts';
import { createTranscriber, readAudio } from './transcribe.ts';

/** The gateway's settings (a subset of its environment). */
export type GatewayConfig = Omit<Env, 'PORT' | 'NATS_URL' | 'NATS_PREFIX' | 'LOG_LEVEL' | 'DATABASE_URL'>;

export interface GatewayDeps {
  bus: Bus;
  log: Logger;
  config: GatewayConfig;
  /** The database with `unified_conversations` and `feedback_log`; without it those endpoints answer 503. */
  db?: Kysely<Database> | undefined;
  /** The clock of quota windows, in ms since the epoch (tests move it). */
  clock?: () => number;
}

export interface Gateway {
  /** The fastify app: `listen()` it, or `inject()` requests in tests. */
  app: FastifyInstance;
  /** Whether any credential is configured (else every request is served without one, loopback only). */
  authEnabled: boolean;
  start(): Promise<void>;
  /** Streams (SSE responses and MCP tool calls) open right now. */
  openStreamCount(): number;
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

/** Bind addresses that name no host a browser would use. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** Binds model keys stored before keys were bound to their rows; a failure leaves them readable as they are. */
async function resealKeys(db: Kysely<Database>, secretKey: Buffer, log: Logger): Promise<void> {
  try {
    const { sealed, unreadable } = await resealUnboundLlmKeys(db, secretKey);
    if (sealed > 0) log.info({ sealed }, 'model configuration keys bound to their rows');
    if (unreadable > 0) {
      log.warn(
        { unreadable },
        'model configuration keys that LLM_CONFIG_KEY does not open were left as they are',
      );
    }
  } catch (error) {
    log.warn(
      { err: error },
      'model configuration keys could not be bound to their rows; retried at next start',
    );
  }
}

/** Builds the gateway: HTTP API with SSE streams, API-key auth, health endpoints and the MCP endpoint. */
export async function buildGateway(deps: GatewayDeps): Promise<Gateway> {
  const { bus, log, config, db } = deps;
  const auth = new Authenticator(
    config.GATEWAY_API_KEYS,
    {
      secret: config.GATEWAY_JWT_SECRET,
      jwksUrl: config.GATEWAY_JWKS_URL,
      issuer: config.GATEWAY_JWT_ISSUER,
      audience: config.GATEWAY_JWT_AUDIENCE,
      entityClaim: config.GATEWAY_JWT_ENTITY_CLAIM,
      orgClaim: config.GATEWAY_JWT_ORG_CLAIM,
    },
    { keys: config.GATEWAY_ADMIN_KEYS, role: config.GATEWAY_JWT_ADMIN_ROLE },
  );
  if (!auth.enabled && !isLoopbackHost(config.HOST)) {
    log.warn(
      { host: config.HOST },
      'GATEWAY_ALLOW_UNAUTHENTICATED: serving a non-loopback address without any credential; anyone who ' +
        'reaches it may act for every entity (set GATEWAY_API_KEYS)',
    );
  }
  const principals = new WeakMap<FastifyRequest, Principal>();
  const tenantOf = (request: FastifyRequest) => principals.get(request)?.tenant ?? null;
  // Without auth every address is its own caller for rate limits and stream caps.
  const callerOf = (request: FastifyRequest) => principals.get(request)?.id ?? `ip:${request.ip}`;
  const attachments = db ? createAttachments(db, config) : undefined;
  if (attachments?.storage.kind === 'local' && !config.ATTACHMENTS_SIGNING_KEY) {
    log.warn(
      {},
      'ATTACHMENTS_SIGNING_KEY is not set: attachment links are signed with a random key, so they work only on ' +
        'this gateway instance and until it restarts',
    );
  }
  const openStreams = new OpenStreams();
  const slots = new StreamSlots(config.MAX_STREAMS_PER_KEY, config.MAX_STREAMS_TOTAL);
  const authFailures = new AuthFailures(config.AUTH_FAILURE_MAX, config.AUTH_FAILURE_WINDOW_MS);
  const quotaLimits = { queries: config.QUOTA_QUERIES_PER_WINDOW, tokens: config.QUOTA_TOKENS_PER_WINDOW };
  const quotas = new QuotaGate(
    db && (quotaLimits.queries || quotaLimits.tokens)
      ? new TenantUsage(db, { windowMs: config.QUOTA_WINDOW_MS, now: deps.clock })
      : undefined,
    quotaLimits,
    log,
  );

  const app = Fastify({
    // Signed links carry their credential in the query string; request logs get it redacted.
    loggerInstance: log.child({}, { serializers: requestLogSerializers }) as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT_BYTES,
  });
  // Only JSON bodies are accepted; without this, text/plain would be parsed as a string.
  app.removeContentTypeParser('text/plain');
  // The package's default export at runtime is its fastify-plugin wrapped function (so its onRoute
  // hook sees every route); its typings describe the CommonJS module object instead.
  await app.register(fastifySse as unknown as FastifyPluginAsync<SSEPluginOptions>, {
    heartbeatInterval: config.SSE_HEARTBEAT_MS,
  });

  await registerOpenApi(app);
  // Multipart only where a route reads it (audio); files are streamed and size-limited there.
  await app.register(fastifyMultipart, { limits: { fileSize: config.STT_MAX_BYTES } });

  if (config.CORS_ORIGINS.length > 0) {
    await app.register(fastifyCors, {
      origin: config.CORS_ORIGINS.includes('*') ? '*' : config.CORS_ORIGINS,
      methods: ['GET', 'POST', 'DELETE'],
      allowedHeaders: [
        'authorization',
        'content-type',
        'last-event-id',
        'mcp-protocol-version',
        'mcp-session-id',
      ],
      exposedHeaders: ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
      maxAge: 600,
    });
  }

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // A refusal a handler threw carries its own answer (multipart uploads, attachment checks, STT).
    if (error instanceof HttpRefusal) return reply.code(error.status).headers(error.headers).send(error.body);
    if (error instanceof StorageError) {
      request.log.error({ err: error }, 'attachment storage failed');
      return reply
        .code(503)
        .send(
          httpError('SERVICE_UNAVAILABLE', 'The attachment storage is not reachable; try again shortly.'),
        );
    }
    const status = error.statusCode ?? 500;
    if (status === 429) {
      return reply.code(429).send(httpError('RATE_LIMITED', error.message));
    }
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
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.length <= config.MAX_URL_LENGTH) return;
    return reply.code(414).send(
      httpError('BAD_REQUEST', `url: must be at most ${config.MAX_URL_LENGTH} characters`, {
        field: 'url',
      }),
    );
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
    // The follow is stopped by relay(); a client that left before it started still frees it.
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
        idleTimeoutMs: config.STREAM_IDLE_TIMEOUT_MS,
        onEvent: async ({ seq, message }) => {
          if (!reply.sse.isConnected) return gone.abort(DISCONNECTED);
          await reply.sse.send({ id: String(seq), event: message.data.type, data: message.data.payload });
        },
      });
      // A gateway-side end has no id: the client's Last-Event-ID stays on the last real event.
      if (ended && reply.sse.isConnected) await reply.sse.send({ event: 'error', data: ended });
    });
  }

  const statusSchema = { type: 'object', properties: { status: { type: 'string' } } };
  if (!auth.enabled) {
    registerHostCheck(app, {
      hosts: [...(WILDCARD_HOSTS.has(config.HOST) ? [] : [config.HOST]), ...config.GATEWAY_ALLOWED_HOSTS],
      corsOrigins: config.CORS_ORIGINS,
    });
  }
  await registerConsole(app);
  // Outside the bearer scope: the link's signature is its credential.
  registerAttachmentContent(app, { attachments });

  app.get(
    '/healthz',
    { schema: { summary: 'The process is up', tags: ['health'], response: { 200: statusSchema } } },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        summary: 'NATS and every service the gateway needs answer',
        tags: ['health'],
        response: { 200: statusSchema, 503: statusSchema },
      },
    },
    async (_request, reply) => {
      const readiness = await checkReadiness(bus, config.REQUEST_TIMEOUT_MS);
      return reply.code(readiness.ready ? 200 : 503).send({
        status: readiness.ready ? 'ok' : 'unavailable',
        nats: readiness.nats,
        services: readiness.services,
      });
    },
  );

  function tooManyStreams(reply: FastifyReply, refusal: SlotRefusal) {
    const message =
      refusal.scope === 'key'
        ? `At most ${config.MAX_STREAMS_PER_KEY} streams may be open at once per key; close one and try again.`
        : 'The gateway has too many open streams; try again shortly.';
    return reply
      .code(429)
      .header('retry-after', String(refusal.retryAfterSeconds))
      .send(httpError('RATE_LIMITED', message));
  }

  // Everything under /v1 and /mcp acts for a tenant: with credentials configured it needs one.
  await app.register(async (api) => {
    api.addHook('onRequest', async (request, reply) => {
      if (!auth.enabled) return;
      const blockedFor = authFailures.blockedFor(request.ip);
      if (blockedFor > 0) {
        return reply
          .code(429)
          .header('retry-after', String(blockedFor))
          .send(
            httpError(
              'RATE_LIMITED',
              `Too many failed authentications from this address; retry after ${blockedFor} s.`,
            ),
          );
      }
      const principal = await auth.authenticate(request.headers.authorization);
      if (!principal) {
        // Only a presented credential is a guess; a request without one is merely anonymous.
        if (request.headers.authorization !== undefined) authFailures.fail(request.ip);
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer')
          .send(
            httpError(
              'UNAUTHORIZED',
              'A valid API key or token is required: Authorization: Bearer <key or token>.',
            ),
          );
      }
      principals.set(request, principal);
    });
    await api.register(fastifyRateLimit, {
      // After authentication, so the limit counts per key or token rather than per address.
      hook: 'preHandler',
      max: config.RATE_LIMIT_MAX,
      timeWindow: config.RATE_LIMIT_WINDOW_MS,
      keyGenerator: callerOf,
      errorResponseBuilder: (_request, context) =>
        Object.assign(
          new Error(
            `Too many requests: at most ${context.max} per ${Math.ceil(config.RATE_LIMIT_WINDOW_MS / 1000)} s; retry after ${Math.ceil(context.ttl / 1000)} s.`,
          ),
          { statusCode: 429 },
        ),
    });

    const queryDocs = {
      summary: 'Ask a question, give an order, or answer a pending confirmation; streams its events',
      tags: ['query'],
      security: SECURITY,
      body: jsonSchema(QueryRequestSchema),
      response: { 200: SSE_RESPONSE, ...errorResponses(400, 401, 403, 404, 429, 503) },
    };
    /** Streams the answer to a validated query body (typed or transcribed). */
    const answerQuery = async (request: FastifyRequest, reply: FastifyReply, body: QueryRequest) => {
      const tenant = tenantOf(request);
      if (tenant && !mayActFor(tenant, body.entityId, body.orgId)) {
        return reply.code(403).send(
          httpError('FORBIDDEN', 'Your API key may not act for this entity and organisation.', {
            field: 'entityId',
          }),
        );
      }
      if (body.attachmentIds) {
        await checkQueryAttachments(attachments, body.attachmentIds, body, body.conversationId);
      }
      const release = slots.acquire(callerOf(request));
      if (typeof release !== 'function') return tooManyStreams(reply, release);
      try {
        const refused = await quotas.admit(body);
        if (refused) return sendQuotaRefusal(reply, refused);
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
        if (body.attachmentIds && attachments) {
          // From now on these files belong to this conversation (a follow-up may refer to them).
          await attachments
            .bindToConversation(body.attachmentIds, body, submission.scope.conversationId)
            .catch((error: unknown) =>
              request.log.warn({ err: error }, 'attachments not bound to the conversation'),
            );
        }
        await streamEvents(reply, submission.following);
      } finally {
        release();
      }
    };

    api.post('/v1/query', { sse: 'manual', schema: queryDocs as FastifySchema }, async (request, reply) => {
      if (request.body === undefined) {
        return reply.code(400).send(httpError('BAD_REQUEST', 'body: is required', { field: 'body' }));
      }
      const parsed = QueryRequestSchema.safeParse(request.body);
      if (!parsed.success) return reply.code(400).send(validationError(parsed.error.issues));
      return answerQuery(request, reply, parsed.data);
    });

    // Speech to text (seed 003 §6.2): a transcript, or a spoken query answered like a typed one.
    const transcriber = createTranscriber({
      baseURL: config.STT_BASE_URL ?? config.OPENAI_BASE_URL,
      apiKey: config.STT_API_KEY ?? config.OPENAI_API_KEY,
      model: config.STT_MODEL,
      maxBytes: config.STT_MAX_BYTES,
    });
    const transcribeRequest = async (
      request: FastifyRequest,
      beforeTranscribing?: (upload: Awaited<ReturnType<typeof readAudio>>) => Promise<void>,
    ) => {
      const upload = await readAudio(request, config.STT_MAX_BYTES);
      await beforeTranscribing?.(upload);
      return { upload, text: await transcriber.transcribe(upload) };
    };
    api.post('/v1/transcribe', { schema: { hide: true } }, async (request, reply) => {
      const { text } = await transcribeRequest(request);
      return reply.send({ text, model: config.STT_MODEL });
    });
    api.post('/v1/query/audio', { sse: 'manual', schema: { hide: true } }, async (request, reply) => {
      // A tenant out of quota is refused before the transcription is paid for.
      const transcript = await transcribeRequest(request, async ({ fields }) => {
        const { entityId, orgId } = tenantOf(request) ?? fields;
        const refused = entityId && orgId ? await quotas.check({ entityId, orgId }) : null;
        if (refused) throw quotaRefusalError(refused);
      });
      if (!transcript.text) {
        return reply
          .code(422)
          .send(httpError('BAD_REQUEST', 'file: no speech was recognised in the audio', { field: 'file' }));
      }
      const { entityId, orgId, conversationId } = transcript.upload.fields;
      const parsed = QueryRequestSchema.safeParse({
        query: transcript.text,
        entityId,
        orgId,
        ...(conversationId ? { conversationId } : {}),
      });
      if (!parsed.success) return reply.code(400).send(validationError(parsed.error.issues));
      return answerQuery(request, reply, parsed.data);
    });

    const replayDocs = {
      summary: 'Replay the events of a request (after Last-Event-ID), then follow it live until it ends',
      tags: ['query'],
      security: SECURITY,
      params: jsonSchema(ReplayParamsSchema),
      querystring: {
        type: 'object',
        properties: { lastEventId: { type: 'string', description: 'Instead of the Last-Event-ID header.' } },
      },
      headers: {
        type: 'object',
        properties: { 'last-event-id': { type: 'string', pattern: '^\\d{1,15}$' } },
      },
      response: { 200: SSE_RESPONSE, ...errorResponses(400, 401, 404, 429, 503) },
    };
    api.get(
      '/v1/requests/:requestId/events',
      { sse: 'manual', schema: replayDocs as FastifySchema },
      async (request, reply) => {
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
        const release = slots.acquire(callerOf(request));
        if (typeof release !== 'function') return tooManyStreams(reply, release);
        try {
          let following: Following;
          try {
            following = await bus.follow(requestId, afterSeq === undefined ? {} : { afterSeq });
          } catch (error) {
            request.log.error({ err: error, requestId }, 'could not follow the request');
            return sendUnavailable(reply);
          }
          await streamEvents(reply, following);
        } finally {
          release();
        }
      },
    );

    registerConversations(api, { bus, db, tenantOf });
    registerAttachments(api, { db, attachments, tenantOf, maxBytes: config.ATTACHMENTS_MAX_BYTES });
    registerMetrics(api, { db, tenantOf });
    registerAdmin(api, {
      bus,
      log,
      config,
      db,
      tenantOf,
      principalOf: (r) => principals.get(r) ?? null,
    });
    registerMcp(api, {
      bus,
      log,
      openStreams,
      streamTimeoutMs: config.STREAM_TIMEOUT_MS,
      idleTimeoutMs: config.STREAM_IDLE_TIMEOUT_MS,
      tenantOf,
      acquireSlot: (request) => slots.acquire(callerOf(request)),
      admitQuery: (tenant) => quotas.admit(tenant),
    });
  });

  return {
    app,
    authEnabled: auth.enabled,
    start: async () => {
      await app.ready();
      if (db && config.LLM_CONFIG_KEY) await resealKeys(db, parseSecretKey(config.LLM_CONFIG_KEY), log);
    },
    openStreamCount: () => slots.open,
    stop: async () => {
      await app.close();
    },
  };
}
