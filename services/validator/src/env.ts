import { BaseEnvSchema, parseEnv } from '@munim/kit';
import { z } from 'zod';

export const EnvSchema = BaseEnvSchema.extend({
  /** How long the tool registry fetched from the MCP executor is reused. */
  VALIDATOR_TOOLS_TTL_MS: z.coerce.number().int().positive().default(60_000),
  /** Bound on the `toolsList` request to the MCP executor. */
  TOOLS_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
});
export type Env = z.infer<typeof EnvSchema>;
export const loadEnv = (source: NodeJS.ProcessEnv = process.env) => parseEnv(EnvSchema, source);
