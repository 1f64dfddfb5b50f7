import type { NatsAuth } from '@munim/bus';
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
