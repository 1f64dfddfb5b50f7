import { BaseEnvSchema, DatabaseUrlSchema, parseEnv } from '@munim/kit';
import { z } from 'zod';
import { TOOL_STRATEGIES } from './tool-groups.ts';

export const EnvSchema = BaseEnvSchema.extend({
  DATABASE_URL: DatabaseUrlSchema,
  /** Intent confidence at or above which a query takes the fast path. */
  FAST_PATH_THRESHOLD: z.coerce.number().min(0).max(1).default(0.85),
  INTENTS_REFRESH_MS: z.coerce.number().int().positive().default(30_000),
  TOOLS_CACHE_MS: z.coerce.number().int().positive().default(30_000),
  TOOLS_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /** Tool selection strategy; `dynamic` picks one per query. */
  TOOL_STRATEGY: z.enum(TOOL_STRATEGIES).default('dynamic'),
  ROUTER_CONCURRENCY: z.coerce.number().int().positive().default(16),
  /**
   * How long a submitted query may go unacknowledged before another router instance takes it over
   * (a running one keeps it by heartbeat): how soon a dead instance's queries are routed.
   */
  ROUTER_ACK_WAIT_MS: z.coerce.number().int().min(1_000).default(30_000),
  /** Response cache of answered reads: `on` or `off`. */
  RESPONSE_CACHE: z.enum(['on', 'off']).default('on'),
  /** Cache lifetimes by data kind: lists and balances, reports, static lookups. */
  CACHE_TTL_VOLATILE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 60_000),
  CACHE_TTL_REPORT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(15 * 60_000),
  CACHE_TTL_STATIC_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60 * 60_000),
  /** A route whose request has not ended after this long is dropped unlearnt. */
  ROUTE_MAX_AGE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60 * 60_000),
});
export const loadEnv = (source: NodeJS.ProcessEnv = process.env) => parseEnv(EnvSchema, source);
