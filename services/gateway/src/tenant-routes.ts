import type { FastifyPluginAsync } from 'fastify';
import { approvalDecisionRoutes, approvalInboxRoutes } from './approvals/routes.ts';
import { attachmentRoutes } from './attachments/routes.ts';
import { auditRoutes } from './audit/routes.ts';
import type { GatewayContext } from './context.ts';
import { exportRoutes } from './conversations/export-routes.ts';
import { conversationRoutes } from './conversations/routes.ts';
import { feedbackRoutes } from './feedback/routes.ts';
import { mcpRoutes } from './mcp/routes.ts';
import { metricsRoutes } from './metrics/routes.ts';
import { replayRoutes } from './query/replay.ts';
import { queryRoutes } from './query/routes.ts';
import { suggestionRoutes } from './suggestions/routes.ts';
import { transcribeRoutes } from './voice/routes.ts';

/** The route families under `/v1` (but the admin ones) and `/mcp`, which act for a tenant. */
export const TENANT_ROUTES: FastifyPluginAsync<GatewayContext>[] = [
  queryRoutes,
  transcribeRoutes,
  replayRoutes,
  conversationRoutes,
  exportRoutes,
  feedbackRoutes,
  attachmentRoutes,
  metricsRoutes,
  suggestionRoutes,
  auditRoutes,
  approvalInboxRoutes,
  approvalDecisionRoutes,
  mcpRoutes,
];
