import type { Bus } from '@munim/bus';
import type { Database } from '@munim/db';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { GatewayConfig } from '../app.ts';
import type { Principal, Tenant } from '../auth.ts';
import { httpError } from '../http-errors.ts';

/** What the admin side and quick suggestions need from the gateway. */
export interface AdminDeps {
  bus: Bus;
  log: Logger;
  config: GatewayConfig;
  db: Kysely<Database> | undefined;
  /** The authenticated caller, or null without auth. */
  principalOf: (request: FastifyRequest) => Principal | null;
  /** The tenant of an authenticated request; null without auth or for an admin credential. */
  tenantOf: (request: FastifyRequest) => Tenant | null;
}

/** Route options that keep a route out of the published API description (documented in the README). */
export const HIDDEN = { schema: { hide: true } } as const;

/** Answers 503 when no database is configured. */
export function noDatabase(reply: FastifyReply, what: string) {
  return reply
    .code(503)
    .send(httpError('SERVICE_UNAVAILABLE', `${what} is not available: no database is configured.`));
}

/** The ISO text of a timestamp column. */
export const iso = (value: Date | string) => new Date(value).toISOString();

type Undefaulted<S extends z.ZodRawShape> = {
  [K in keyof S]: S[K] extends z.ZodDefault<infer T> ? T : S[K];
};

/**
 * The body of a change (`PATCH`) to what `schema` creates: every field optional and none defaulted,
 * so a change touches only the fields it names. (zod applies a field's default even inside
 * `.partial()`: an edit of an intent's phrases alone would deactivate it and clear its entities.)
 */
export function changeSchema<S extends z.ZodRawShape>(schema: z.ZodObject<S>) {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([key, field]) => [
      key,
      field instanceof z.ZodDefault ? field.unwrap() : field,
    ]),
  ) as Undefaulted<S>;
  return z.object(shape).partial();
}
