import { AttachmentsEnvSchema, checkS3Keys } from '@munim/attachments';
import { IdSchema, PERSON_ROLES, type PersonRole } from '@munim/contracts';
import { isSecretKeyText, SECRET_KEY_SHAPE } from '@munim/db';
import {
  ApprovalPolicyFileEnv,
  BaseEnvSchema,
  csv,
  DatabaseUrlSchema,
  EMPTY_ALLOWLIST,
  EndpointAllowlistSchema,
  isLoopbackHost,
  parseEnv,
  QuotaEnvSchema,
} from '@munim/kit';
import { z } from 'zod';

/** Shortest accepted API or admin key: long enough that guessing one is hopeless. */
export const MIN_KEY_LENGTH = 24;

/** One configured API key, the tenant it may act for, and the person it acts as. */
export interface ApiKey {
  key: string;
  entityId: string;
  orgId: string;
  /** The user it acts as; a key without one is its tenant's owner. */
  userId?: string;
  /** That user's roles for the entity; a user named without roles only reads (viewer). */
  roles: PersonRole[];
}

/**
 * `GATEWAY_API_KEYS`: comma-separated `key:entityId:orgId[:userId[:role+role…]]` entries, each key
 * at least {@link MIN_KEY_LENGTH} characters. Error messages name the entry by position only, so a
 * key never appears in a log or on stderr.
 */
export const ApiKeysSchema = z.string().transform((value, ctx): ApiKey[] => {
  const keys: ApiKey[] = [];
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const [index, entry] of entries.entries()) {
    const parts = entry.split(':').map((part) => part.trim());
    const [key, entityId, orgId, userId, roleList] = parts;
    if (
      parts.length < 3 ||
      parts.length > 5 ||
      !key ||
      !entityId ||
      !orgId ||
      (parts.length >= 4 && !userId)
    ) {
      ctx.addIssue({
        code: 'custom',
        message: `entry ${index + 1} is not key:entityId:orgId, optionally followed by :userId and :role+role…`,
      });
      continue;
    }
    const roles = roleList === undefined ? [] : roleList.split('+').map((r) => r.trim());
    const unknown = roles.find((r) => !(PERSON_ROLES as readonly string[]).includes(r));
    if (unknown !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `entry ${index + 1} names the role "${unknown}", which is not one of ${PERSON_ROLES.join(', ')}`,
      });
      continue;
    }
    if (userId !== undefined && !IdSchema.safeParse(userId).success) {
      ctx.addIssue({ code: 'custom', message: `entry ${index + 1} has an invalid userId` });
      continue;
    }
    if (key.length < MIN_KEY_LENGTH) {
      ctx.addIssue({
        code: 'custom',
        message: `entry ${index + 1} has a key shorter than ${MIN_KEY_LENGTH} characters`,
      });
      continue;
    }
    if (!IdSchema.safeParse(entityId).success || !IdSchema.safeParse(orgId).success) {
      ctx.addIssue({ code: 'custom', message: `entry ${index + 1} has an invalid entityId or orgId` });
      continue;
    }
    if (keys.some((known) => known.key === key)) {
      ctx.addIssue({ code: 'custom', message: `entry ${index + 1} repeats an earlier key` });
      continue;
    }
    keys.push({
      key,
      entityId,
      orgId,
      ...(userId === undefined
        ? { roles: ['owner'] }
        : { userId, roles: roles.length > 0 ? (roles as PersonRole[]) : ['viewer'] }),
    });
  }
  return keys;
});

/**
 * `GATEWAY_ADMIN_KEYS`: comma-separated keys, each at least {@link MIN_KEY_LENGTH} characters; a
 * bad one is named by its position only.
 */
export const AdminKeysSchema = z.string().transform((value, ctx): string[] => {
  const keys = value
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  for (const [index, key] of keys.entries()) {
    if (key.length < MIN_KEY_LENGTH) {
      ctx.addIssue({
        code: 'custom',
        message: `entry ${index + 1} is shorter than ${MIN_KEY_LENGTH} characters`,
      });
    }
  }
  return keys;
});

const flag = z.stringbool({ truthy: ['true', '1'], falsy: ['false', '0'] });

/** A JWKS must come over https, so nobody on the path can swap the keys; http only to this machine. */
const JwksUrlSchema = z.url({ protocol: /^https?$/ }).refine((text) => {
  const url = new URL(text);
  return url.protocol === 'https:' || isLoopbackHost(url.hostname);
}, 'must be an https URL (http only for a loopback host)');

