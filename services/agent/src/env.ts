import { AttachmentsEnvSchema, checkS3Keys } from '@munim/attachments';
import {
  ApprovalPolicyFileEnv,
  BaseEnvSchema,
  DatabaseUrlSchema,
  parseEnv,
  QuotaEnvSchema,
} from '@munim/kit';
import { z } from 'zod';

export const EnvSchema = BaseEnvSchema.extend({
  DATABASE_URL: DatabaseUrlSchema,
  /**
   * Gone: every write the tool policy does not exempt is confirmed, and the executor runs none
   * without that approval. Exempt writes with tier 0 in the executor's TOOL_POLICY_FILE instead.
   */
  CONFIRM_TIERS: z
    .string()
    .refine((s) => s.replace(/\s/g, '') === '1,2,3', {
      error:
        "is no longer supported: to run a write without confirmation, give it tier 0 in the executor's TOOL_POLICY_FILE",
    })
    .optional(),
  /**
   * Who must approve which writes (JSON or YAML), read and checked at start: a bad file stops the
   * agent naming the entry. An org's own policy (admin API) takes its place for that org; unset,
   * the person who asked confirms every write.
   */
  APPROVAL_POLICY_FILE: ApprovalPolicyFileEnv.optional(),
  /** How long a write waits for its approvers before it expires (a recorded outcome). */
  APPROVAL_TTL_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(24 * 3600_000),
  /** How long a confirmation stays valid. */
  CONFIRM_TTL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(15 * 60_000),
  /** Past messages of the conversation given to the LLM. */
  HISTORY_MESSAGES: z.coerce.number().int().min(0).max(100).default(10),
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  OPENAI_API_KEY: z.string().optional(),
  LLM_MODEL: z.string().min(1).optional(),
  /** `azure` for Azure OpenAI's deployments API (`api-key` header; LLM_MODEL is the deployment). */
  LLM_API_STYLE: z.enum(['openai', 'azure']).default('openai'),
  AZURE_OPENAI_API_VERSION: z.string().default('2024-10-21'),
  /** Role of the instructions message; Azure OpenAI's reasoning models want `developer`. */
  LLM_SYSTEM_ROLE: z.enum(['system', 'developer']).default('system'),
  LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  /** Shown in `complete.llmModel` as `<provider>/<model>`. */
  LLM_PROVIDER: z.string().default('openai'),
  LLM_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * The longest a model endpoint may send nothing, its first byte included, before the call is
   * given up and fails over; 0: no such bound.
   */
  LLM_CHUNK_TIMEOUT_MS: z.coerce.number().int().min(0).default(5_000),
  /** Failures in a row after which a model endpoint is skipped (its circuit opens). */
  LLM_BREAKER_FAILURES: z.coerce.number().int().min(1).max(100).default(3),
  /** How long an open circuit skips its endpoint before one probe call may go. */
  LLM_BREAKER_COOLDOWN_MS: z.coerce.number().int().min(1_000).default(30_000),
  LLM_MAX_TOKENS_CHEAP: z.coerce.number().int().positive().default(2048),
  LLM_MAX_TOKENS_CAPABLE: z.coerce.number().int().positive().default(8192),
  LLM_MAX_TOKENS_CHAT: z.coerce.number().int().positive().default(512),
  MAX_ITERATIONS: z.coerce.number().int().min(1).max(50).default(10),
  /** Blocked retries of one write tool before the agent asks the user instead of trying again. */
  MAX_WRITE_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  VALIDATE_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  // Longer than the executor's write timeout (60 s) plus its idempotency grace, so a retry waits it out.
  EXECUTE_TIMEOUT_MS: z.coerce.number().int().positive().default(70_000),
  TOOLS_CACHE_MS: z.coerce.number().int().positive().default(30_000),
  AGENT_CONCURRENCY: z.coerce.number().int().positive().default(16),
  /**
   * How long a query may go unacknowledged before another agent instance takes it over (a running
   * one keeps it by heartbeat): how soon a dead instance's work, a confirmed write included, resumes.
   */
  AGENT_ACK_WAIT_MS: z.coerce.number().int().min(1_000).default(60_000),
  PERSONA_NAME: z.string().default('Munim'),
  PRODUCT_NAME: z.string().default('your books'),
  /** Images attached to a query go to the model: `on`, `off`, or `auto` (by the model's name). */
  LLM_VISION: z.enum(['auto', 'on', 'off']).default('auto'),
  /** Characters of attachment text given to the model per query. */
  LLM_ATTACHMENT_MAX_CHARS: z.coerce.number().int().min(1000).default(30_000),
  /** Where the gateway stored the attachments (the same settings as the gateway's). */
  ...AttachmentsEnvSchema.shape,
  /** The per-tenant model token quota (the same settings as the gateway's). */
  ...QuotaEnvSchema.pick({
    QUOTA_TOKENS_PER_WINDOW: true,
    QUOTA_WINDOW_MS: true,
    QUOTA_STORE_UNREACHABLE: true,
  }).shape,
}).superRefine(checkS3Keys);
export const loadEnv = (source: NodeJS.ProcessEnv = process.env) => parseEnv(EnvSchema, source);
