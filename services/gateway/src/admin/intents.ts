import {
  IntentInputSchema,
  IntentListQuerySchema,
  IntentParamsSchema,
  IntentUpdateSchema,
} from '@munim/contracts';
import type { FastifyPluginAsync } from 'fastify';
import { sql } from 'kysely';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError, noDatabase } from '../http-errors.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import {
  checkTools,
  type IntentRow,
  insertIntent,
  intentColumns,
  intentsChangedPublisher,
  toIntent,
} from './intent-store.ts';

/** The 503 of the intent endpoints without a database. */
export const noIntents = () => noDatabase('Intents');

/** 409: another intent has this id or name. */
export const intentConflict = () =>
  new HttpRefusal(
    409,
    httpError('CONFLICT', 'An intent with this id or name exists already.', { field: 'name' }),
  );

/** 404 for an unknown intent or suggested intent. */
export const intentNotFound = (id: string | number) =>
  new HttpRefusal(404, httpError('NOT_FOUND', `No intent ${id}.`, { field: 'id' }));

/**
 * Intent authoring: list, create, edit, activate and deactivate intents.
 * Every change is announced so the routers reload at once.
 */
export const intentRoutes: FastifyPluginAsync<GatewayContext> = async (app, ctx) => {
  const { db } = ctx;
  const admin = app.withTypeProvider<ZodTypeProvider>();
  const announce = intentsChangedPublisher(ctx);
  const one = { ...HIDDEN, params: IntentParamsSchema };

  admin.get(
    '/v1/admin/intents',
    { schema: { ...HIDDEN, querystring: IntentListQuerySchema } },
    async (request) => {
      if (!db) throw noIntents();
      const { active } = request.query;
      let select = db.selectFrom('intents').select(intentColumns).orderBy('name');
      if (active) select = select.where('is_active', '=', active === 'true');
      return { intents: (await select.execute()).map(toIntent) };
    },
  );

  admin.post(
    '/v1/admin/intents',
    { schema: { ...HIDDEN, body: IntentInputSchema } },
    async (request, reply) => {
      if (!db) throw noIntents();
      await checkTools(ctx, db, request.body.resolutionFlow);
      const row = await insertIntent(db, request.body);
      if (!row) throw intentConflict();
      announce({ reason: 'created', intentIds: [row.id] });
      return reply.code(201).send(toIntent(row));
    },
  );

  admin.patch('/v1/admin/intents/:id', { schema: { ...one, body: IntentUpdateSchema } }, async (request) => {
    if (!db) throw noIntents();
    const { id } = request.params;
    const change = request.body;
    if (change.resolutionFlow) await checkTools(ctx, db, change.resolutionFlow);
    const row = await db
      .updateTable('intents')
      .set({
        ...(change.name !== undefined ? { name: change.name } : {}),
        ...(change.moduleId !== undefined ? { module_id: change.moduleId } : {}),
        ...(change.description !== undefined ? { description: change.description } : {}),
        ...(change.trainingPhrases ? { training_phrases: JSON.stringify(change.trainingPhrases) } : {}),
        ...(change.entities ? { entities: JSON.stringify(change.entities) } : {}),
        ...(change.resolutionFlow ? { resolution_flow: JSON.stringify(change.resolutionFlow) } : {}),
        ...(change.responseFormat !== undefined ? { response_format: change.responseFormat } : {}),
        ...(change.isActive !== undefined ? { is_active: change.isActive } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .returning(intentColumns)
      .executeTakeFirst()
      .catch((error: unknown) => {
        if ((error as { code?: string }).code === '23505') throw intentConflict();
        throw error;
      });
    if (!row) throw intentNotFound(id);
    announce({ reason: 'updated', intentIds: [row.id] });
    return toIntent(row as IntentRow);
  });

  for (const [action, active] of [
    ['activate', true],
    ['deactivate', false],
  ] as const) {
    admin.post(`/v1/admin/intents/:id/${action}`, { schema: one }, async (request) => {
      if (!db) throw noIntents();
      const { id } = request.params;
      const row = await db
        .updateTable('intents')
        .set({ is_active: active, updated_at: sql<Date>`now()` })
        .where('id', '=', id)
        .returning(intentColumns)
        .executeTakeFirst();
      if (!row) throw intentNotFound(id);
      announce({ reason: `${action}d`, intentIds: [row.id] });
      return toIntent(row as IntentRow);
    });
  }
};
