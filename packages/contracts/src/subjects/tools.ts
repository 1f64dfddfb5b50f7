import { z } from 'zod';
import { ErrorInfoSchema, FieldIssueSchema } from '../errors.ts';
import { UsageSchema } from '../events.ts';
import { defineSubject } from '../subject.ts';
import { BooksContextSchema } from '../tax-rules.ts';
import { ConfirmationTierSchema, ToolDefinitionSchema } from '../tools.ts';
import { ClosedPeriodSchema } from '../write-dates.ts';
import { ContainerVerdictSchema } from './validator.ts';

export const ValidateRequestSchema = z.object({
  tool: z.string().min(1).max(128),
  /** Parsed arguments; absent when the LLM sent text that is not JSON. */
  args: z.unknown().optional(),
  /** The arguments exactly as the LLM sent them, when they did not parse. */
  rawArgs: z.string().max(200_000).optional(),
  callId: z.string().max(128),
  /** 1 for the first attempt at this tool in this request, 2 for the next, … */
  attempt: z.number().int().positive(),
  /**
   * The most model tokens an LLM correction of the arguments may spend: what the agent holds for it
   * in the tenant's token quota. A correction that could spend more is not made; no bound when absent.
   */
  correctionTokens: z.number().int().nonnegative().optional(),
  /**
   * The business whose books the call writes to, with its country's tax rules in force by date: the
   * validator checks a write's tax identifiers, rates, place of supply and line arithmetic against
   * it (the validator has no database). Without it only the arithmetic of a document is checked.
   */
  books: BooksContextSchema.optional(),
  /**
   * The tenant's closed period: a write dated on or before its lock date (an undated one counts as
   * dated today) is blocked with `period_locked`. Absent: the books have no lock date.
   */
  closedUpTo: ClosedPeriodSchema.optional(),
});
export type ValidateRequest = z.infer<typeof ValidateRequestSchema>;

export const ValidationResultSchema = z.object({
  tool: z.string(),
  status: z.enum(['passed', 'blocked']),
  isWrite: z.boolean(),
  /** The arguments to execute (after JSON repair), present when passed. */
  args: z.record(z.string(), z.unknown()).optional(),
  missingFields: z.array(z.string()),
  fieldsValidated: z.array(z.string()),
  issues: z.array(FieldIssueSchema),
  /** What the LLM is told when blocked: what is wrong and which tool supplies what is missing. */
  message: z.string(),
  /** Read tools that supply the missing data; offered to the LLM on its next turn. */
  suggestedTools: z.array(z.string()),
  tier: ConfirmationTierSchema,
  /** Canonical SHA-256 of the arguments, for confirmation and idempotency. */
  argsHash: z.string(),
  /** Guardrails that fired while validating, e.g. `json_repaired`. */
  guardrails: z.array(z.string()),
  durationMs: z.number().nonnegative(),
  /** Plain-words questions for the user about what is missing, when blocked. */
  questions: z.array(z.string()).optional(),
  /** Set when the call named a container: expand it, or hand the LLM `container.error`. */
  container: ContainerVerdictSchema.optional(),
  /** What an LLM correction of the arguments spent (the endpoint's usage, else an estimate); absent when none was made. */
  correctionUsage: UsageSchema.optional(),
});
export type ValidationResult = z.infer<typeof ValidationResultSchema>;

export const ExecuteRequestSchema = z.object({
  tool: z.string().min(1).max(128),
  args: z.record(z.string(), z.unknown()),
  callId: z.string().max(128),
  isWrite: z.boolean(),
  argsHash: z.string(),
  /**
   * For a write: the pending action the user approved for exactly this call (tenant, tool, argument
   * hash). The executor checks it in PostgreSQL; a write without it runs only when the operator's
   * tool policy exempts it from confirmation (tier 0).
   */
  approvalId: z.string().min(1).max(128).optional(),
});
export type ExecuteRequest = z.infer<typeof ExecuteRequestSchema>;

export const ExecutionResultSchema = z.object({
  tool: z.string(),
  success: z.boolean(),
  result: z.unknown().optional(),
  error: ErrorInfoSchema.optional(),
  truncated: z.boolean(),
  durationMs: z.number().nonnegative(),
  /** For writes: the idempotency outcome; `unknown` means it may or may not have run. */
  outcome: z.enum(['succeeded', 'failed', 'unknown']).optional(),
  /** True when the outcome came from the idempotency store instead of a new MCP call. */
  replayed: z.boolean().optional(),
});
export type ExecutionResult = z.infer<typeof ExecutionResultSchema>;

export const ToolListSchema = z.object({ tools: z.array(ToolDefinitionSchema) });
export type ToolList = z.infer<typeof ToolListSchema>;

export const toolValidate = defineSubject({
  kind: 'request',
  subject: 'rpc.tool.validate',
  queue: 'validator',
  schema: ValidateRequestSchema,
  reply: ValidationResultSchema,
  description: 'Check one tool call before it may run; answered by the validator.',
});

export const toolExecute = defineSubject({
  kind: 'request',
  subject: 'rpc.tool.execute',
  queue: 'mcp-executor',
  schema: ExecuteRequestSchema,
  reply: ExecutionResultSchema,
  description: 'Run one validated tool call on the MCP server; answered by the MCP executor.',
});

export const toolsList = defineSubject({
  kind: 'request',
  subject: 'rpc.tools.list',
  queue: 'mcp-executor',
  schema: z.object({}),
  reply: ToolListSchema,
  description: 'The tool registry as the MCP server reports it; answered by the MCP executor.',
});
