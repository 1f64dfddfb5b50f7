import type { Bus } from '@munim/bus';
import {
  type Conversation,
  ConversationListQuerySchema,
  ConversationListSchema,
  ConversationMessageSchema,
  ConversationParamsSchema,
  ConversationSchema,
  type ConversationSummary,
  FeedbackRequestSchema,
  FeedbackResponseSchema,
  TenantQuerySchema,
} from '@munim/contracts';
import type { ConversationMessage, Database } from '@munim/db';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { mayActFor, type Tenant } from './auth.ts';
import { renderExport } from './export.ts';
import { httpError, validationError } from './http-errors.ts';
import { errorResponses, jsonSchema, SECURITY } from './openapi.ts';

export interface ConversationDeps {
  bus: Bus;
  db: Kysely<Database> | undefined;
  /** The tenant of an authenticated request; null when the gateway runs without auth. */
  tenantOf: (request: FastifyRequest) => Tenant | null;
}

/** `#MJ-0001` from a chat number (seed 003 §6.14). */
export function displayId(chatNumber: number): string {
  return `#MJ-${String(chatNumber).padStart(4, '0')}`;
}

const iso = (value: Date | string) => new Date(value).toISOString();

/**
 * The tenant a request acts for: the credentials' (a differing `entityId`/`orgId` is refused with
 * 403), or, without auth, the `entityId`/`orgId` given. Null after a refusal has been sent.
 */
export function resolveTenant(
  request: FastifyRequest,
  reply: FastifyReply,
  given: { entityId?: string | undefined; orgId?: string | undefined },
  tenantOf: (request: FastifyRequest) => Tenant | null,
): Tenant | null {
  const tenant = tenantOf(request);
  if (tenant) {
    if (
      (given.entityId !== undefined && given.entityId !== tenant.entityId) ||
      (given.orgId !== undefined && given.orgId !== tenant.orgId)
    ) {
      void reply.code(403).send(
        httpError('FORBIDDEN', 'Your credentials may not act for this entity and organisation.', {
          field: given.entityId !== tenant.entityId ? 'entityId' : 'orgId',
        }),
      );
      return null;
    }
    return tenant;
  }
  if (given.entityId === undefined || given.orgId === undefined) {
    const field = given.entityId === undefined ? 'entityId' : 'orgId';
    void reply.code(400).send(httpError('BAD_REQUEST', `${field}: is required`, { field }));
    return null;
  }
  return { entityId: given.entityId, orgId: given.orgId };
}

/**
 * The path parameters and tenant of a request on one of a tenant's resources
 * (`/…/:id?entityId&orgId`): the params by `schema`, the query strictly as a TenantQuery, then the
 * tenant as `resolveTenant`. Undefined after a 400 or 403 has been sent.
 */
export function resolveTenantParams<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  schema: z.ZodType<T>,
  tenantOf: (request: FastifyRequest) => Tenant | null,
): { params: T; tenant: Tenant } | undefined {
  const params = schema.safeParse(request.params);
  if (!params.success) return void reply.code(400).send(validationError(params.error.issues));
  const query = TenantQuerySchema.strict().safeParse(request.query ?? {});
  if (!query.success) return void reply.code(400).send(validationError(query.error.issues));
  const tenant = resolveTenant(request, reply, query.data, tenantOf);
  return tenant ? { params: params.data, tenant } : undefined;
}

function noDatabase(reply: FastifyReply) {
  return reply
    .code(503)
    .send(
      httpError('SERVICE_UNAVAILABLE', 'Conversation history is not available: no database is configured.'),
    );
}

/** 404 for a conversation that does not exist, is deleted or is another tenant's. */
export function conversationNotFound(reply: FastifyReply, conversationId: string) {
  return reply
    .code(404)
    .send(httpError('NOT_FOUND', `No conversation ${conversationId}.`, { field: 'conversationId' }));
}

const summaryColumns = [
  'id',
  'chat_number',
  'chat_name',
  'last_message_preview',
  'message_count',
  'created_at',
  'updated_at',
] as const;

type SummaryRow = {
  id: string;
  chat_number: number;
  chat_name: string | null;
  last_message_preview: string | null;
  message_count: number;
  created_at: Date;
  updated_at: Date;
};

