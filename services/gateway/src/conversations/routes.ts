import {
  ConversationListQuerySchema,
  ConversationListSchema,
  ConversationParamsSchema,
  ConversationSchema,
  TenantScopeQuerySchema,
} from '@munim/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { errorResponses, SECURITY } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { requestTenant } from '../tenant-gate.ts';
import {
  conversationNotFound,
  loadConversation,
  noConversations,
  summaryColumns,
  toSummary,
} from './store.ts';

/** Conversations API: list, read and soft-delete, each scoped to the caller's tenant. */
export const conversationRoutes: FastifyPluginAsync<Pick<GatewayContext, 'db'>> = async (app, { db }) => {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const docs = { tags: ['conversations'], security: SECURITY };

  api.get(
    '/v1/conversations',
    {
      schema: {
        ...docs,
        summary: 'List the conversations of the caller’s tenant, newest first',
        querystring: ConversationListQuerySchema,
        response: { 200: ConversationListSchema, ...errorResponses(400, 401, 403, 429, 503) },
      },
    },
    async (request) => {
      const tenant = requestTenant(request, request.query);
      if (!db) throw noConversations();
      const rows = await db
        .selectFrom('unified_conversations')
        .select(summaryColumns)
        .where('entity_id', '=', tenant.entityId)
        .where('org_id', '=', tenant.orgId)
        .where('is_deleted', '=', false)
        .orderBy('updated_at', 'desc')
        .orderBy('chat_number', 'desc')
        .limit(request.query.limit)
        .execute();
      return { conversations: rows.map(toSummary) };
    },
  );

  api.get(
    '/v1/conversations/:conversationId',
    {
      schema: {
        ...docs,
        summary: 'One conversation with its messages',
        params: ConversationParamsSchema,
        querystring: TenantScopeQuerySchema,
        response: { 200: ConversationSchema, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      const tenant = requestTenant(request, request.query);
      if (!db) throw noConversations();
      const { conversationId } = request.params;
      const conversation = await loadConversation(db, tenant, conversationId);
      if (!conversation) throw conversationNotFound(conversationId);
      return conversation;
    },
  );

  api.delete(
    '/v1/conversations/:conversationId',
    {
      schema: {
        ...docs,
        summary: 'Soft-delete a conversation',
        params: ConversationParamsSchema,
        querystring: TenantScopeQuerySchema,
        response: {
          204: { description: 'Deleted', type: 'null' },
          ...errorResponses(400, 401, 403, 404, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const tenant = requestTenant(request, request.query);
      if (!db) throw noConversations();
      const { conversationId } = request.params;
      const result = await db
        .updateTable('unified_conversations')
        .set({ is_deleted: true, updated_at: new Date() })
        .where('id', '=', conversationId)
        .where('entity_id', '=', tenant.entityId)
        .where('org_id', '=', tenant.orgId)
        .where('is_deleted', '=', false)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) throw conversationNotFound(conversationId);
      return reply.code(204).send();
    },
  );
};
