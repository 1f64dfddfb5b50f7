import { randomUUID } from 'node:crypto';
import { type IntentsChanged, SYSTEM_SCOPE } from '@munim/contracts';
import type { Database } from '@munim/db';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { type Kysely, sql } from 'kysely';
import { z } from 'zod';
import { httpError, validationError } from '../http-errors.ts';
import { type AdminDeps, changeSchema, HIDDEN, iso, noDatabase } from './shared.ts';

const IntentIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]{0,99}$/, 'must be 1–100 lowercase letters, digits, _ . or -');

/** One step of an intent's resolution flow: a tool of the live registry and its arguments. */
export const FlowStepSchema = z
  .object({
    tool: z.string().min(1).max(128),
    args: z.record(z.string(), z.unknown()).default({}),
    description: z.string().max(300).optional(),
    purpose: z.string().max(300).optional(),
  })
  .strict();

/** An intent as an administrator (or the LLM) writes it (seed 003 §3.2). */
export const IntentInputSchema = z
  .object({
    id: IntentIdSchema.optional(),
    name: z.string().trim().min(1).max(100),
    moduleId: z.string().min(1).max(100).nullable().optional(),
    description: z.string().max(2000).nullable().optional(),
    trainingPhrases: z.array(z.string().trim().min(2).max(300)).min(1).max(100),
    entities: z
      .array(
        z
          .object({
            name: z.string().min(1).max(100),
            type: z.string().min(1).max(50),
            required: z.boolean().optional(),
          })
          .strict(),
      )
      .max(20)
      .default([]),
    resolutionFlow: z.array(FlowStepSchema).min(1).max(10),
    responseFormat: z.string().min(1).max(40).default('table'),
    isActive: z.boolean().default(false),
  })
  .strict();
export type IntentInput = z.infer<typeof IntentInputSchema>;

/** A change to an intent: any field but its id, at least one; what it leaves out stays as it is. */
export const IntentUpdateSchema = changeSchema(IntentInputSchema.omit({ id: true }))
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must change at least one field' });

const IntentParamsSchema = z.object({ id: IntentIdSchema }).strict();
const SuggestedParamsSchema = z.object({ id: z.coerce.number().int().positive() }).strict();
const ListQuerySchema = z.object({ active: z.enum(['true', 'false']).optional() }).strict();

type IntentRow = {
  id: string;
  name: string;
  module_id: string | null;
  description: string | null;
  training_phrases: string[];
  entities: { name: string; type: string; required?: boolean }[];
  resolution_flow: unknown[];
  response_format: string;
  is_active: boolean;
  updated_at: Date;
};
const intentColumns = [
  'id',
  'name',
  'module_id',
  'description',
  'training_phrases',
  'entities',
  'resolution_flow',
  'response_format',
  'is_active',
  'updated_at',
] as const;
const toIntent = (row: IntentRow) => ({
  id: row.id,
  name: row.name,
  moduleId: row.module_id,
  description: row.description,
  trainingPhrases: row.training_phrases,
  entities: row.entities,
  resolutionFlow: row.resolution_flow,
  responseFormat: row.response_format,
  isActive: row.is_active,
  updatedAt: iso(row.updated_at),
});

/** An intent's id from its name: `Overdue Invoices` → `overdue_invoices`. */
export function slugOf(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 80);
  return slug || `intent_${randomUUID().slice(0, 8)}`;
}

/** Every tool of the live registry and whether it writes, or null when the registry cannot be read. */
export async function registryKinds(
  deps: Pick<AdminDeps, 'bus' | 'config'>,
  db: Kysely<Database>,
): Promise<Map<string, boolean> | null> {
  const rows = await db.selectFrom('tool_registry').select(['tool_name', 'is_write']).execute();
  if (rows.length > 0) return new Map(rows.map((r) => [r.tool_name, r.is_write]));
  // The executor fills the table when it connects; before that, ask it directly.
  try {
    const list = await deps.bus.request(
      'toolsList',
      SYSTEM_SCOPE,
      {},
      { timeoutMs: deps.config.REQUEST_TIMEOUT_MS },
    );
    return new Map(list.tools.map((t) => [t.name, t.isWrite]));
  } catch {
    return null;
  }
}

/**
 * What is wrong with an intent's steps against the live registry: tools it does not know, and
 * writes — an intent runs on the fast path without confirmation, so it holds reads only (DESIGN
 * §3.5). Null when the registry cannot be read.
 */
