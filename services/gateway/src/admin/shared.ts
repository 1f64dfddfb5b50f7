import type { Bus } from '@munim/bus';
import type { Database } from '@munim/db';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../app.ts';
import type { Principal, Tenant } from '../auth.ts';
import { httpError } from '../http-errors.ts';

/** What the admin side and quick suggestions need from the gateway. */
export interface AdminDeps {
  bus: Bus;
  log: Logger;
  config: GatewayConfig;
  db: Kysely<Database> | undefined;
  /** Whether any credential is configured; without one (local use) the admin endpoints are open. */
  authEnabled: boolean;
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
