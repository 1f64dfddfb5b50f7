import { BaseEnvSchema, DatabaseUrlSchema, parseEnv } from '@munim/kit';
import { z } from 'zod';
import { ToolPolicy } from './policy.ts';
import { ToolPolicyError } from './policy-file.ts';
import { parseServerList, ServerSpecError } from './servers.ts';

export const EnvSchema = BaseEnvSchema.extend({
  /** The accounting MCP server's Streamable HTTP endpoint (when MCP_SERVERS is not set). */
  MCP_SERVER_URL: z
    .url({
      protocol: /^https?$/,
      error: 'must be the http(s):// URL of an MCP server (Streamable HTTP)',
    })
    .optional(),
  /**
   * Several MCP servers: a JSON list or a comma list of http(s) URLs and `stdio:command args`
   * (see `parseServerList`). Takes precedence over MCP_SERVER_URL.
   */
  MCP_SERVERS: z
    .string()
    .transform((text, ctx) => {
      try {
        return parseServerList(text);
      } catch (error) {
        if (!(error instanceof ServerSpecError)) throw error;
        ctx.addIssue({ code: 'custom', message: error.message });
        return z.NEVER;
      }
    })
    .optional(),
  /**
   * The operator's tool policy, a JSON or YAML file: servers whose annotations are trusted, and per
   * tool (name or glob, per server) read or write, confirmation tier and extra write rules. A file
   * giving tier 0 to destructive tools without `allowUnconfirmedDestructive: true` stops the service.
   */
  TOOL_POLICY_FILE: z
    .string()
    .min(1)
    .transform((path, ctx) => {
      try {
        return ToolPolicy.load(path).refuseUnconfirmedDestructive();
      } catch (error) {
        if (!(error instanceof ToolPolicyError)) throw error;
        ctx.addIssue({ code: 'custom', message: error.message });
        return z.NEVER;
      }
    })
    .optional(),
  /** Bearer token sent to the MCP server; never logged. */
  MCP_AUTH_TOKEN: z.string().optional(),
  MCP_READ_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  MCP_WRITE_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /** Results whose JSON is longer than this are truncated, keeping the item count. */
  TOOL_RESULT_MAX_CHARS: z.coerce.number().int().min(1_000).default(50_000),
  /** PostgreSQL: the idempotency store of writes. */
  DATABASE_URL: DatabaseUrlSchema,
  /** How long idempotency keys of writes are kept. */
  IDEMPOTENCY_TTL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(24 * 3600 * 1000),
  /** Margin past a write's timeout before other instances presume its sender gone. */
  IDEMPOTENCY_GRACE_MS: z.coerce.number().int().nonnegative().default(5_000),
}).superRefine((env, ctx) => {
  if (!env.MCP_SERVER_URL && !env.MCP_SERVERS) {
    ctx.addIssue({
      code: 'custom',
      path: ['MCP_SERVER_URL'],
      message: 'is required (the http(s):// URL of an MCP server) unless MCP_SERVERS is set',
    });
  }
});
export const loadEnv = (source: NodeJS.ProcessEnv = process.env) => parseEnv(EnvSchema, source);
