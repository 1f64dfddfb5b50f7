import fp from 'fastify-plugin';
import type { Principal } from '../auth.ts';
import { clientAddress } from '../client-address.ts';
import type { GatewayContext } from '../context.ts';
import { httpError } from '../http-errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; null when no credential is configured, and outside `/v1` and `/mcp`. */
    principal: Principal | null;
  }
}

/** Gives every request a `principal` (null until `bearerAuth` sets it). */
export const principals = fp(
  async (app) => {
    app.decorateRequest('principal', null);
  },
  { name: 'munim-principals' },
);

/**
 * Bearer authentication of the scope it is registered in, when any credential is configured: 401
 * without a valid key or token, 429 for a client address with too many failed tries (with a valid
 * credential too, or the answer would tell a guesser which guess was right). The address is the
 * client's through the trusted proxy hops, so a guesser behind the ingress blocks only itself.
 */
export const bearerAuth = fp<Pick<GatewayContext, 'authenticator' | 'authFailures'>>(
  async (api, { authenticator, authFailures }) => {
    if (!authenticator.enabled) return;
    api.addHook('onRequest', async (request, reply) => {
      const address = clientAddress(request);
      const blockedFor = authFailures.blockedFor(address);
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
      const principal = await authenticator.authenticate(request.headers.authorization);
      if (!principal) {
        // Only a presented credential is a guess; a request without one is merely anonymous.
        if (request.headers.authorization !== undefined) authFailures.fail(address);
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
      request.principal = principal;
    });
  },
  { name: 'munim-bearer-auth', dependencies: ['munim-principals'] },
);
