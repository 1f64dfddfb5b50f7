import {
  SuggestionCreateSchema,
  SuggestionEntityParamsSchema,
  SuggestionOrgQuerySchema,
  SuggestionParamsSchema,
  SuggestionUpdateSchema,
} from '@munim/contracts';
import type { FastifyPluginAsync } from 'fastify';
import { sql } from 'kysely';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError, noDatabase } from '../http-errors.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { iso } from './shared.ts';

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

const noSuggestions = () => noDatabase('Suggestions');
const notFound = (id: number) =>
  new HttpRefusal(
    404,
    httpError('NOT_FOUND', `No suggestion ${id} for this entity and organisation.`, { field: 'id' }),
  );

/** Admin CRUD of a tenant's quick suggestions under `/v1/admin/entities/:entityId/suggestions?orgId=`. */
export const adminSuggestionRoutes: FastifyPluginAsync<Pick<GatewayContext, 'db'>> = async (app, { db }) => {
  const admin = app.withTypeProvider<ZodTypeProvider>();
  const base = '/v1/admin/entities/:entityId/suggestions';
  const list = { ...HIDDEN, params: SuggestionEntityParamsSchema, querystring: SuggestionOrgQuerySchema };
  const one = { ...HIDDEN, params: SuggestionParamsSchema, querystring: SuggestionOrgQuerySchema };

  admin.get(base, { schema: list }, async (request) => {
    if (!db) throw noSuggestions();
    const rows = await db
      .selectFrom('quick_suggestions')
      .select(columns)
      .where('entity_id', '=', request.params.entityId)
      .where('org_id', '=', request.query.orgId)
      .orderBy('sort_order')
      .orderBy('id')
      .execute();
    return { suggestions: rows.map(toSuggestion) };
  });

  admin.post(base, { schema: { ...list, body: SuggestionCreateSchema } }, async (request, reply) => {
    if (!db) throw noSuggestions();
    const { body } = request;
    const row = await db
      .insertInto('quick_suggestions')
      .values({
        entity_id: request.params.entityId,
        org_id: request.query.orgId,
        text: body.text,
        sort_order: body.sortOrder,
        is_active: body.isActive,
      })
      .returning(columns)
      .executeTakeFirstOrThrow();
    return reply.code(201).send(toSuggestion(row));
  });

  admin.patch(`${base}/:id`, { schema: { ...one, body: SuggestionUpdateSchema } }, async (request) => {
    if (!db) throw noSuggestions();
    const { params } = request;
    const { text, sortOrder, isActive } = request.body;
    const row = await db
      .updateTable('quick_suggestions')
      .set({
        ...(text !== undefined ? { text } : {}),
        ...(sortOrder !== undefined ? { sort_order: sortOrder } : {}),
        ...(isActive !== undefined ? { is_active: isActive } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', params.id)
      .where('entity_id', '=', params.entityId)
      .where('org_id', '=', request.query.orgId)
      .returning(columns)
      .executeTakeFirst();
    if (!row) throw notFound(params.id);
    return toSuggestion(row);
  });

  admin.delete(`${base}/:id`, { schema: one }, async (request, reply) => {
    if (!db) throw noSuggestions();
    const { params } = request;
    const deleted = await db
      .deleteFrom('quick_suggestions')
      .where('id', '=', params.id)
      .where('entity_id', '=', params.entityId)
      .where('org_id', '=', request.query.orgId)
      .executeTakeFirst();
    if (deleted.numDeletedRows === 0n) throw notFound(params.id);
    return reply.code(204).send();
  });
};
