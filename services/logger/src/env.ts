import { BaseEnvSchema, DatabaseUrlSchema, parseEnv } from '@munim/kit';
import { z } from 'zod';

export const EnvSchema = BaseEnvSchema.extend({
  DATABASE_URL: DatabaseUrlSchema,
  /** Events stored at once by this instance. */
  LOGGER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(16),
});
export type Env = z.infer<typeof EnvSchema>;

/** Parses the logger's environment; a bad variable throws a ConfigError naming it. */
export const loadEnv = (source: NodeJS.ProcessEnv = process.env) => parseEnv(EnvSchema, source);
