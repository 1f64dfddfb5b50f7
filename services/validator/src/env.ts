import { BaseEnvSchema, parseEnv } from '@munim/kit';
import { z } from 'zod';

export const EnvSchema = BaseEnvSchema.extend({
  /** How long the tool registry fetched from the MCP executor is reused. */
  VALIDATOR_TOOLS_TTL_MS: z.coerce.number().int().positive().default(60_000),
  /** Bound on the `toolsList` request to the MCP executor. */
  TOOLS_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /**
   * Tools offered to the model as one container per group: `always`, `never`, or `auto` (above
   * TOOL_COLLAPSE_THRESHOLD tools).
   */
  TOOL_COLLAPSE: z.enum(['always', 'auto', 'never']).default('auto'),
  TOOL_COLLAPSE_THRESHOLD: z.coerce.number().int().nonnegative().default(40),
  /** The LLM for the one correction of JSON that repair could not fix; without a model that step is skipped. */
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  OPENAI_API_KEY: z.string().optional(),
  LLM_MODEL: z.string().min(1).optional(),
  /** Bound on one LLM JSON correction. */
  JSON_CORRECTION_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** The `max_tokens` of one LLM JSON correction (its reply is the corrected arguments or block). */
  JSON_CORRECTION_MAX_TOKENS: z.coerce.number().int().positive().default(2048),
});
export const loadEnv = (source: NodeJS.ProcessEnv = process.env) => parseEnv(EnvSchema, source);
