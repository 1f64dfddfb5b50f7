import type { LlmConfigChanged } from '@munim/contracts';
import {
  type Database,
  endpointOrigin,
  openLlmKey,
  parseSecretKey,
  SecretKeyError,
  sealLlmKey,
} from '@munim/db';
import { endpointProblem } from '@munim/kit';
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

/** Why a change of a stored configuration was refused inside its transaction. */
type Refused = 'not-found' | 'key-required' | 'key-unreadable' | 'no-secret-key';

type KeyOwner = { id: number; provider: string; endpoint: string };

/** What a change does to the stored key: keep it, store this (null: none), or refuse the change. */
type KeyChange = { keep: true } | { store: string | null } | { refused: Refused };

/**
 * What a change does to `api_key_encrypted`: a new key is sealed to the row as changed; a stored
 * key follows a change of provider, but never a move to another origin (the key must be sent again).
 */
function keyChange(
  current: Row,
  next: KeyOwner,
  apiKey: string | null | undefined,
  secretKey: Buffer | null,
): KeyChange {
  if (apiKey === null) return { store: null };
  if (typeof apiKey === 'string') {
    return secretKey ? { store: sealLlmKey(secretKey, next, apiKey) } : { refused: 'no-secret-key' };
  }
  const stored = current.api_key_encrypted;
  if (stored === null) return { keep: true };
  if (endpointOrigin(next.endpoint) !== endpointOrigin(current.endpoint)) return { refused: 'key-required' };
  if (next.provider === current.provider) return { keep: true };
  if (!secretKey) return { refused: 'no-secret-key' };
  try {
    return { store: sealLlmKey(secretKey, next, openLlmKey(secretKey, current, stored)) };
  } catch (error) {
    if (error instanceof SecretKeyError) return { refused: 'key-unreadable' };
    throw error;
  }
}

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
 * stored AES-256-GCM encrypted with `LLM_CONFIG_KEY`, bound to their row, provider and endpoint
 * origin, and never returned; a move to another origin needs the key again, so a stored key never
 * reaches a new host. Endpoints must resolve to public addresses unless `LLM_ENDPOINT_ALLOWLIST`
 * allows them. Every change is announced with `llmConfigChanged` so the agents swap models
 * without a restart.
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
  const badEndpoint = (reply: FastifyReply, problem: string) =>
    reply.code(400).send(httpError('BAD_REQUEST', `endpoint: ${problem}`, { field: 'endpoint' }));
  const badKey = (reply: FastifyReply, message: string) =>
    reply.code(400).send(httpError('BAD_REQUEST', `apiKey: ${message}`, { field: 'apiKey' }));
  const checkEndpoint = (endpoint: string) => endpointProblem(endpoint, deps.config.LLM_ENDPOINT_ALLOWLIST);

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
    const problem = await checkEndpoint(input.endpoint);
    if (problem) return badEndpoint(reply, problem);
    // The key is sealed to the row's id, so the row comes first, in the same transaction.
    const inserted = await db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('llm_configs')
        .values({
          name: input.name,
          provider: input.provider,
          model: input.model,
          endpoint: input.endpoint,
          api_style: input.apiStyle,
          api_key_encrypted: null,
          temperature: input.temperature ?? null,
          max_tokens: input.maxTokens ?? null,
        })
        .onConflict((oc) => oc.column('name').doNothing())
        .returning(columns)
        .executeTakeFirst();
      if (!row || input.apiKey === undefined || !secretKey) return row;
      return trx
        .updateTable('llm_configs')
        .set({ api_key_encrypted: sealLlmKey(secretKey, row, input.apiKey) })
        .where('id', '=', row.id)
        .returning(columns)
        .executeTakeFirstOrThrow();
    });
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
    if (change.endpoint !== undefined) {
      const problem = await checkEndpoint(change.endpoint);
      if (problem) return badEndpoint(reply, problem);
    }
    const id = params.data.id;
    const row = await db
      .transaction()
      .execute(async (trx): Promise<Row | Refused> => {
        const current = (await trx
          .selectFrom('llm_configs')
          .select(columns)
          .where('id', '=', id)
          .forUpdate()
          .executeTakeFirst()) as Row | undefined;
        if (!current) return 'not-found';
        const next = {
          id,
          provider: change.provider ?? current.provider,
          endpoint: change.endpoint ?? current.endpoint,
        };
        const key = keyChange(current, next, change.apiKey, secretKey);
        if ('refused' in key) return key.refused;
        return (await trx
          .updateTable('llm_configs')
          .set({
            ...(change.name !== undefined ? { name: change.name } : {}),
            ...(change.provider !== undefined ? { provider: change.provider } : {}),
            ...(change.model !== undefined ? { model: change.model } : {}),
            ...(change.endpoint !== undefined ? { endpoint: change.endpoint } : {}),
            ...(change.apiStyle !== undefined ? { api_style: change.apiStyle } : {}),
            ...('store' in key ? { api_key_encrypted: key.store } : {}),
            ...(change.temperature !== undefined ? { temperature: change.temperature } : {}),
            ...(change.maxTokens !== undefined ? { max_tokens: change.maxTokens } : {}),
            updated_at: sql<Date>`now()`,
          })
          .where('id', '=', id)
          .returning(columns)
          .executeTakeFirstOrThrow()) as Row;
      })
      .catch((error: unknown) => {
        if (isUniqueViolation(error)) return 'conflict' as const;
        throw error;
      });
    if (row === 'conflict') return conflict(reply);
    if (row === 'not-found') return notFound(reply, id);
    if (row === 'no-secret-key') return noKey(reply);
    if (row === 'key-required') {
      return badKey(
        reply,
        'is required when the endpoint moves to another origin: the stored key is never sent to a new host ' +
          '(send it again, or null to remove it)',
      );
    }
    if (row === 'key-unreadable') {
      return badKey(reply, 'the stored key cannot be read with LLM_CONFIG_KEY for this row; send it again');
    }
    announce({ reason: 'updated', configId: id });
    return toConfig(row);
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
