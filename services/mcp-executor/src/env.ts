import { BaseEnvSchema, parseEnv } from '@munim/kit';
import { z } from 'zod';

export const EnvSchema = BaseEnvSchema.extend({
  /** The accounting MCP server's Streamable HTTP endpoint. */
  MCP_SERVER_URL: z.url({
    protocol: /^https?$/,
    error: 'must be the http(s):// URL of an MCP server (Streamable HTTP)',
  }),
  /** Bearer token sent to the MCP server; never logged. */
  MCP_AUTH_TOKEN: z.string().optional(),
  MCP_READ_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  MCP_WRITE_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /** Results whose JSON is longer than this are truncated, keeping the item count (seed 003 §6.10). */
  TOOL_RESULT_MAX_CHARS: z.coerce.number().int().min(1_000).default(50_000),
});
export type Env = z.infer<typeof EnvSchema>;
export const loadEnv = (source: NodeJS.ProcessEnv = process.env) => parseEnv(EnvSchema, source);