/** Anything but loopback without credentials would serve the books to whoever reaches the port. */
function checkExposure(env: EnvObject, ctx: z.RefinementCtx): void {
  const credentials =
    env.GATEWAY_API_KEYS.length > 0 ||
    env.GATEWAY_ADMIN_KEYS.length > 0 ||
    env.GATEWAY_JWT_SECRET !== undefined ||
    env.GATEWAY_JWKS_URL !== undefined;
  if (credentials || env.GATEWAY_ALLOW_UNAUTHENTICATED || isLoopbackHost(env.HOST)) return;
  ctx.addIssue({
    code: 'custom',
    path: ['GATEWAY_API_KEYS'],
    message:
      `is required (or GATEWAY_JWT_SECRET / GATEWAY_JWKS_URL) when HOST is ${env.HOST}, not a loopback address; ` +
      'set GATEWAY_ALLOW_UNAUTHENTICATED=true to serve it without authentication anyway',
  });
}

/** A token from a JWKS issuer is meant for many services: only one whose audience is us is accepted. */
function checkJwks(env: EnvObject, ctx: z.RefinementCtx): void {
  if (env.GATEWAY_JWKS_URL === undefined || env.GATEWAY_JWT_AUDIENCE !== undefined) return;
  ctx.addIssue({
    code: 'custom',
    path: ['GATEWAY_JWT_AUDIENCE'],
    message: 'is required with GATEWAY_JWKS_URL',
  });
}

