import { z } from 'zod';
import { UsageSchema } from '../events.ts';
import { defineSubject } from '../subject.ts';
import { ToolDefinitionSchema } from '../tools.ts';

/**
 * A container: one tool group offered to the LLM as a single function that expands,
 * when called with no arguments, into the group's tools.
 */
export const ToolContainerSchema = z.object({
  /** The group's name, e.g. `invoices`: the function name the LLM sees. */
  name: z.string().min(1).max(128),
  description: z.string(),
  /** JSON Schema of the container function: an object with no properties. */
  inputSchema: z.record(z.string(), z.unknown()),
  /** The tools the container expands into. */
  functions: z.array(z.string()),
});
export type ToolContainer = z.infer<typeof ToolContainerSchema>;

/** What a call to a container name means (added to `ValidationResult` as `container`). */
export const ContainerVerdictSchema = z.object({
  name: z.string(),
  /** True: the call had no arguments, so offer `functions` from the next iteration. */
  expand: z.boolean(),
  functions: z.array(z.string()),
  /** The `container_invocation_error` response to hand the LLM when `expand` is false. */
  error: z
    .object({
      error_type: z.literal('container_invocation_error'),
      container_name: z.string(),
      attempted_parameters: z.unknown(),
      available_functions: z.array(z.string()),
      error_message: z.string(),
      retry_guidance: z.string(),
      suggested_function: z.string().optional(),
    })
    .optional(),
});
export type ContainerVerdict = z.infer<typeof ContainerVerdictSchema>;

export const ContainersRequestSchema = z.object({
  /** Collapse only these groups; all groups when absent. */
  groups: z.array(z.string()).optional(),
  /** Consider only these tools (e.g. the router's selection); the whole registry when absent. */
  tools: z.array(z.string()).optional(),
  /** Overrides the validator's `TOOL_COLLAPSE` setting for this request. */
  collapse: z.enum(['always', 'auto', 'never']).optional(),
});
export type ContainersRequest = z.infer<typeof ContainersRequestSchema>;

export const ContainersReplySchema = z.object({
  /** Whether the tools were collapsed (false: offer `tools` as they are). */
  collapsed: z.boolean(),
  containers: z.array(ToolContainerSchema),
  /** Tools offered as themselves: every tool when not collapsed, else those in no group. */
  tools: z.array(ToolDefinitionSchema),
});
export type ContainersReply = z.infer<typeof ContainersReplySchema>;

export const AnswerBlocksRequestSchema = z.object({
  /** The agent's final answer text, with its fenced `params`/`clarification`/`card` blocks. */
  text: z.string().max(400_000),
  /** The most model tokens the LLM corrections of the blocks may spend together (as `toolValidate`'s). */
  correctionTokens: z.number().int().nonnegative().optional(),
});
export type AnswerBlocksRequest = z.infer<typeof AnswerBlocksRequestSchema>;

export const AnswerBlocksReplySchema = z.object({
  /** The text with every block valid (repaired, corrected) or removed. */
  text: z.string(),
  /** `json_repaired`, `json_llm_corrected`, `json_block_removed` as they fired. */
  guardrails: z.array(z.string()),
  blocks: z.array(
    z.object({
      kind: z.string(),
      outcome: z.enum(['valid', 'repaired', 'llm_corrected', 'removed']),
    }),
  ),
  /** What the LLM corrections spent together (the endpoint's usage, else an estimate); absent when none was made. */
  correctionUsage: UsageSchema.optional(),
});
export type AnswerBlocksReply = z.infer<typeof AnswerBlocksReplySchema>;

export const toolsContainers = defineSubject({
  kind: 'request',
  subject: 'rpc.tools.containers',
  queue: 'validator',
  schema: ContainersRequestSchema,
  reply: ContainersReplySchema,
  description:
    'The tools to offer the LLM, collapsed into containers per tool group; answered by the validator.',
});

export const answerBlocks = defineSubject({
  kind: 'request',
  subject: 'rpc.answer.blocks',
  queue: 'validator',
  schema: AnswerBlocksRequestSchema,
  reply: AnswerBlocksReplySchema,
  description: 'Validates and repairs the JSON blocks of a final answer; answered by the validator.',
});
