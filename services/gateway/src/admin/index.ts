import type { FastifyInstance } from 'fastify';
import { httpError } from '../http-errors.ts';
import { registerAnalytics } from './analytics.ts';
import { registerGenerate } from './generate.ts';
import { registerIntents } from './intents.ts';
import { registerLlmConfigs } from './llm-configs.ts';
import type { AdminDeps } from './shared.ts';
import { registerAdminSuggestions, registerSuggestions } from './suggestions.ts';
import { registerTools } from './tools.ts';

export type { AdminDeps } from './shared.ts';

/**
 * Quick suggestions for clients, and the admin endpoints under `/v1/admin/*`, which need an admin
 * key (`GATEWAY_ADMIN_KEYS`) or a token with the admin role; anyone else gets 403 and nothing changes.
 */
export function registerAdmin(api: FastifyInstance, deps: AdminDeps): void {
  registerSuggestions(api, deps);
  void api.register(async (admin) => {
    admin.addHook('onRequest', async (request, reply) => {
      if (!deps.authEnabled || deps.principalOf(request)?.admin) return;
      return reply
        .code(403)
        .send(httpError('FORBIDDEN', 'Admin endpoints need an admin key or a token with the admin role.'));
    });
    registerAdminSuggestions(admin, deps);
    registerAnalytics(admin, deps);
    registerIntents(admin, deps);
    registerGenerate(admin, deps);
    registerLlmConfigs(admin, deps);
    registerTools(admin, deps);
  });
}
