// Builders for OpenAI-shaped chat-completion bodies, stream chunks and errors.
import type { ChatRequest, ScriptedToolCall } from './types.ts';

export interface ToolCallOut {
  id: string;
  name: string;
  arguments: string;
}

export interface AnswerOut {
  content: string | null;
  toolCalls: ToolCallOut[];
  /** How `content` is streamed; one delta per word when absent. */
  deltas?: string[] | undefined;
}

export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

export const SYSTEM_FINGERPRINT = 'fp_scripted_llm';

/** object → JSON text; string → sent raw (may be malformed on purpose); undefined → '{}'. */
export function argumentsText(args: unknown): string {
  if (typeof args === 'string') return args;
  if (args === undefined) return '{}';
  return JSON.stringify(args);
}

export function toolCallsOut(calls: ScriptedToolCall[], nextId: () => string): ToolCallOut[] {
  return calls.map((call) => ({
    id: call.id ?? nextId(),
    name: call.name,
    arguments: argumentsText(call.arguments),
  }));
}

/** Deterministic token estimate: ceil(chars / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function usageFor(req: ChatRequest, answer: AnswerOut): Usage {
  const prompt = JSON.stringify(req.messages ?? []) + (req.tools ? JSON.stringify(req.tools) : '');
  const output = (answer.content ?? '') + answer.toolCalls.map((c) => c.name + c.arguments).join('');
  const prompt_tokens = estimateTokens(prompt);
  const completion_tokens = estimateTokens(output);
  return {
    prompt_tokens,
    completion_tokens,
    total_tokens: prompt_tokens + completion_tokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

function finishReason(answer: AnswerOut): 'stop' | 'tool_calls' {
  return answer.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

/** The text delta a stream chunk carries ('' for none). */
export function chunkText(chunk: Record<string, unknown>): string {
  const choices = chunk.choices as { delta?: { content?: unknown } }[] | undefined;
  const content = choices?.[0]?.delta?.content;
  return typeof content === 'string' ? content : '';
}

/** A non-streaming `chat.completion` body. */
export function completionBody(
  meta: CompletionMeta,
  answer: AnswerOut,
  usage: Usage,
): Record<string, unknown> {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: answer.content,
    refusal: null,
    annotations: [],
  };
  if (answer.toolCalls.length > 0) {
    message.tool_calls = answer.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(answer) }],
    usage,
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
  };
}

/** Splits text into word-sized deltas (each word with its leading whitespace); joins back to `text`. */
export function splitWords(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

/** Splits tool-call arguments into up to `pieces` deltas (by code point); joins back to `text`. */
export function splitArguments(text: string, pieces = 5): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  const size = Math.max(1, Math.ceil(chars.length / pieces));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/** The `chat.completion.chunk` objects of a streamed answer, without the trailing `[DONE]`. */
export function streamChunks(
  meta: CompletionMeta,
  answer: AnswerOut,
  usage: Usage | undefined,
): Record<string, unknown>[] {
  const base = {
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
  };
  const includeUsage = usage !== undefined;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });

  const chunks: Record<string, unknown>[] = [];
  const hasText = answer.content !== null && answer.content !== '';
  chunks.push(
    chunk({
      role: 'assistant',
      content: hasText || answer.toolCalls.length === 0 ? '' : null,
      refusal: null,
    }),
  );
  if (answer.content) {
    for (const piece of answer.deltas ?? splitWords(answer.content)) chunks.push(chunk({ content: piece }));
  }
  for (const [index, call] of answer.toolCalls.entries()) {
    chunks.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const piece of splitArguments(call.arguments)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  }
  chunks.push(chunk({}, finishReason(answer)));
  if (usage) chunks.push({ ...base, choices: [], usage });
  return chunks;
}

export function defaultErrorType(status: number): string {
  if (status === 429) return 'requests';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** OpenAI's error body shape. */
export function errorBody(
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
): { error: { message: string; type: string; param: string | null; code: string | null } } {
  return { error: { message, type, param, code } };
}
