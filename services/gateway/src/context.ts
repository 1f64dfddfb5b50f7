import { type Attachments, createAttachments } from '@munim/attachments';
import type { Bus } from '@munim/bus';
import { type Database, People, TenantUsage } from '@munim/db';
import { isLoopbackHost, OpenStreams } from '@munim/kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { Authenticator } from './auth.ts';
import type { Env } from './env.ts';
import { AuthFailures, StreamSlots } from './limits.ts';
import { QuotaGate } from './quotas.ts';

/** The gateway's settings (a subset of its environment). */
export type GatewayConfig = Omit<Env, 'PORT' | 'NATS_URL' | 'NATS_PREFIX' | 'LOG_LEVEL' | 'DATABASE_URL'>;

/** What the plugins share: the bus, the database, the credentials and the limits of one gateway. */
export interface GatewayContext {
  bus: Bus;
  log: Logger;
  config: GatewayConfig;
  /** The database; without it the endpoints that need it answer 503. */
  db: Kysely<Database> | undefined;
  attachments: Attachments | undefined;
  authenticator: Authenticator;
  authFailures: AuthFailures;
  /** Streams (SSE responses, MCP tool calls) to end at shutdown. */
  openStreams: OpenStreams;
  slots: StreamSlots;
  quotas: QuotaGate;
}

/** What the gateway is built from. */
export interface GatewayDeps {
  bus: Bus;
  log: Logger;
  config: GatewayConfig;
  /** The database with `unified_conversations` and `feedback_log`; without it those endpoints answer 503. */
  db?: Kysely<Database> | undefined;
  /** The clock of quota windows, in ms since the epoch (tests move it). */
  clock?: () => number;
}

/** Builds the shared parts from the settings, warning about the risky ones. */
export function createContext(deps: GatewayDeps): GatewayContext {
  const { bus, log, config, db } = deps;
  const authenticator = new Authenticator(
    config.GATEWAY_API_KEYS,
    {
      secret: config.GATEWAY_JWT_SECRET,
      jwksUrl: config.GATEWAY_JWKS_URL,
      issuer: config.GATEWAY_JWT_ISSUER,
      audience: config.GATEWAY_JWT_AUDIENCE,
      entityClaim: config.GATEWAY_JWT_ENTITY_CLAIM,
      orgClaim: config.GATEWAY_JWT_ORG_CLAIM,
      rolesClaim: config.GATEWAY_JWT_ROLES_CLAIM,
    },
    { keys: config.GATEWAY_ADMIN_KEYS, role: config.GATEWAY_JWT_ADMIN_ROLE },
    // Keys issued to users through /v1/admin/users, kept (hashed) in the database.
    db ? new People(db) : undefined,
  );
  if (!authenticator.enabled && !isLoopbackHost(config.HOST)) {
    log.warn(
      { host: config.HOST },
      'GATEWAY_ALLOW_UNAUTHENTICATED: serving a non-loopback address without any credential; anyone who ' +
        'reaches it may act for every entity (set GATEWAY_API_KEYS)',
    );
  }
  const attachments = db ? createAttachments(db, config) : undefined;
  if (attachments?.storage.kind === 'local' && !config.ATTACHMENTS_SIGNING_KEY) {
    log.warn(
      {},
      'ATTACHMENTS_SIGNING_KEY is not set: attachment links are signed with a random key, so they work only on ' +
        'this gateway instance and until it restarts',
    );
  }
  const quotaLimits = { queries: config.QUOTA_QUERIES_PER_WINDOW, tokens: config.QUOTA_TOKENS_PER_WINDOW };
  const quotas = new QuotaGate(
    db && (quotaLimits.queries || quotaLimits.tokens)
      ? new TenantUsage(db, { windowMs: config.QUOTA_WINDOW_MS, now: deps.clock })
      : undefined,
    quotaLimits,
    log,
    config.QUOTA_STORE_UNREACHABLE,
  );
  return {
    bus,
    log,
    config,
    db,
    attachments,
    authenticator,
    authFailures: new AuthFailures(config.AUTH_FAILURE_MAX, config.AUTH_FAILURE_WINDOW_MS),
    openStreams: new OpenStreams(),
    slots: new StreamSlots(config.MAX_STREAMS_PER_KEY, config.MAX_STREAMS_TOTAL),
    quotas,
  };
}
