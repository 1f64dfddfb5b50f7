import type { FastifyPluginAsync } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { MIN_KEY_LENGTH } from '../env.ts';
import { httpError } from '../http-errors.ts';
import { analyticsRoutes } from './analytics.ts';
import { approvalPolicyRoutes, isOrgAdmin } from './approval-policy.ts';
import { businessContextRoutes } from './business-context.ts';
import { generateRoutes } from './generate.ts';
import { intentRoutes } from './intents.ts';
import { llmConfigRoutes } from './llm-configs.ts';
import { suggestedIntentRoutes } from './suggested-intents.ts';
import { adminSuggestionRoutes } from './suggestions.ts';
import { toolPinRoutes } from './tool-pins.ts';
import { toolRoutes } from './tools.ts';
import { userRoutes } from './users.ts';

/** What to do to get admin access, for the 403 of a caller without it. */
function adminRefusal(config: GatewayContext['config']): string {
  const configured =
    config.GATEWAY_ADMIN_KEYS.length > 0 ||
    config.GATEWAY_JWT_SECRET !== undefined ||
    config.GATEWAY_JWKS_URL !== undefined;
  return configured
    ? `Admin endpoints need an admin key (GATEWAY_ADMIN_KEYS) or a token with the ${config.GATEWAY_JWT_ADMIN_ROLE} role.`
    : 'Admin endpoints need admin credentials, and none are configured: set GATEWAY_ADMIN_KEYS (keys of at ' +
        `least ${MIN_KEY_LENGTH} characters), or GATEWAY_JWT_SECRET / GATEWAY_JWKS_URL with tokens carrying ` +
        'the GATEWAY_JWT_ADMIN_ROLE role, and send Authorization: Bearer <admin key>.';
}

/**
 * The admin endpoints under `/v1/admin/*`, which need an admin key (`GATEWAY_ADMIN_KEYS`) or a
 * token with the admin role, always (also when the gateway runs without auth); anyone else gets
 * 403 and nothing changes — but for routes marked `orgAdmins`, which an org's own admins and
 * owners may use for their org. Their routes are left out of the published API description.
 */
export const adminRoutes: FastifyPluginAsync<GatewayContext> = async (admin, ctx) => {
  const refusal = adminRefusal(ctx.config);
  admin.addHook('onRequest', async (request, reply) => {
    if (request.principal?.admin) return;
    // Routes an org's own admins and owners may also use; the route checks the org.
    if (request.routeOptions.config.orgAdmins && isOrgAdmin(request.principal)) return;
    return reply.code(403).send(httpError('FORBIDDEN', refusal));
  });
  await admin.register(adminSuggestionRoutes, ctx);
  await admin.register(analyticsRoutes, ctx);
  await admin.register(intentRoutes, ctx);
  await admin.register(suggestedIntentRoutes, ctx);
  await admin.register(generateRoutes, ctx);
  await admin.register(llmConfigRoutes, ctx);
  await admin.register(toolRoutes, ctx);
  await admin.register(toolPinRoutes, ctx);
  await admin.register(userRoutes, ctx);
  await admin.register(approvalPolicyRoutes, ctx);
  await admin.register(businessContextRoutes, ctx);
};
