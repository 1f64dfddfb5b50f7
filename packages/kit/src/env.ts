import type { NatsAuth, StreamSettings } from '@munim/bus';
import { z } from 'zod';
import { checkNatsAuth, NatsAuthEnv } from './nats-env.ts';

/** A configuration problem; the message names every offending variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Variables every service reads. */
export const BaseEnvSchema = z
  .object({
    NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
    /** Subject prefix and stream-name prefix; lets several deployments (or tests) share one NATS. */
    NATS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
      .default('munim'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    /** Copies of munim's streams and durable consumers: 3 in a three-node JetStream cluster. */
    NATS_STREAM_REPLICAS: z.coerce
      .number({ error: 'must be a whole number from 1 to 5' })
      .int('must be a whole number from 1 to 5')
      .min(1, 'must be a whole number from 1 to 5')
      .max(5, 'must be a whole number from 1 to 5 (JetStream keeps at most 5 replicas)')
      .default(1),
    /** Where the streams keep their messages (a stream created with one keeps it). */
    NATS_STREAM_STORAGE: z.enum(['file', 'memory'], { error: 'must be file or memory' }).default('file'),
    /** Longest WORK and EVENTS keep a message, in ms (0: no limit); unset: EVENTS a week, WORK no limit. */
    NATS_STREAM_MAX_AGE_MS: z.coerce
      .number({ error: 'must be a whole number of milliseconds' })
      .int('must be a whole number of milliseconds')
      // Shorter would drop queued work, and undercut the deduplication of retried publishes.
      .refine((ms) => ms === 0 || ms >= 60_000, 'must be 0 (no limit) or at least 60000 (a minute)')
      .optional(),
    /** Most bytes WORK and EVENTS each keep; unset: no limit. */
    NATS_STREAM_MAX_BYTES: z.coerce
      .number({ error: 'must be a whole number of bytes' })
      .int('must be a whole number of bytes')
      .positive('must be a positive number of bytes (unset it for no limit)')
      .optional(),
    /** Statements with parameters as prepared (named) statements, parsed once per connection. */
    DB_PREPARED_STATEMENTS: z.enum(['on', 'off']).default('on'),
    ...NatsAuthEnv.shape,
  })
  .superRefine(checkNatsAuth);
export type BaseEnv = z.infer<typeof BaseEnvSchema>;

/** The NATS connection options of a service's environment, for `connectBus`. */
export function natsAuthFromEnv(env: BaseEnv): NatsAuth {
  return {
    credsFile: env.NATS_CREDS_FILE,
    nkeySeedFile: env.NATS_NKEY_SEED_FILE,
    user: env.NATS_USER,
    password: env.NATS_PASSWORD,
    token: env.NATS_TOKEN,
    tls: { caFile: env.NATS_TLS_CA_FILE, certFile: env.NATS_TLS_CERT_FILE, keyFile: env.NATS_TLS_KEY_FILE },
  };
}

/** The stream settings of a service's environment, for `connectBus` (every service applies the same). */
export function streamSettingsFromEnv(env: BaseEnv): StreamSettings {
  return {
    replicas: env.NATS_STREAM_REPLICAS,
    storage: env.NATS_STREAM_STORAGE,
    ...(env.NATS_STREAM_MAX_AGE_MS === undefined ? {} : { maxAgeMs: env.NATS_STREAM_MAX_AGE_MS }),
    ...(env.NATS_STREAM_MAX_BYTES === undefined ? {} : { maxBytes: env.NATS_STREAM_MAX_BYTES }),
  };
}

/** Parses the environment with a service's schema, or throws a {@link ConfigError} naming each bad variable. */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  source: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  // Empty strings mean "unset", as in most deployment tools.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`);
  throw new ConfigError(`invalid configuration — ${problems.join('; ')}`);
}

/** A comma-separated list of strings. */
export const csv = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

/** A PostgreSQL connection URL. */
export const DatabaseUrlSchema = z.url({
  protocol: /^postgres(ql)?$/,
  error: (issue) =>
    issue.input === undefined ? 'is required (a postgres:// URL)' : 'must be a postgres:// URL',
});
