import { ConversationParamsSchema, TenantScopeQuerySchema } from '@munim/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { errorResponses, SECURITY } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { requestTenant } from '../tenant-gate.ts';
import { renderExport } from './export.ts';
import { conversationNotFound, loadConversation, noConversations } from './store.ts';

/** `GET /v1/conversations/:conversationId/export`: a conversation as a printable HTML document. */
export const exportRoutes: FastifyPluginAsync<Pick<GatewayContext, 'db'>> = async (app, { db }) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/conversations/:conversationId/export',
    {
      schema: {
        summary: 'A conversation as a styled, printable HTML document',
        tags: ['conversations'],
        security: SECURITY,
        params: ConversationParamsSchema,
        querystring: TenantScopeQuerySchema,
        response: {
          200: { description: 'HTML document', content: { 'text/html': { schema: { type: 'string' } } } },
          ...errorResponses(400, 401, 403, 404, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const tenant = requestTenant(request, request.query);
      if (!db) throw noConversations();
      const { conversationId } = request.params;
      const conversation = await loadConversation(db, tenant, conversationId);
      if (!conversation) throw conversationNotFound(conversationId);
      const file = `chat-${conversation.displayId.slice(1)}.html`;
      return reply
        .type('text/html; charset=utf-8')
        .header('content-disposition', `inline; filename="${file}"`)
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .send(renderExport(conversation, tenant, new Date()));
    },
  );
};
