import {
  CardChangeSchema,
  CardDetailSchema,
  McpToolResultSchema,
  RouteDecisionSchema,
  ToolContainerSchema,
  UsageSchema,
} from '@munim/contracts';
import { z } from 'zod';
import type { ChatCompletionMessageParam } from '../model/llm.ts';
import { AgentError } from '../run/errors.ts';
import type { PendingAction } from '../run/store.ts';

const ContentSchema = z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]);

/** The shape of each chat message the loop keeps: the roles it writes, with what each role needs. */
const MessageShapeSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.enum(['system', 'developer', 'user']), content: ContentSchema }),
  z.looseObject({
    role: z.literal('assistant'),
    content: ContentSchema.nullish(),
    tool_calls: z
      .array(
        z.looseObject({
          id: z.string(),
          type: z.literal('function'),
          function: z.object({ name: z.string(), arguments: z.string() }),
        }),
      )
      .optional(),
  }),
  z.looseObject({ role: z.literal('tool'), tool_call_id: z.string(), content: ContentSchema }),
]);

/** One chat message as stored, checked for its shape and typed as the model client takes it. */
const ChatMessageSchema = z.custom<ChatCompletionMessageParam>(
  (value) => MessageShapeSchema.safeParse(value).success,
  { message: 'not a chat message' },
);

/** The LLM loop as it stood when a write was put to the user, kept with the pending action. */
export const LoopStateSchema = z.object({
  messages: z.array(ChatMessageSchema),
  offered: z.array(z.string()),
  /** Tool containers still collapsed; states stored before containers existed have none. */
  containers: z.array(ToolContainerSchema).default([]),
  iterations: z.number().int().nonnegative(),
  usage: UsageSchema,
  toolResults: z.array(McpToolResultSchema),
  skippedToolCallIds: z.array(z.string()),
  query: z.string(),
  route: RouteDecisionSchema,
  /** The user's message did not ask for the proposed change (injected by something read). */
  unrequested: z.boolean().optional(),
  /** The record the change acts on, in words. */
  record: z.string().optional(),
  /** The confirmation card's facts and changes in words, shown again when it is asked again. */
  details: z.array(CardDetailSchema).optional(),
  changes: z.array(CardChangeSchema).optional(),
  /** The record of the books the change likely repeats, in words. */
  duplicateOf: z.object({ summary: z.string() }).optional(),
});
export type LoopState = z.infer<typeof LoopStateSchema>;

/** The loop state stored with a pending action does not parse: the request ends, nothing is run. */
export class PendingStateError extends AgentError {
  override name = 'PendingStateError';
  readonly actionId: string;
  constructor(actionId: string, options?: ErrorOptions) {
    super(
      'INTERNAL',
      'The saved details of this confirmation could not be read, so nothing was changed. Please ask again.',
      options,
    );
    this.actionId = actionId;
  }
}

/** The loop state of a pending action, parsed from what the database gave back. */
export function parseLoopState(pending: Pick<PendingAction, 'actionId' | 'state'>): LoopState {
  const parsed = LoopStateSchema.safeParse(pending.state);
  if (!parsed.success) throw new PendingStateError(pending.actionId, { cause: parsed.error });
  return parsed.data;
}