function toSummary(row: SummaryRow): ConversationSummary {
  return {
    id: row.id,
    chatNumber: row.chat_number,
    displayId: displayId(row.chat_number),
    name: row.chat_name,
    preview: row.last_message_preview,
    messageCount: row.message_count,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** Reads one live conversation of a tenant; null when it does not exist, is deleted or is another tenant's. */
async function loadConversation(
  db: Kysely<Database>,
  tenant: Tenant,
  conversationId: string,
): Promise<Conversation | null> {
  const row = await db
    .selectFrom('unified_conversations')
    .select([...summaryColumns, 'summary', 'messages'])
    .where('id', '=', conversationId)
    .where('entity_id', '=', tenant.entityId)
    .where('org_id', '=', tenant.orgId)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  if (!row) return null;
  const messages = z.array(ConversationMessageSchema).catch([]).parse(row.messages) as ConversationMessage[];
  return { ...toSummary(row), summary: row.summary, messages: messages as Conversation['messages'] };
}

/** Conversations API (seed 003 §6.14, §9.2) and feedback (§6.11), each scoped to the caller's tenant. */
export function registerConversations(app: FastifyInstance, deps: ConversationDeps): void {
  const { db, bus, tenantOf } = deps;

  const tags = ['conversations'];
  const tenantQuery = jsonSchema(TenantQuerySchema.strict());
  const params = jsonSchema(ConversationParamsSchema);
  const docs = (summary: string, extra: Record<string, unknown>) => ({
    summary,
    tags,
    security: SECURITY,
    ...extra,
  });

  app.get(
    '/v1/conversations',
    {
      schema: docs('List the conversations of the caller’s tenant, newest first', {
        querystring: jsonSchema(ConversationListQuerySchema),
        response: {
          200: jsonSchema(ConversationListSchema, 'output'),
          ...errorResponses(400, 401, 403, 429, 503),
        },
      }),
    },
    async (request, reply) => {
      const parsed = ConversationListQuerySchema.safeParse(request.query ?? {});
      if (!parsed.success) return reply.code(400).send(validationError(parsed.error.issues));
      const tenant = resolveTenant(request, reply, parsed.data, tenantOf);
      if (!tenant) return reply;
      if (!db) return noDatabase(reply);
      const rows = await db
        .selectFrom('unified_conversations')
        .select(summaryColumns)
        .where('entity_id', '=', tenant.entityId)
        .where('org_id', '=', tenant.orgId)
        .where('is_deleted', '=', false)
        .orderBy('updated_at', 'desc')
        .orderBy('chat_number', 'desc')
        .limit(parsed.data.limit)
        .execute();
      return { conversations: rows.map(toSummary) };
    },
  );

  app.get(
    '/v1/conversations/:conversationId',
    {
      schema: docs('One conversation with its messages', {
        params,
        querystring: tenantQuery,
        response: {
          200: jsonSchema(ConversationSchema, 'output'),
          ...errorResponses(400, 401, 403, 404, 429, 503),
        },
      }),
    },
    async (request, reply) => {
      const scoped = resolveTenantParams(request, reply, ConversationParamsSchema, tenantOf);
      if (!scoped) return reply;
      if (!db) return noDatabase(reply);
      const { params, tenant } = scoped;
      const conversation = await loadConversation(db, tenant, params.conversationId);
      return conversation ?? conversationNotFound(reply, params.conversationId);
    },
  );

  app.get(
    '/v1/conversations/:conversationId/export',
    {
      schema: docs('A conversation as a styled, printable HTML document', {
        params,
        querystring: tenantQuery,
        response: {
          200: { description: 'HTML document', content: { 'text/html': { schema: { type: 'string' } } } },
          ...errorResponses(400, 401, 403, 404, 429, 503),
        },
      }),
    },
    async (request, reply) => {
      const scoped = resolveTenantParams(request, reply, ConversationParamsSchema, tenantOf);
      if (!scoped) return reply;
      if (!db) return noDatabase(reply);
      const { params, tenant } = scoped;
      const conversation = await loadConversation(db, tenant, params.conversationId);
      if (!conversation) return conversationNotFound(reply, params.conversationId);
      const file = `chat-${conversation.displayId.slice(1)}.html`;
      return reply
        .type('text/html; charset=utf-8')
        .header('content-disposition', `inline; filename="${file}"`)
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .send(renderExport(conversation, tenant, new Date()));
    },
  );

  app.delete(
    '/v1/conversations/:conversationId',
    {
      schema: docs('Soft-delete a conversation', {
        params,
        querystring: tenantQuery,
        response: {
          204: { description: 'Deleted', type: 'null' },
          ...errorResponses(400, 401, 403, 404, 429, 503),
        },
      }),
    },
    async (request, reply) => {
      const scoped = resolveTenantParams(request, reply, ConversationParamsSchema, tenantOf);
      if (!scoped) return reply;
      if (!db) return noDatabase(reply);
      const { params, tenant } = scoped;
      const result = await db
        .updateTable('unified_conversations')
        .set({ is_deleted: true, updated_at: new Date() })
        .where('id', '=', params.conversationId)
        .where('entity_id', '=', tenant.entityId)
        .where('org_id', '=', tenant.orgId)
        .where('is_deleted', '=', false)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return conversationNotFound(reply, params.conversationId);
      return reply.code(204).send();
    },
  );

  app.post(
    '/v1/feedback',
    {
      schema: docs('Thumbs up or down on one of the caller’s answered requests', {
        tags: ['feedback'],
        body: jsonSchema(FeedbackRequestSchema),
        response: {
          201: jsonSchema(FeedbackResponseSchema, 'output'),
          ...errorResponses(400, 401, 403, 404, 429, 503),
        },
      }),
    },
    async (request, reply) => {
      const parsed = FeedbackRequestSchema.safeParse(request.body ?? {});
      if (!parsed.success) return reply.code(400).send(validationError(parsed.error.issues));
      const body = parsed.data;
      const tenant = resolveTenant(request, reply, body, tenantOf);
      if (!tenant) return reply;
      if (!db) return noDatabase(reply);
      const last = await bus.lastEvent(body.requestId);
      // Another tenant's request is reported as unknown, so ids cannot be probed.
      if (!last || !mayActFor(tenant, last.message.entityId, last.message.orgId)) {
        return reply
          .code(404)
          .send(httpError('NOT_FOUND', `No request ${body.requestId}.`, { field: 'requestId' }));
      }
      const complete = last.message.data.type === 'complete' ? last.message.data.payload : undefined;
      const row = await db
        .insertInto('feedback_log')
        .values({
          request_id: body.requestId,
          conversation_id: last.message.conversationId,
          entity_id: tenant.entityId,
          org_id: tenant.orgId,
          kind: 'explicit',
          signal: body.signal,
          score: body.signal === 'thumbs_up' ? 1 : -1,
          query: complete?.query ?? null,
          response: complete?.response ?? null,
          llm_model: complete?.llmModel ?? null,
          comment: body.comment ?? null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return reply.code(201).send({ id: row.id });
    },
  );
}