export async function flowProblems(
  deps: Pick<AdminDeps, 'bus' | 'config'>,
  db: Kysely<Database>,
  flow: readonly { tool: string }[],
  field = 'resolutionFlow',
): Promise<{ field: string; message: string }[] | null> {
  const kinds = await registryKinds(deps, db);
  if (kinds === null) return null;
  return flow.flatMap((step, index) => {
    const writes = kinds.get(step.tool);
    if (writes === undefined)
      return [{ field: `${field}.${index}.tool`, message: `${step.tool} is not a known tool` }];
    if (writes) {
      return [
        {
          field: `${field}.${index}.tool`,
          message: `${step.tool} changes the books; intents run without confirmation, so they hold read tools only`,
        },
      ];
    }
    return [];
  });
}

/** Problems of an intent against the live registry as a 400 body, null when it is valid; 503 when unknown. */
export async function checkTools(
  deps: Pick<AdminDeps, 'bus' | 'config'>,
  db: Kysely<Database>,
  flow: readonly { tool: string }[],
  reply: FastifyReply,
  field = 'resolutionFlow',
): Promise<boolean> {
  const issues = await flowProblems(deps, db, flow, field);
  if (issues === null) {
    void reply
      .code(503)
      .send(
        httpError('SERVICE_UNAVAILABLE', 'The tool registry cannot be read right now; try again shortly.'),
      );
    return false;
  }
  if (issues.length === 0) return true;
  void reply.code(400).send(
    httpError('BAD_REQUEST', `${issues[0]?.field}: ${issues[0]?.message}`, {
      field: issues[0]?.field ?? field,
      issues,
    }),
  );
  return false;
}

/** Inserts a validated intent; false when its id or name is taken. */
export async function insertIntent(db: Kysely<Database>, intent: IntentInput): Promise<IntentRow | null> {
  const row = await db
    .insertInto('intents')
    .values({
      id: intent.id ?? slugOf(intent.name),
      name: intent.name,
      module_id: intent.moduleId ?? null,
      description: intent.description ?? null,
      training_phrases: JSON.stringify(intent.trainingPhrases),
      entities: JSON.stringify(intent.entities),
      resolution_flow: JSON.stringify(intent.resolutionFlow),
      response_format: intent.responseFormat,
      is_active: intent.isActive,
    })
    .onConflict((oc) => oc.doNothing())
    .returning(intentColumns)
    .executeTakeFirst();
  return (row as IntentRow | undefined) ?? null;
}

/** Tells every router instance to reload its intents now (core NATS, fire and forget). */
export function intentsChangedPublisher(deps: Pick<AdminDeps, 'bus' | 'log'>) {
  return (data: IntentsChanged) => {
    deps.bus.broadcast('intentsChanged', data);
    deps.log.info({ ...data }, 'intents changed');
  };
}

const conflict = (reply: FastifyReply) =>
  reply
    .code(409)
    .send(httpError('CONFLICT', 'An intent with this id or name exists already.', { field: 'name' }));

/**
 * Intent authoring (seed 003 §8.4, §10): list, create, edit, activate and deactivate intents, and
 * review and approve `suggested_intents`. Every change is announced so the routers reload at once.
 */
