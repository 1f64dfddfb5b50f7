import {
  IntentInputSchema,
  SuggestedIntentApproveSchema,
  SuggestedIntentListQuerySchema,
  SuggestedIntentParamsSchema,
} from '@munim/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError, validationError } from '../http-errors.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { checkTools, insertIntent, intentsChangedPublisher, toIntent } from './intent-store.ts';
import { intentConflict, intentNotFound, noIntents } from './intents.ts';
import { iso } from './shared.ts';

/** The approved suggestion's intent id or name is taken; the approval is rolled back. */
class IntentConflict extends Error {
  override name = 'IntentConflict';
}

const decided = (message: string) => new HttpRefusal(409, httpError('CONFLICT', message));

/**
 * Review of `suggested_intents` (the intents the logger proposes from repeated questions): list them, approve one into an intent (announced
 * so the routers reload at once) or reject it.
 */
export const suggestedIntentRoutes: FastifyPluginAsync<GatewayContext> = async (app, ctx) => {
  const { db } = ctx;
  const admin = app.withTypeProvider<ZodTypeProvider>();
  const announce = intentsChangedPublisher(ctx);
  const one = { ...HIDDEN, params: SuggestedIntentParamsSchema };

  admin.get(
    '/v1/admin/suggested-intents',
    { schema: { ...HIDDEN, querystring: SuggestedIntentListQuerySchema } },
    async (request) => {
      if (!db) throw noIntents();
      const rows = await db
        .selectFrom('suggested_intents')
        .selectAll()
        .where('status', '=', request.query.status)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return {
        suggestedIntents: rows.map((r) => ({
          id: r.id,
          name: r.name,
          trainingPhrases: r.training_phrases,
          tools: r.tools,
          status: r.status,
          createdAt: iso(r.created_at),
        })),
      };
    },
  );

  admin.post(
    '/v1/admin/suggested-intents/:id/approve',
    { schema: { ...one, body: SuggestedIntentApproveSchema } },
    async (request, reply) => {
      if (!db) throw noIntents();
      const { id } = request.params;
      const suggestion = await db
        .selectFrom('suggested_intents')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      if (!suggestion) throw intentNotFound(id);
      if (suggestion.status !== 'pending')
        throw decided(`Suggested intent ${id} is ${suggestion.status} already.`);
      // The intent is the suggestion refined by the body, known only once the suggestion is read.
      const merged = IntentInputSchema.safeParse({
        name: suggestion.name,
        trainingPhrases: suggestion.training_phrases,
        resolutionFlow: suggestion.tools.map((tool) => ({ tool })),
        isActive: true,
        ...request.body,
      });
      if (!merged.success) throw new HttpRefusal(400, validationError(merged.error.issues));
      await checkTools(ctx, db, merged.data.resolutionFlow);
      const created = await db
        .transaction()
        .execute(async (trx) => {
          const claimed = await trx
            .updateTable('suggested_intents')
            .set({ status: 'approved' })
            .where('id', '=', id)
            .where('status', '=', 'pending')
            .executeTakeFirst();
          if (claimed.numUpdatedRows === 0n) return 'taken' as const;
          const row = await insertIntent(trx, merged.data);
          if (!row) throw new IntentConflict();
          return row;
        })
        .catch((error: unknown) => {
          if (error instanceof IntentConflict) throw intentConflict();
          throw error;
        });
      if (created === 'taken') throw decided(`Suggested intent ${id} was decided already.`);
      announce({ reason: 'approved', intentIds: [created.id] });
      return reply.code(201).send(toIntent(created));
    },
  );

  admin.post('/v1/admin/suggested-intents/:id/reject', { schema: one }, async (request) => {
    if (!db) throw noIntents();
    const { id } = request.params;
    const result = await db
      .updateTable('suggested_intents')
      .set({ status: 'rejected' })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) throw intentNotFound(id);
    return { id, status: 'rejected' };
  });
};
