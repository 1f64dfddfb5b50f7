import { TenantScopeQuerySchema } from '@munim/contracts';
import { quickSuggestions } from '@munim/db';
import type { FastifyPluginAsync } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { noDatabase } from '../http-errors.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { requestTenant } from '../tenant-gate.ts';

/** Most suggestions a client is shown. */
export const MAX_SUGGESTIONS = 8;

/**
 * `GET /v1/suggestions`: the caller's tenant's active quick suggestions (the console's starter questions), or,
 * when it has none, one training phrase of each active intent.
 */
export const suggestionRoutes: FastifyPluginAsync<Pick<GatewayContext, 'db'>> = async (app, { db }) => {
  const schema = { ...HIDDEN, querystring: TenantScopeQuerySchema };
  app.withTypeProvider<ZodTypeProvider>().get('/v1/suggestions', { schema }, async (request) => {
    const tenant = requestTenant(request, request.query);
    if (!db) throw noDatabase('Suggestions');
    const { source, texts } = await quickSuggestions(db, tenant, MAX_SUGGESTIONS);
    return { source, suggestions: texts.map((text) => ({ text })) };
  });
};