export function registerIntents(admin: FastifyInstance, deps: AdminDeps): void {
  const { db } = deps;
  const announce = intentsChangedPublisher(deps);
  const notFound = (reply: FastifyReply, id: string | number) =>
    reply.code(404).send(httpError('NOT_FOUND', `No intent ${id}.`, { field: 'id' }));

  admin.get('/v1/admin/intents', HIDDEN, async (request, reply) => {
    const query = ListQuerySchema.safeParse(request.query ?? {});
    if (!query.success) return reply.code(400).send(validationError(query.error.issues));
    if (!db) return noDatabase(reply, 'Intents');
    let select = db.selectFrom('intents').select(intentColumns).orderBy('name');
    if (query.data.active) select = select.where('is_active', '=', query.data.active === 'true');
    return { intents: (await select.execute()).map(toIntent) };
  });

  admin.post('/v1/admin/intents', HIDDEN, async (request, reply) => {
    const body = IntentInputSchema.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send(validationError(body.error.issues));
    if (!db) return noDatabase(reply, 'Intents');
    if (!(await checkTools(deps, db, body.data.resolutionFlow, reply))) return reply;
    const row = await insertIntent(db, body.data);
    if (!row) return conflict(reply);
    announce({ reason: 'created', intentIds: [row.id] });
    return reply.code(201).send(toIntent(row));
  });

  admin.patch('/v1/admin/intents/:id', HIDDEN, async (request, reply) => {
    const params = IntentParamsSchema.safeParse(request.params);
    if (!params.success) return reply.code(400).send(validationError(params.error.issues));
    const body = IntentUpdateSchema.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send(validationError(body.error.issues));
    if (!db) return noDatabase(reply, 'Intents');
    const change = body.data;
    if (change.resolutionFlow && !(await checkTools(deps, db, change.resolutionFlow, reply))) return reply;
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
      .where('id', '=', params.data.id)
      .returning(intentColumns)
      .executeTakeFirst()
      .catch((error: unknown) => {
        if ((error as { code?: string }).code === '23505') return 'conflict' as const;
        throw error;
      });
    if (row === 'conflict') return conflict(reply);
    if (!row) return notFound(reply, params.data.id);
    announce({ reason: 'updated', intentIds: [row.id] });
    return toIntent(row as IntentRow);
  });

  for (const [action, active] of [
    ['activate', true],
    ['deactivate', false],
  ] as const) {
    admin.post(`/v1/admin/intents/:id/${action}`, HIDDEN, async (request, reply) => {
      const params = IntentParamsSchema.safeParse(request.params);
      if (!params.success) return reply.code(400).send(validationError(params.error.issues));
      if (!db) return noDatabase(reply, 'Intents');
      const row = await db
        .updateTable('intents')
        .set({ is_active: active, updated_at: sql<Date>`now()` })
        .where('id', '=', params.data.id)
        .returning(intentColumns)
        .executeTakeFirst();
      if (!row) return notFound(reply, params.data.id);
      announce({ reason: `${action}d`, intentIds: [row.id] });
      return toIntent(row as IntentRow);
    });
  }

  admin.get('/v1/admin/suggested-intents', HIDDEN, async (request, reply) => {
    const query = z
      .object({ status: z.enum(['pending', 'approved', 'rejected']).default('pending') })
      .strict()
      .safeParse(request.query ?? {});
    if (!query.success) return reply.code(400).send(validationError(query.error.issues));
    if (!db) return noDatabase(reply, 'Intents');
    const rows = await db
      .selectFrom('suggested_intents')
      .selectAll()
      .where('status', '=', query.data.status)
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
  });

  /** Approving turns a suggestion into an intent; the body may refine it (an active intent by default). */
  const ApproveSchema = changeSchema(IntentInputSchema).strict();
  admin.post('/v1/admin/suggested-intents/:id/approve', HIDDEN, async (request, reply) => {
    const params = SuggestedParamsSchema.safeParse(request.params);
    if (!params.success) return reply.code(400).send(validationError(params.error.issues));
    const refine = ApproveSchema.safeParse(request.body ?? {});
    if (!refine.success) return reply.code(400).send(validationError(refine.error.issues));
    if (!db) return noDatabase(reply, 'Intents');
    const suggestion = await db
      .selectFrom('suggested_intents')
      .selectAll()
      .where('id', '=', params.data.id)
      .executeTakeFirst();
    if (!suggestion) return notFound(reply, params.data.id);
    if (suggestion.status !== 'pending') {
      return reply
        .code(409)
        .send(httpError('CONFLICT', `Suggested intent ${params.data.id} is ${suggestion.status} already.`));
    }
    const merged = IntentInputSchema.safeParse({
      name: suggestion.name,
      trainingPhrases: suggestion.training_phrases,
      resolutionFlow: suggestion.tools.map((tool) => ({ tool })),
      isActive: true,
      ...refine.data,
    });
    if (!merged.success) return reply.code(400).send(validationError(merged.error.issues));
    if (!(await checkTools(deps, db, merged.data.resolutionFlow, reply))) return reply;
    const created = await db
      .transaction()
      .execute(async (trx) => {
        const claimed = await trx
          .updateTable('suggested_intents')
          .set({ status: 'approved' })
          .where('id', '=', params.data.id)
          .where('status', '=', 'pending')
          .executeTakeFirst();
        if (claimed.numUpdatedRows === 0n) return 'taken' as const;
        const row = await insertIntent(trx, merged.data);
        if (!row) throw new IntentConflict();
        return row;
      })
      .catch((error: unknown) => {
        if (error instanceof IntentConflict) return null;
        throw error;
      });
    if (created === 'taken') {
      return reply
        .code(409)
        .send(httpError('CONFLICT', `Suggested intent ${params.data.id} was decided already.`));
    }
    if (!created) return conflict(reply);
    announce({ reason: 'approved', intentIds: [created.id] });
    return reply.code(201).send(toIntent(created));
  });

  admin.post('/v1/admin/suggested-intents/:id/reject', HIDDEN, async (request, reply) => {
    const params = SuggestedParamsSchema.safeParse(request.params);
    if (!params.success) return reply.code(400).send(validationError(params.error.issues));
    if (!db) return noDatabase(reply, 'Intents');
    const result = await db
      .updateTable('suggested_intents')
      .set({ status: 'rejected' })
      .where('id', '=', params.data.id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return notFound(reply, params.data.id);
    return { id: params.data.id, status: 'rejected' };
  });
}

/** The approved suggestion's intent id or name is taken; the approval is rolled back. */
class IntentConflict extends Error {
  override name = 'IntentConflict';
}
