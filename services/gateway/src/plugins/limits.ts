import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { clientAddress } from '../client-address.ts';
import type { GatewayConfig, GatewayContext } from '../context.ts';
import { HttpRefusal, httpError } from '../http-errors.ts';

/**
 * Who a request counts against: its credential (a key by its hash, a token by issuer and subject),
 * or without auth the client address through the trusted proxy hops.
 */
export const callerOf = (request: FastifyRequest) => request.principal?.id ?? `ip:${clientAddress(request)}`;

/** 414 for a URL longer than `MAX_URL_LENGTH`, before anything else looks at it. */
export const urlLimit = fp<Pick<GatewayConfig, 'MAX_URL_LENGTH'>>(
  async (app, { MAX_URL_LENGTH }) => {
    app.addHook('onRequest', async (request, reply) => {
      if (request.url.length <= MAX_URL_LENGTH) return;
      return reply
        .code(414)
        .send(
          httpError('BAD_REQUEST', `url: must be at most ${MAX_URL_LENGTH} characters`, { field: 'url' }),
        );
    });
  },
  { name: 'munim-url-limit' },
);

/**
 * Requests per caller and window in the scope it is registered in. It runs after authentication
 * (so it counts per key or token rather than per address) and before validation (so refused
 * requests count too).
 */
export const rateLimit = fp<Pick<GatewayConfig, 'RATE_LIMIT_MAX' | 'RATE_LIMIT_WINDOW_MS'>>(
  async (api, { RATE_LIMIT_MAX, RATE_LIMIT_WINDOW_MS }) => {
    await api.register(fastifyRateLimit, {
      hook: 'preValidation',
      max: RATE_LIMIT_MAX,
      timeWindow: RATE_LIMIT_WINDOW_MS,
      keyGenerator: callerOf,
      errorResponseBuilder: (_request, context) =>
        Object.assign(
          new Error(
            `Too many requests: at most ${context.max} per ${Math.ceil(RATE_LIMIT_WINDOW_MS / 1000)} s; retry after ${Math.ceil(context.ttl / 1000)} s.`,
          ),
          { statusCode: 429 },
        ),
    });
  },
  { name: 'munim-rate-limit' },
);

/**
 * Takes one of the caller's stream slots: its release, or a thrown 429 (with Retry-After) when the
 * caller or the gateway has too many streams open.
 */
export function acquireStream(ctx: Pick<GatewayContext, 'slots' | 'config'>, request: FastifyRequest) {
  const release = ctx.slots.acquire(callerOf(request));
  if (typeof release === 'function') return release;
  const message =
    release.scope === 'key'
      ? `At most ${ctx.config.MAX_STREAMS_PER_KEY} streams may be open at once per key; close one and try again.`
      : 'The gateway has too many open streams; try again shortly.';
  throw new HttpRefusal(429, httpError('RATE_LIMITED', message), {
    headers: { 'retry-after': String(release.retryAfterSeconds) },
  });
}
