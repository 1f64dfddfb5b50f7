import type { LlmConfigInputSchema, LlmConfigUpdateSchema } from '@munim/contracts';
import { type Database, endpointOrigin, openLlmKey, SecretKeyError, sealLlmKey } from '@munim/db';
import { type Kysely, sql } from 'kysely';
import type { z } from 'zod';
import { iso } from './shared.ts';

export const columns = [
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
  'fallback_ids',
  'total_input_tokens',
  'total_output_tokens',
  'total_requests',
  'created_at',
  'updated_at',
] as const;

export type Row = {
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
  fallback_ids: string[];
  total_input_tokens: number;
  total_output_tokens: number;
  total_requests: number;
  created_at: Date;
  updated_at: Date;
};

/** The public view of a row: never the key, only whether one is stored. */
export const toConfig = (row: Row) => ({
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
  fallbacks: row.fallback_ids.map(Number),
  usage: {
    inputTokens: Number(row.total_input_tokens),
    outputTokens: Number(row.total_output_tokens),
    requests: Number(row.total_requests),
  },
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

/** Why a change of a stored configuration was refused inside its transaction. */
export type Refused = 'not-found' | 'key-required' | 'key-unreadable' | 'no-secret-key';

type KeyOwner = { id: number; provider: string; endpoint: string };

/** What a change does to the stored key: keep it, store this (null: none), or refuse the change. */
type KeyChange = { keep: true } | { store: string | null } | { refused: Refused };

/**
 * What a change does to `api_key_encrypted`: a new key is sealed to the row as changed; a stored
 * key follows a change of provider, but never a move to another origin (the key must be sent again).
 */
export function keyChange(
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

/** A configuration's fallbacks name one that does not exist, or itself; the message says which. */
export class FallbacksError extends Error {
  override name = 'FallbacksError';
}

/**
 * Refuses fallbacks that are not other existing configurations. Lists are not followed from one
 * configuration to the next (only the default's own list is used), so two configurations may name
 * each other: that is the usual primary and secondary, whichever is the default.
 */
async function checkFallbacks(trx: Kysely<Database>, id: number, fallbacks: readonly number[]) {
  if (fallbacks.includes(id)) throw new FallbacksError('cannot name the configuration itself');
  if (fallbacks.length === 0) return;
  // Shared locks: a configuration named here cannot go away before this commits.
  const found = await trx
    .selectFrom('llm_configs')
    .select('id')
    .where('id', 'in', [...fallbacks])
    .forKeyShare()
    .execute();
  const known = new Set(found.map((row) => Number(row.id)));
  const unknown = fallbacks.filter((f) => !known.has(f));
  if (unknown.length > 0) throw new FallbacksError(`no model configuration ${unknown.join(', ')}`);
}

/** A unique index refused the write (PostgreSQL 23505). */
export const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';

/** Makes one configuration the default, clearing the flag elsewhere in the same transaction. */
export async function makeDefault(db: Kysely<Database>, id: number): Promise<Row | undefined> {
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

/** A new configuration; its key is sealed to the row's id, so the row comes first, in one transaction. Undefined: the name is taken. */
export function insertConfig(
  db: Kysely<Database>,
  input: z.output<typeof LlmConfigInputSchema>,
  secretKey: Buffer | null,
) {
  return db.transaction().execute(async (trx) => {
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
    if (!row) return row;
    if (input.fallbacks && input.fallbacks.length > 0) {
      await checkFallbacks(trx, Number(row.id), input.fallbacks);
      await trx
        .updateTable('llm_configs')
        .set({ fallback_ids: input.fallbacks })
        .where('id', '=', row.id)
        .execute();
    }
    if (input.apiKey === undefined || !secretKey) {
      return trx.selectFrom('llm_configs').select(columns).where('id', '=', row.id).executeTakeFirstOrThrow();
    }
    return trx
      .updateTable('llm_configs')
      .set({ api_key_encrypted: sealLlmKey(secretKey, row, input.apiKey) })
      .where('id', '=', row.id)
      .returning(columns)
      .executeTakeFirstOrThrow();
  });
}

/** Applies a change to configuration `id` under a row lock: the updated row, or why it was refused. */
export function updateConfig(
  db: Kysely<Database>,
  id: number,
  change: z.output<typeof LlmConfigUpdateSchema>,
  secretKey: Buffer | null,
): Promise<Row | Refused> {
  return db.transaction().execute(async (trx): Promise<Row | Refused> => {
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
    if (change.fallbacks !== undefined) await checkFallbacks(trx, id, change.fallbacks);
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
        ...(change.fallbacks !== undefined ? { fallback_ids: change.fallbacks } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .returning(columns)
      .executeTakeFirstOrThrow()) as Row;
  });
}
