import type { LlmConfigChanged } from '@munim/contracts';
import { type Database, encryptSecret, parseSecretKey } from '@munim/db';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { type Kysely, sql } from 'kysely';
import { z } from 'zod';
import { httpError, validationError } from '../http-errors.ts';
import { type AdminDeps, changeSchema, HIDDEN, iso, noDatabase } from './shared.ts';

/**
 * Why a chat endpoint cannot serve the OpenAI chat-completions API (seed 003 §1.5), or null when it can:
 * not http(s), a Supabase URL, or an Anthropic-style `/v1/messages` endpoint.
 */
export function llmEndpointProblem(endpoint: string): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'must be an http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL';
  if (/(^|\.)supabase\.(co|in|net)$/i.test(url.hostname) || /\/functions\/v1(\/|$)/.test(url.pathname)) {
    return 'is a Supabase URL, not an OpenAI-compatible chat endpoint';
  }
  if (/\/messages\/?$/i.test(url.pathname)) {
    return 'is an Anthropic-style /v1/messages endpoint; an OpenAI-compatible chat-completions endpoint is needed';
  }
  return null;
}

const EndpointSchema = z
  .string()
  .trim()
  .max(2000)
  .superRefine((value, ctx) => {
    const problem = llmEndpointProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A model configuration as an administrator writes it (seed 003 §1.4); the key is write-only. */
export const LlmConfigInputSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    provider: z.string().trim().min(1).max(100),
    model: z.string().trim().min(1).max(200),
    endpoint: EndpointSchema,
    apiStyle: z.enum(['openai', 'azure']).default('openai'),
    apiKey: z.string().min(1).max(4000).optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    maxTokens: z.number().int().positive().max(1_000_000).nullable().optional(),
    isDefault: z.boolean().default(false),
  })
  .strict();

/**
 * A change to a configuration: any field, at least one; what it leaves out stays as it is (a change
 * of the model alone keeps an Azure configuration Azure); `apiKey: null` removes the key.
 */
export const LlmConfigUpdateSchema = changeSchema(
  LlmConfigInputSchema.omit({ apiKey: true, isDefault: true }),
)
  .extend({ apiKey: z.string().min(1).max(4000).nullable().optional() })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'must change at least one field' });

const ParamsSchema = z.object({ id: z.coerce.number().int().positive() }).strict();

const columns = [
  'id',
  'name',
  'provider',
  'model',
  'endpoint',
  'api_style',
  'api_key_encrypted',
  'temperature',
  'max_tokens',
  'is_default',
  'total_input_tokens',
  'total_output_tokens',
  'total_requests',
  'created_at',
  'updated_at',
] as const;

type Row = {
  id: number;
  name: string;
  provider: string;
  model: string;
  endpoint: string;
  api_style: 'openai' | 'azure';
  api_key_encrypted: string | null;
  temperature: number | null;
  max_tokens: number | null;
  is_default: boolean;
  total_input_tokens: number;
  total_output_tokens: number;
  total_requests: number;
  created_at: Date;
  updated_at: Date;
};