const EnvObjectSchema = BaseEnvSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  /** Bind address; anything but loopback needs credentials (or GATEWAY_ALLOW_UNAUTHENTICATED). */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Serve a non-loopback HOST without any credential (a warning is logged). */
  GATEWAY_ALLOW_UNAUTHENTICATED: flag.default(false),
  /**
   * Without auth, the `Host` names (besides loopback ones and HOST) browsers may use to reach the
   * gateway; any other is refused, against DNS rebinding.
   */
  GATEWAY_ALLOWED_HOSTS: csv.default([]),
  /** Unset or empty: no auth (local use only). */
  GATEWAY_API_KEYS: ApiKeysSchema.default([]),
  /** Failed authentications (a credential that is wrong) one address may make per AUTH_FAILURE_WINDOW_MS. */
  AUTH_FAILURE_MAX: z.coerce.number().int().positive().default(10),
  /** After AUTH_FAILURE_MAX failures, the address gets 429 for every request until this window ends. */
  AUTH_FAILURE_WINDOW_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 60_000),
  /**
   * Proxies in front of the gateway whose `X-Forwarded-For` entries are believed: lockouts and
   * rate limits key a caller by the address the Nth proxy from the gateway appended. 0: the socket
   * address, and the header is ignored.
   */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(16).default(0),
  /** Largest accepted request body; a bigger one gets a 400. */
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024),
  /** Longest accepted request URL (path and query string); a longer one gets a 414. */
  MAX_URL_LENGTH: z.coerce.number().int().min(256).default(4096),
  /** Longest an SSE stream (or an MCP tool call) waits for `complete`/`error` before ending with TIMEOUT. */
  STREAM_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 60_000),
  /** Timeout of the gateway's own bus requests (health pings). */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(2_000),
  /** Interval of the SSE heartbeat comment that keeps idle proxies from closing a stream. */
  SSE_HEARTBEAT_MS: z.coerce.number().int().positive().default(15_000),
  /** A stream that gets no event for this long ends with TIMEOUT (heartbeats do not count). */
  STREAM_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  /** Open SSE streams (and MCP tool calls) one key, token or address may hold at once. */
  MAX_STREAMS_PER_KEY: z.coerce.number().int().positive().default(20),
  /** Open SSE streams (and MCP tool calls) the whole gateway holds at once. */
  MAX_STREAMS_TOTAL: z.coerce.number().int().positive().default(2_000),
  /** Requests one key, token or address may make per RATE_LIMIT_WINDOW_MS under /v1 and /mcp. */
  RATE_LIMIT_MAX: z.coerce.number().int().positive().default(600),
  RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
  /** Browser origins allowed by CORS (comma-separated, `*` for any); unset: no CORS headers. */
  CORS_ORIGINS: csv.default([]),
  /** HS256 secret of bearer JWTs (at least 32 characters); unset: HS256 tokens are not accepted. */
  GATEWAY_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** JWKS URL (https) of the token issuer's public keys; unset: asymmetric tokens are not accepted. */
  GATEWAY_JWKS_URL: JwksUrlSchema.optional(),
  GATEWAY_JWT_ISSUER: z.string().min(1).optional(),
  /** Required with GATEWAY_JWKS_URL. */
  GATEWAY_JWT_AUDIENCE: z.string().min(1).optional(),
  /** JWT claim naming the entity a token may act for. */
  GATEWAY_JWT_ENTITY_CLAIM: z.string().min(1).default('entity_id'),
  /** JWT claim naming the organisation a token may act for. */
  GATEWAY_JWT_ORG_CLAIM: z.string().min(1).default('org_id'),
  /**
   * JWT claim naming the person's roles for the entity (an array, or a space- or comma-separated
   * string); only person roles are kept, and a token naming none only reads (viewer).
   */
  GATEWAY_JWT_ROLES_CLAIM: z.string().min(1).default('roles'),
  /** PostgreSQL with `unified_conversations` and `feedback_log`; unset: those endpoints answer 503. */
  DATABASE_URL: DatabaseUrlSchema.optional(),
  /** Comma-separated keys that may use `/v1/admin/*` (and act for any entity); never logged. */
  GATEWAY_ADMIN_KEYS: AdminKeysSchema.default([]),
  /**
   * The operator's approval policy, as the agent reads it: the gateway answers it as an org's
   * policy in force until the org sets its own through the admin API. A bad file stops the gateway.
   */
  APPROVAL_POLICY_FILE: ApprovalPolicyFileEnv.optional(),
  /** The role (in a token's `roles` array or `role` string claim) that grants admin access. */
  GATEWAY_JWT_ADMIN_ROLE: z.string().min(1).default('admin'),
  /** OpenAI-compatible endpoint the admin side uses to draft intents; unset: generation answers 503. */
  /** Speech to text: any OpenAI-compatible `/audio/transcriptions`; defaults to OPENAI_*. */
  STT_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  STT_API_KEY: z.string().min(1).optional(),
  STT_MODEL: z.string().min(1).default('gpt-4o-mini-transcribe'),
  /** Largest audio upload, in bytes (25 MB, the limit of OpenAI's transcription endpoint). */
  STT_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(25 * 1024 * 1024),
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  LLM_MODEL: z.string().min(1).optional(),
  /** AES-256 key (32 bytes, hex or base64) that encrypts `llm_configs` API keys; unset: keys are refused. */
  LLM_CONFIG_KEY: z.string().refine(isSecretKeyText, SECRET_KEY_SHAPE).optional(),
  /**
   * Hosts, addresses and CIDR ranges model endpoints saved through the admin API may use although
   * they are not public (loopback, private, link-local …); see `endpointProblem` in @munim/kit.
   */
  LLM_ENDPOINT_ALLOWLIST: EndpointAllowlistSchema.default(EMPTY_ALLOWLIST),
  /** Attachments: local or S3-compatible storage, link signing, extraction bounds. */
  ...AttachmentsEnvSchema.shape,
  /** Per-tenant quotas of queries and model tokens per window, counted in PostgreSQL. */
  ...QuotaEnvSchema.shape,
});
type EnvObject = z.infer<typeof EnvObjectSchema>;

/** Quotas are counted in PostgreSQL; without it they could not be kept, which must not pass unnoticed. */
function checkQuotaDatabase(env: EnvObject, ctx: z.RefinementCtx): void {
  if (env.DATABASE_URL !== undefined) return;
  for (const name of ['QUOTA_QUERIES_PER_WINDOW', 'QUOTA_TOKENS_PER_WINDOW'] as const) {
    if (env[name] === undefined) continue;
    ctx.addIssue({ code: 'custom', path: [name], message: 'needs DATABASE_URL (quotas are counted there)' });
  }
}

/** The gateway's environment, with the checks that span variables. */
export const EnvSchema = EnvObjectSchema.superRefine(checkS3Keys)
  .superRefine(checkExposure)
  .superRefine(checkJwks)
  .superRefine(checkQuotaDatabase);
export type Env = z.infer<typeof EnvSchema>;

/** Parses the gateway's environment; a bad variable throws a ConfigError naming it. */
export const loadEnv = (source: NodeJS.ProcessEnv = process.env) => parseEnv(EnvSchema, source);
