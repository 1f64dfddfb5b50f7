import { RequestFailedError } from '@munim/bus';
import { CodedError, type ErrorCode } from '@munim/contracts';
import { LlmError } from '../model/llm.ts';
import { ConversationForbiddenError } from './store.ts';

/** A failure that ends the request with an `error` event fit for the user. */
export class AgentError extends CodedError {
  override name = 'AgentError';
}

/** Why an LLM-path query cannot be answered without a model. */
export const NO_MODEL_MESSAGE =
  'No language model is configured, so I can only answer questions that match a known report or list. ' +
  'Set OPENAI_BASE_URL, OPENAI_API_KEY and LLM_MODEL to enable everything else.';

/** The `error` event a failure ends its request with. */
export function toUserError(error: unknown): { code: ErrorCode; message: string } {
  if (error instanceof AgentError) return { code: error.code, message: error.message };
  if (error instanceof ConversationForbiddenError) return { code: 'FORBIDDEN', message: error.message };
  if (error instanceof LlmError) {
    return {
      code: 'LLM_UNAVAILABLE',
      message: 'The language model is not reachable right now. Please try again shortly.',
    };
  }
  if (error instanceof RequestFailedError) {
    if (error.code === 'TIMEOUT')
      return { code: 'TIMEOUT', message: 'That took too long. Please try again.' };
    return {
      code: 'SERVICE_UNAVAILABLE',
      message: "I couldn't complete that right now. Please try again shortly.",
    };
  }
  return { code: 'INTERNAL', message: "I couldn't complete that right now." };
}
