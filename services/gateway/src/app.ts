import fastifyMultipart from '@fastify/multipart';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { adminRoutes } from './admin/index.ts';
import { attachmentContentRoutes } from './attachments/content.ts';
import { trustHops } from './client-address.ts';
import { consoleRoutes } from './console/routes.ts';
import { createContext, type GatewayDeps } from './context.ts';
import { healthRoutes } from './health/routes.ts';
import { bearerAuth, principals } from './plugins/auth.ts';
import { registerCors } from './plugins/cors.ts';
import { errors } from './plugins/errors.ts';
import { hostCheck } from './plugins/host-check.ts';
import { rateLimit, urlLimit } from './plugins/limits.ts';
import { openApi } from './plugins/openapi.ts';
import { streams } from './plugins/streams.ts';
import { validation } from './plugins/validation.ts';
import { requestLogSerializers } from './request-log.ts';
import { tenantGate } from './tenant-gate.ts';
import { TENANT_ROUTES } from './tenant-routes.ts';

export type { GatewayConfig, GatewayDeps } from './context.ts';

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

/** Bind addresses that name no host a browser would use. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** Builds the gateway: HTTP API with SSE streams, API-key auth, health endpoints and the MCP endpoint. */
export async function buildGateway(deps: GatewayDeps): Promise<Gateway> {
  const ctx = createContext(deps);
  const { config, log } = ctx;
  const app = Fastify({
    // Signed links carry their credential in the query string; request logs get it redacted.
    loggerInstance: log.child({}, { serializers: requestLogSerializers }) as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: trustHops(config.TRUST_PROXY_HOPS),
  });
  // Only JSON bodies are accepted; without this, text/plain would be parsed as a string.
  app.removeContentTypeParser('text/plain');

  await app.register(validation);
  await app.register(errors, { bodyLimitBytes: config.BODY_LIMIT_BYTES });
  await app.register(streams, ctx);
  await app.register(openApi);
  // Multipart only where a route reads it (audio, uploads); files are streamed and size-limited there.
  await app.register(fastifyMultipart, { limits: { fileSize: config.STT_MAX_BYTES } });
  await registerCors(app, config.CORS_ORIGINS);
  await app.register(urlLimit, config);
  if (!ctx.authenticator.enabled) {
    await app.register(hostCheck, {
      hosts: [...(WILDCARD_HOSTS.has(config.HOST) ? [] : [config.HOST]), ...config.GATEWAY_ALLOWED_HOSTS],
      corsOrigins: config.CORS_ORIGINS,
    });
  }
  await app.register(principals);

  await app.register(consoleRoutes);
  // Outside the bearer scope: the link's signature is its credential.
  await app.register(attachmentContentRoutes, ctx);
  await app.register(healthRoutes, ctx);
  // Everything under /v1 and /mcp needs a credential when any is configured.
  await app.register(async (api) => {
    await api.register(bearerAuth, ctx);
    await api.register(rateLimit, config);
    await api.register(adminRoutes, ctx);
    // Every other route acts for a tenant, which the tenant gate decides.
    await api.register(async (tenants) => {
      await tenants.register(tenantGate);
      for (const routes of TENANT_ROUTES) await tenants.register(routes, ctx);
    });
  });

  return {
    app,
    authEnabled: ctx.authenticator.enabled,
    start: async () => {
      await app.ready();
    },
    openStreamCount: () => ctx.slots.open,
    stop: async () => {
      await app.close();
    },
  };
}
