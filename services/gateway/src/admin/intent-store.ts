import { randomUUID } from 'node:crypto';
import { type IntentInput, type IntentsChanged, SYSTEM_SCOPE } from '@munim/contracts';
import type { Database } from '@munim/db';
import type { Kysely } from 'kysely';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError } from '../http-errors.ts';
import { iso } from './shared.ts';

export type IntentRow = {
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

export const intentColumns = [
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

/** An intent as the admin API shows it. */
export const toIntent = (row: IntentRow) => ({
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
  ctx: Pick<GatewayContext, 'bus' | 'config'>,
  db: Kysely<Database>,
): Promise<Map<string, boolean> | null> {
  const rows = await db.selectFrom('tool_registry').select(['tool_name', 'is_write']).execute();
  if (rows.length > 0) return new Map(rows.map((r) => [r.tool_name, r.is_write]));
  // The executor fills the table when it connects; before that, ask it directly.
  try {
    const list = await ctx.bus.request(
      'toolsList',
      SYSTEM_SCOPE,
      {},
      { timeoutMs: ctx.config.REQUEST_TIMEOUT_MS },
    );
    return new Map(list.tools.map((t) => [t.name, t.isWrite]));
  } catch {
    return null;
  }
}

/**
 * What is wrong with an intent's steps against the live registry: tools it does not know, and
 * writes — an intent runs on the fast path without confirmation, so it holds reads only (see
 * docs/security.md). Null when the registry cannot be read.
 */
export async function flowProblems(
  ctx: Pick<GatewayContext, 'bus' | 'config'>,
  db: Kysely<Database>,
  flow: readonly { tool: string }[],
  field = 'resolutionFlow',
): Promise<{ field: string; message: string }[] | null> {
  const kinds = await registryKinds(ctx, db);
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

/** Throws the 400 naming what is wrong with an intent's steps, or 503 when the registry cannot be read. */
export async function checkTools(
  ctx: Pick<GatewayContext, 'bus' | 'config'>,
  db: Kysely<Database>,
  flow: readonly { tool: string }[],
  field = 'resolutionFlow',
): Promise<void> {
  const issues = await flowProblems(ctx, db, flow, field);
  if (issues === null) {
    throw new HttpRefusal(
      503,
      httpError('SERVICE_UNAVAILABLE', 'The tool registry cannot be read right now; try again shortly.'),
    );
  }
  const first = issues[0];
  if (!first) return;
  throw new HttpRefusal(
    400,
    httpError('BAD_REQUEST', `${first.field}: ${first.message}`, { field: first.field, issues }),
  );
}

/** Inserts a validated intent; null when its id or name is taken. */
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
export function intentsChangedPublisher(ctx: Pick<GatewayContext, 'bus' | 'log'>) {
  return (data: IntentsChanged) => {
    ctx.bus.broadcast('intentsChanged', data);
    ctx.log.info({ ...data }, 'intents changed');
  };
}
