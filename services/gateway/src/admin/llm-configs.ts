import {
  type LlmConfigChanged,
  LlmConfigInputSchema,
  LlmConfigParamsSchema,
  LlmConfigUpdateSchema,
} from '@munim/contracts';
import { parseSecretKey } from '@munim/db';
import { endpointProblem } from '@munim/kit';
import type { FastifyPluginAsync } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError, noDatabase } from '../http-errors.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import {
  columns,
  FallbacksError,
  insertConfig,
  isUniqueViolation,
  makeDefault,
  type Row,
  toConfig,
  updateConfig,
} from './llm-config-store.ts';

const noConfigs = () => noDatabase('Model configurations');
const notFound = (id: number) =>
  new HttpRefusal(404, httpError('NOT_FOUND', `No model configuration ${id}.`, { field: 'id' }));
const conflict = () =>
  new HttpRefusal(
    409,
    httpError('CONFLICT', 'A model configuration with this name exists already.', { field: 'name' }),
  );
const noKey = () =>
  new HttpRefusal(
    503,
    httpError('SERVICE_UNAVAILABLE', 'API keys cannot be stored: LLM_CONFIG_KEY is not configured.', {
      field: 'apiKey',
    }),
  );
const badEndpoint = (problem: string) =>
  new HttpRefusal(400, httpError('BAD_REQUEST', `endpoint: ${problem}`, { field: 'endpoint' }));
/** Fallbacks that are not other existing configurations: 400 naming the field. */
const badFallbacks = (error: unknown): never => {
  if (error instanceof FallbacksError)
    throw new HttpRefusal(
      400,
      httpError('BAD_REQUEST', `fallbacks: ${error.message}`, { field: 'fallbacks' }),
    );
  throw error;
};
const badKey = (message: string) =>
  new HttpRefusal(400, httpError('BAD_REQUEST', `apiKey: ${message}`, { field: 'apiKey' }));

/**
 * Model configurations: list, create, update and set the default. API keys are
 * stored AES-256-GCM encrypted with `LLM_CONFIG_KEY`, bound to their row, provider and endpoint
 * origin, and never returned; a move to another origin needs the key again, so a stored key never
 * reaches a new host. Endpoints must resolve to public addresses unless `LLM_ENDPOINT_ALLOWLIST`
 * allows them. Every change is announced with `llmConfigChanged` so the agents swap models
 * without a restart. A configuration may list `fallbacks`: other configurations, in order, that a
 * call fails over to while it is the default.
 */
export const llmConfigRoutes: FastifyPluginAsync<GatewayContext> = async (app, ctx) => {
  const { db } = ctx;
  const admin = app.withTypeProvider<ZodTypeProvider>();
  const secretKey = ctx.config.LLM_CONFIG_KEY ? parseSecretKey(ctx.config.LLM_CONFIG_KEY) : null;
  const announce = (data: LlmConfigChanged) => {
    ctx.bus.broadcast('llmConfigChanged', data);
    ctx.log.info({ ...data }, 'model configuration changed');
  };
  const checkEndpoint = async (endpoint: string) => {
    const problem = await endpointProblem(endpoint, ctx.config.LLM_ENDPOINT_ALLOWLIST);
    if (problem) throw badEndpoint(problem);
  };
  const one = { ...HIDDEN, params: LlmConfigParamsSchema };

  admin.get('/v1/admin/llm-configs', { schema: HIDDEN }, async () => {
    if (!db) throw noConfigs();
    const rows = await db.selectFrom('llm_configs').select(columns).orderBy('name').execute();
    return { configs: rows.map((row) => toConfig(row as Row)) };
  });

  admin.post(
    '/v1/admin/llm-configs',
    { schema: { ...HIDDEN, body: LlmConfigInputSchema } },
    async (request, reply) => {
      if (!db) throw noConfigs();
      const input = request.body;
      if (input.apiKey !== undefined && !secretKey) throw noKey();
      await checkEndpoint(input.endpoint);
      const inserted = await insertConfig(db, input, secretKey).catch(badFallbacks);
      if (!inserted) throw conflict();
      // A concurrent default change wins the partial unique index: the row stays, not as the default.
      const row = input.isDefault
        ? ((await makeDefault(db, Number(inserted.id)).catch((error: unknown) => {
            if (isUniqueViolation(error)) return undefined;
            throw error;
          })) ?? (inserted as Row))
        : (inserted as Row);
      announce({ reason: 'created', configId: Number(row.id) });
      return reply.code(201).send(toConfig(row));
    },
  );

  admin.patch(
    '/v1/admin/llm-configs/:id',
    { schema: { ...one, body: LlmConfigUpdateSchema } },
    async (request) => {
      if (!db) throw noConfigs();
      const change = request.body;
      if (typeof change.apiKey === 'string' && !secretKey) throw noKey();
      if (change.endpoint !== undefined) await checkEndpoint(change.endpoint);
      const { id } = request.params;
      const row = await updateConfig(db, id, change, secretKey).catch((error: unknown) => {
        if (isUniqueViolation(error)) throw conflict();
        return badFallbacks(error);
      });
      if (row === 'not-found') throw notFound(id);
      if (row === 'no-secret-key') throw noKey();
      if (row === 'key-required') {
        throw badKey(
          'is required when the endpoint moves to another origin: the stored key is never sent to a new host ' +
            '(send it again, or null to remove it)',
        );
      }
      if (row === 'key-unreadable') {
        throw badKey('the stored key cannot be read with LLM_CONFIG_KEY for this row; send it again');
      }
      announce({ reason: 'updated', configId: id });
      return toConfig(row);
    },
  );

  admin.post('/v1/admin/llm-configs/:id/default', { schema: one }, async (request) => {
    if (!db) throw noConfigs();
    const { id } = request.params;
    const row = await makeDefault(db, id).catch((error: unknown) => {
      // Two concurrent requests both cleared and set: the partial unique index refuses the second.
      if (isUniqueViolation(error)) {
        throw new HttpRefusal(409, httpError('CONFLICT', 'Another default was set at the same time; retry.'));
      }
      throw error;
    });
    if (!row) throw notFound(id);
    announce({ reason: 'default', configId: id });
    return toConfig(row);
  });
};
