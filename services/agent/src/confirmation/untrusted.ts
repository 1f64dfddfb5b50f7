import type { ChatCompletionMessageParam } from '../model/llm.ts';
import { ordersIn } from './requested.ts';

/** What a turn read that can put words in the model's mouth: a file, or a tool result giving orders. */
export type UntrustedRead = 'attachment' | 'instructions';

/** The header the agent writes before a file's text (attachments.ts); file text cannot forge it. */
const ATTACHMENT_HEADER = /<attachment id="/;

/** Wording aimed at a model rather than a reader of the books. */
const INJECTION =
  /\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}\b(?:instructions?|rules|prompts?|above|previous|prior|earlier)\b|\b(?:system prompt|you are now|new instructions?|as an ai|developer mode)\b|\b(?:assistant|system)\s*:|<\|im_start\|>|\[\/?inst\]|निर्देश/i;

/** Strings of a tool's answer long enough to say something (three words or more). */
function prose(value: unknown, into: string[], depth = 0): string[] {
  if (typeof value === 'string') {
    if (value.trim().split(/\s+/, 3).length === 3) into.push(value);
  } else if (depth < 20 && typeof value === 'object' && value !== null) {
    for (const v of Array.isArray(value) ? value : Object.values(value)) prose(v, into, depth + 1);
  }
  return into;
}

function parsed(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

const textOf = (message: ChatCompletionMessageParam): string => {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('\n');
};

/** Whether a tool's answer gives orders: a model-aimed phrase, or a sentence ordering a change. */
export function givesInstructions(toolContent: string): boolean {
  return prose(parsed(toolContent), []).some((text) => INJECTION.test(text) || ordersIn(text).length > 0);
}

/**
 * What of `messages` (the turn's conversation as the model has it) could have led it to propose a
 * write the user never typed: a file's text (this turn's or an earlier one's), or a tool result
 * that gives orders. A write proposed after either is confirmed by typing, however it is phrased.
 */
export function untrustedRead(messages: readonly ChatCompletionMessageParam[]): UntrustedRead | undefined {
  if (messages.some((m) => (m.role === 'user' || m.role === 'system') && ATTACHMENT_HEADER.test(textOf(m))))
    return 'attachment';
  if (messages.some((m) => m.role === 'tool' && givesInstructions(textOf(m)))) return 'instructions';
  return undefined;
}
