import type { FastifyInstance } from 'fastify';
import { MIN_KEY_LENGTH } from '../env.ts';
import { httpError } from '../http-errors.ts';
import { registerAnalytics } from './analytics.ts';
import { registerGenerate } from './generate.ts';
import { registerIntents } from './intents.ts';
import { registerLlmConfigs } from './llm-configs.ts';
import type { AdminDeps } from './shared.ts';
import { registerAdminSuggestions, registerSuggestions } from './suggestions.ts';
import { registerTools } from './tools.ts';

export type { AdminDeps } from './shared.ts';

/** What to do to get admin access, for the 403 of a caller without it. */
function adminRefusal(deps: AdminDeps): string {
  const configured =
    deps.config.GATEWAY_ADMIN_KEYS.length > 0 ||
    deps.config.GATEWAY_JWT_SECRET !== undefined ||
    deps.config.GATEWAY_JWKS_URL !== undefined;
  return configured
    ? `Admin endpoints need an admin key (GATEWAY_ADMIN_KEYS) or a token with the ${deps.config.GATEWAY_JWT_ADMIN_ROLE} role.`
    : 'Admin endpoints need admin credentials, and none are configured: set GATEWAY_ADMIN_KEYS (keys of at ' +
        `least ${MIN_KEY_LENGTH} characters), or GATEWAY_JWT_SECRET / GATEWAY_JWKS_URL with tokens carrying ` +
        'the GATEWAY_JWT_ADMIN_ROLE role, and send Authorization: Bearer <admin key>.';
}

/**
 * Quick suggestions for clients, and the admin endpoints under `/v1/admin/*`, which need an admin
 * key (`GATEWAY_ADMIN_KEYS`) or a token with the admin role, always (also when the gateway runs
 * without auth); anyone else gets 403 and nothing changes.
 */
export function registerAdmin(api: FastifyInstance, deps: AdminDeps): void {
  registerSuggestions(api, deps);
  const refusal = adminRefusal(deps);
  void api.register(async (admin) => {
    admin.addHook('onRequest', async (request, reply) => {
      if (deps.principalOf(request)?.admin) return;
      return reply.code(403).send(httpError('FORBIDDEN', refusal));
    });
    registerAdminSuggestions(admin, deps);
    registerAnalytics(admin, deps);
    registerIntents(admin, deps);
    registerGenerate(admin, deps);
    registerLlmConfigs(admin, deps);
    registerTools(admin, deps);
  });
}
