import { IdSchema, TenantQuerySchema } from '@munim/contracts';
import { quickSuggestions } from '@munim/db';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { z } from 'zod';
import { resolveTenant } from '../conversations.ts';
import { httpError, validationError } from '../http-errors.ts';
import { type AdminDeps, changeSchema, HIDDEN, iso, noDatabase } from './shared.ts';

/** Most suggestions a client is shown. */
export const MAX_SUGGESTIONS = 8;

const EntityParamsSchema = z.object({ entityId: IdSchema }).strict();
const SuggestionParamsSchema = z
  .object({ entityId: IdSchema, id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) })
  .strict();
/** `?orgId=`: suggestions are a tenant's, entity and org together (two orgs may share an entity id). */
const OrgQuerySchema = z.object({ orgId: IdSchema }).strict();

/** Body of `POST /v1/admin/entities/:entityId/suggestions?orgId=`. */
export const SuggestionCreateSchema = z
  .object({
    text: z.string().trim().min(1).max(200),
    sortOrder: z.number().int().min(-1_000_000).max(1_000_000).default(0),
    isActive: z.boolean().default(true),
  })
  .strict();
/** Body of `PATCH /v1/admin/entities/:entityId/suggestions/:id?orgId=`: at least one field. */
export const SuggestionUpdateSchema = changeSchema(SuggestionCreateSchema)
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must change at least one field' });

const columns = ['id', 'entity_id', 'org_id', 'text', 'sort_order', 'is_active', 'updated_at'] as const;
type Row = {
  id: number;
  entity_id: string;
  org_id: string;
  text: string;
  sort_order: number;
  is_active: boolean;
  updated_at: Date;
};
const toSuggestion = (row: Row) => ({
  id: row.id,
  entityId: row.entity_id,
  orgId: row.org_id,
  text: row.text,
  sortOrder: row.sort_order,
  isActive: row.is_active,
  updatedAt: iso(row.updated_at),
});

/**
 * `GET /v1/suggestions`: the caller's tenant's active quick suggestions (seed 003 §6.1), or,
 * when it has none, one training phrase of each active intent.
 */
export function registerSuggestions(api: FastifyInstance, deps: AdminDeps): void {
  const { db, tenantOf } = deps;
  api.get('/v1/suggestions', HIDDEN, async (request, reply) => {
    const query = TenantQuerySchema.strict().safeParse(request.query ?? {});
    if (!query.success) return reply.code(400).send(validationError(query.error.issues));
    const tenant = resolveTenant(request, reply, query.data, tenantOf);
    if (!tenant) return reply;
    if (!db) return noDatabase(reply, 'Suggestions');
    const { source, texts } = await quickSuggestions(db, tenant, MAX_SUGGESTIONS);
    return { source, suggestions: texts.map((text) => ({ text })) };
  });
}

/** Admin CRUD of a tenant's quick suggestions under `/v1/admin/entities/:entityId/suggestions?orgId=`. */
export function registerAdminSuggestions(admin: FastifyInstance, deps: AdminDeps): void {
  const { db } = deps;
  const base = '/v1/admin/entities/:entityId/suggestions';
  const notFound = (id: number) =>
    httpError('NOT_FOUND', `No suggestion ${id} for this entity and organisation.`, { field: 'id' });

  admin.get(base, HIDDEN, async (request, reply) => {
    const params = EntityParamsSchema.safeParse(request.params);
    if (!params.success) return reply.code(400).send(validationError(params.error.issues));
    const org = OrgQuerySchema.safeParse(request.query ?? {});
    if (!org.success) return reply.code(400).send(validationError(org.error.issues));
    if (!db) return noDatabase(reply, 'Suggestions');
    const rows = await db
      .selectFrom('quick_suggestions')
      .select(columns)
      .where('entity_id', '=', params.data.entityId)
      .where('org_id', '=', org.data.orgId)
      .orderBy('sort_order')
      .orderBy('id')
      .execute();
    return { suggestions: rows.map(toSuggestion) };
  });

  admin.post(base, HIDDEN, async (request, reply) => {
    const params = EntityParamsSchema.safeParse(request.params);
    if (!params.success) return reply.code(400).send(validationError(params.error.issues));
    const org = OrgQuerySchema.safeParse(request.query ?? {});
    if (!org.success) return reply.code(400).send(validationError(org.error.issues));
    const body = SuggestionCreateSchema.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send(validationError(body.error.issues));
    if (!db) return noDatabase(reply, 'Suggestions');
    const row = await db
      .insertInto('quick_suggestions')
      .values({
        entity_id: params.data.entityId,
        org_id: org.data.orgId,
        text: body.data.text,
        sort_order: body.data.sortOrder,
        is_active: body.data.isActive,
      })
      .returning(columns)
      .executeTakeFirstOrThrow();
    return reply.code(201).send(toSuggestion(row));
  });

  admin.patch(`${base}/:id`, HIDDEN, async (request, reply) => {
    const params = SuggestionParamsSchema.safeParse(request.params);
    if (!params.success) return reply.code(400).send(validationError(params.error.issues));
    const org = OrgQuerySchema.safeParse(request.query ?? {});
    if (!org.success) return reply.code(400).send(validationError(org.error.issues));
    const body = SuggestionUpdateSchema.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send(validationError(body.error.issues));
    if (!db) return noDatabase(reply, 'Suggestions');
    const { text, sortOrder, isActive } = body.data;
    const row = await db
      .updateTable('quick_suggestions')
      .set({
        ...(text !== undefined ? { text } : {}),
        ...(sortOrder !== undefined ? { sort_order: sortOrder } : {}),
        ...(isActive !== undefined ? { is_active: isActive } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', params.data.id)
      .where('entity_id', '=', params.data.entityId)
      .where('org_id', '=', org.data.orgId)
      .returning(columns)
      .executeTakeFirst();
    return row ? toSuggestion(row) : reply.code(404).send(notFound(params.data.id));
  });

  admin.delete(`${base}/:id`, HIDDEN, async (request, reply) => {
    const params = SuggestionParamsSchema.safeParse(request.params);
    if (!params.success) return reply.code(400).send(validationError(params.error.issues));
    const org = OrgQuerySchema.safeParse(request.query ?? {});
    if (!org.success) return reply.code(400).send(validationError(org.error.issues));
    if (!db) return noDatabase(reply, 'Suggestions');
    const deleted = await db
      .deleteFrom('quick_suggestions')
      .where('id', '=', params.data.id)
      .where('entity_id', '=', params.data.entityId)
      .where('org_id', '=', org.data.orgId)
      .executeTakeFirst();
    if (deleted.numDeletedRows === 0n) return reply.code(404).send(notFound(params.data.id));
    return reply.code(204).send();
  });
}