/** The public view of a row: never the key, only whether one is stored. */
const toConfig = (row: Row) => ({
  id: Number(row.id),
  name: row.name,
  provider: row.provider,
  model: row.model,
  endpoint: row.endpoint,
  apiStyle: row.api_style,
  hasApiKey: row.api_key_encrypted !== null,
  temperature: row.temperature,
  maxTokens: row.max_tokens,
  isDefault: row.is_default,
  usage: {
    inputTokens: Number(row.total_input_tokens),
    outputTokens: Number(row.total_output_tokens),
    requests: Number(row.total_requests),
  },
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';

/** Makes one configuration the default, clearing the flag elsewhere in the same transaction. */
async function makeDefault(db: Kysely<Database>, id: number): Promise<Row | undefined> {
  return db.transaction().execute(async (trx) => {
    const target = await trx
      .selectFrom('llm_configs')
      .select('id')
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    // An unknown id must leave the current default in place.
    if (!target) return undefined;
    await trx
      .updateTable('llm_configs')
      .set({ is_default: false, updated_at: sql<Date>`now()` })
      .where('is_default', '=', true)
      .where('id', '!=', id)
      .execute();
    const row = await trx
      .updateTable('llm_configs')
      .set({ is_default: true, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .returning(columns)
      .executeTakeFirst();
    return row as Row | undefined;
  });
}

/**
 * Model configurations (seed 003 §1.2–1.5): list, create, update and set the default. API keys are
 * stored AES-256-GCM encrypted with `LLM_CONFIG_KEY` and never returned; every change is announced
 * with `llmConfigChanged` so the agents swap models without a restart.
 */
export function registerLlmConfigs(admin: FastifyInstance, deps: AdminDeps): void {
  const { db } = deps;
  const secretKey = deps.config.LLM_CONFIG_KEY ? parseSecretKey(deps.config.LLM_CONFIG_KEY) : null;
  const announce = (data: LlmConfigChanged) => {
    deps.bus.broadcast('llmConfigChanged', data);
    deps.log.info({ ...data }, 'model configuration changed');
  };
  const notFound = (reply: FastifyReply, id: number) =>
    reply.code(404).send(httpError('NOT_FOUND', `No model configuration ${id}.`, { field: 'id' }));
  const conflict = (reply: FastifyReply) =>
    reply
      .code(409)
      .send(httpError('CONFLICT', 'A model configuration with this name exists already.', { field: 'name' }));
  const noKey = (reply: FastifyReply) =>
    reply.code(503).send(
      httpError('SERVICE_UNAVAILABLE', 'API keys cannot be stored: LLM_CONFIG_KEY is not configured.', {
        field: 'apiKey',
      }),
    );

  admin.get('/v1/admin/llm-configs', HIDDEN, async (_request, reply) => {
    if (!db) return noDatabase(reply, 'Model configurations');
    const rows = await db.selectFrom('llm_configs').select(columns).orderBy('name').execute();
    return { configs: rows.map((row) => toConfig(row as Row)) };
  });

  admin.post('/v1/admin/llm-configs', HIDDEN, async (request, reply) => {
    const body = LlmConfigInputSchema.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send(validationError(body.error.issues));
    if (!db) return noDatabase(reply, 'Model configurations');
    const input = body.data;
    if (input.apiKey !== undefined && !secretKey) return noKey(reply);
    const inserted = await db
      .insertInto('llm_configs')
      .values({
        name: input.name,
        provider: input.provider,
        model: input.model,
        endpoint: input.endpoint,
        api_style: input.apiStyle,
        api_key_encrypted:
          input.apiKey !== undefined && secretKey ? encryptSecret(secretKey, input.apiKey) : null,
        temperature: input.temperature ?? null,
        max_tokens: input.maxTokens ?? null,
      })
      .onConflict((oc) => oc.column('name').doNothing())
      .returning(columns)
      .executeTakeFirst();
    if (!inserted) return conflict(reply);
    // A concurrent default change wins the partial unique index: the row stays, not as the default.
    const row = input.isDefault
      ? ((await makeDefault(db, Number(inserted.id)).catch((error: unknown) => {
          if (isUniqueViolation(error)) return undefined;
          throw error;
        })) ?? (inserted as Row))
      : (inserted as Row);
    announce({ reason: 'created', configId: Number(row.id) });
    return reply.code(201).send(toConfig(row));
  });

  admin.patch('/v1/admin/llm-configs/:id', HIDDEN, async (request, reply) => {
    const params = ParamsSchema.safeParse(request.params);
    if (!params.success) return reply.code(400).send(validationError(params.error.issues));
    const body = LlmConfigUpdateSchema.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send(validationError(body.error.issues));
    if (!db) return noDatabase(reply, 'Model configurations');
    const change = body.data;
    if (typeof change.apiKey === 'string' && !secretKey) return noKey(reply);
    const row = await db
      .updateTable('llm_configs')
      .set({
        ...(change.name !== undefined ? { name: change.name } : {}),
        ...(change.provider !== undefined ? { provider: change.provider } : {}),
        ...(change.model !== undefined ? { model: change.model } : {}),
        ...(change.endpoint !== undefined ? { endpoint: change.endpoint } : {}),
        ...(change.apiStyle !== undefined ? { api_style: change.apiStyle } : {}),
        ...(change.apiKey === null ? { api_key_encrypted: null } : {}),
        ...(typeof change.apiKey === 'string' && secretKey
          ? { api_key_encrypted: encryptSecret(secretKey, change.apiKey) }
          : {}),
        ...(change.temperature !== undefined ? { temperature: change.temperature } : {}),
        ...(change.maxTokens !== undefined ? { max_tokens: change.maxTokens } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', params.data.id)
      .returning(columns)
      .executeTakeFirst()
      .catch((error: unknown) => {
        if (isUniqueViolation(error)) return 'conflict' as const;
        throw error;
      });
    if (row === 'conflict') return conflict(reply);
    if (!row) return notFound(reply, params.data.id);
    announce({ reason: 'updated', configId: params.data.id });
    return toConfig(row as Row);
  });

  admin.post('/v1/admin/llm-configs/:id/default', HIDDEN, async (request, reply) => {
    const params = ParamsSchema.safeParse(request.params);
    if (!params.success) return reply.code(400).send(validationError(params.error.issues));
    if (!db) return noDatabase(reply, 'Model configurations');
    const row = await makeDefault(db, params.data.id).catch((error: unknown) => {
      // Two concurrent requests both cleared and set: the partial unique index refuses the second.
      if (isUniqueViolation(error)) return 'conflict' as const;
      throw error;
    });
    if (row === 'conflict') {
      return reply.code(409).send(httpError('CONFLICT', 'Another default was set at the same time; retry.'));
    }
    if (!row) return notFound(reply, params.data.id);
    announce({ reason: 'default', configId: params.data.id });
    return toConfig(row);
  });
}
