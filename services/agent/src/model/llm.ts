import { AsyncLocalStorage } from 'node:async_hooks';
import type { Usage } from '@munim/contracts';
import { type EndpointAllowlist, outboundFetch } from '@munim/kit';
import OpenAI, { AzureOpenAI } from 'openai';
import type {
  ChatCompletionContentPart,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions/completions';

export type { ChatCompletionContentPart, ChatCompletionFunctionTool, ChatCompletionMessageParam };

export interface LlmConfig {
  baseURL: string;
  apiKey: string | undefined;
  /** The model, or the deployment name on Azure. */
  model: string;
  provider: string;
  timeoutMs: number;
  /** `azure`: Azure OpenAI's deployments API with the `api-key` header. */
  apiStyle?: 'openai' | 'azure';
  azureApiVersion?: string;
  /** Role of the instructions message; Azure's newer models want `developer`. */
  systemRole?: 'system' | 'developer';
  /** Retries on 429 and 5xx, with the client's exponential backoff (it honours Retry-After). */
  maxRetries?: number;
  /**
   * The longest the endpoint may go without sending anything: until the answer's headers, then
   * between its chunks (the client's backoff before a retry is not counted). Unset: no bound
   * other than `timeoutMs`.
   */
  chunkTimeoutMs?: number | undefined;
  /**
   * For an endpoint people saved (a model configuration row): only public addresses and these may
   * be reached, checked as each connection is made. The environment's own endpoint is not checked.
   */
  allowlist?: EndpointAllowlist | undefined;
}

export interface LlmToolCall {
  id: string;
  name: string;
  /** The arguments exactly as the model sent them (possibly not JSON). */
  arguments: string;
}

export interface LlmTurn {
  content: string;
  toolCalls: LlmToolCall[];
  usage: Usage;
  /** `<provider>/<model>` of the model that answered, when another than the `Llm`'s label (a fallback). */
  label?: string;
}

/**
 * How a call failed: `status` (the endpoint answered an HTTP error), `connection` (refused, reset,
 * dropped mid-stream), `timeout` (the whole call took longer than its bound), `stalled` (nothing
 * came for the chunk timeout).
 */
export type LlmFailure = 'status' | 'connection' | 'timeout' | 'stalled';

/** The LLM could not be reached or answered with an error. */
export class LlmError extends Error {
  override name = 'LlmError';
  readonly status: number | undefined;
  readonly kind: LlmFailure;
  constructor(
    message: string,
    status: number | undefined,
    options?: ErrorOptions & { kind?: LlmFailure | undefined },
  ) {
    super(message, options);
    this.status = status;
    this.kind = options?.kind ?? (status === undefined ? 'connection' : 'status');
  }
}

export interface Llm {
  /** `<provider>/<model>`, as reported in `complete.llmModel`. */
  readonly label: string;
  /** The model's own name (what decides, for LLM_VISION=auto, whether it sees images). */
  readonly model: string;
  /** Where it is served: the base URL and the model, what a circuit breaker is kept for. */
  readonly endpoint?: string;
  /** One streamed chat turn; text deltas go to `onText` as they arrive. */
  turn(input: {
    messages: ChatCompletionMessageParam[];
    tools?: ChatCompletionFunctionTool[];
    maxTokens: number;
    temperature?: number;
    onText?: (text: string) => Promise<void>;
    /**
     * Text given to `onText` is void: the call failed after it and another model answers instead,
     * for this `reason` (words for the person reading). Unset: such text stays where it went.
     */
    onRestart?: (reason: string) => Promise<void>;
  }): Promise<LlmTurn>;
}

/** The watch on one call's silence: armed while the endpoint owes an answer or a chunk. */
class Watchdog {
  stalled = false;
  readonly controller = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  readonly #ms: number;
  constructor(ms: number) {
    this.#ms = ms;
  }
  arm(): void {
    this.disarm();
    this.#timer = setTimeout(() => {
      this.stalled = true;
      this.controller.abort();
    }, this.#ms);
  }
  disarm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** A base URL as logs and metrics may show it: no credentials, no query. */
function endpointName(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    return `${url.origin}${url.pathname}`;
  } catch {
    return baseURL;
  }
}

/** The call whose attempts the client's fetch is making (each call runs in its own). */
const attempts = new AsyncLocalStorage<Watchdog>();

/** Any OpenAI-compatible chat-completions endpoint, through the `openai` client (it retries 429/5xx). */
export function createLlm(config: LlmConfig): Llm {
  // A redirect is refused, never followed: the key would go with the request somewhere else.
  const outbound = outboundFetch({ allowlist: config.allowlist });
  const watchedFetch: typeof fetch = async (input, init) => {
    const dog = attempts.getStore();
    dog?.arm();
    try {
      const response = await outbound(input, init);
      // Headers came: now each chunk is waited for. An error answer: the client may back off.
      if (response.ok) dog?.arm();
      else dog?.disarm();
      return response;
    } catch (error) {
      dog?.disarm();
      throw error;
    }
  };
  const common = {
    fetch: watchedFetch,
    apiKey: config.apiKey ?? 'not-needed',
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries ?? 2,
  };
  const client =
    config.apiStyle === 'azure'
      ? new AzureOpenAI({
          ...common,
          endpoint: config.baseURL,
          deployment: config.model,
          apiVersion: config.azureApiVersion ?? '2024-10-21',
        })
      : new OpenAI({ ...common, baseURL: config.baseURL });
  const asRole = (messages: ChatCompletionMessageParam[]): ChatCompletionMessageParam[] =>
    config.systemRole === 'developer'
      ? messages.map((m) => (m.role === 'system' ? { ...m, role: 'developer' as const } : m))
      : messages;
  return {
    label: `${config.provider}/${config.model}`,
    model: config.model,
    endpoint: `${endpointName(config.baseURL)}#${config.model}`,
    async turn({ messages, tools, maxTokens, temperature, onText }) {
      let sinkFailure: unknown;
      const dog = config.chunkTimeoutMs ? new Watchdog(config.chunkTimeoutMs) : undefined;
      try {
        const request = () =>
          client.chat.completions.create(
            {
              model: config.model,
              messages: asRole(messages),
              ...(tools && tools.length > 0 ? { tools, tool_choice: 'auto' as const } : {}),
              max_tokens: maxTokens,
              ...(temperature !== undefined ? { temperature } : {}),
              stream: true,
              stream_options: { include_usage: true },
            },
            dog ? { signal: dog.controller.signal } : {},
          );
        const stream = await (dog ? attempts.run(dog, request) : request());
        let content = '';
        const calls = new Map<number, LlmToolCall>();
        let usage: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
        for await (const chunk of stream) {
          if (chunk.usage) {
            usage = {
              input_tokens: chunk.usage.prompt_tokens,
              output_tokens: chunk.usage.completion_tokens,
              total_tokens: chunk.usage.total_tokens,
            };
          }
          dog?.arm();
          const delta = chunk.choices[0]?.delta;
          if (!delta) continue;
          if (delta.content) {
            content += delta.content;
            // Our own sending of the text is not the endpoint's silence.
            dog?.disarm();
            await onText?.(delta.content).catch((error: unknown) => {
              sinkFailure = error;
              throw error;
            });
            dog?.arm();
          }
          for (const call of delta.tool_calls ?? []) {
            const entry = calls.get(call.index) ?? { id: '', name: '', arguments: '' };
            if (call.id) entry.id = call.id;
            if (call.function?.name) entry.name += call.function.name;
            if (call.function?.arguments) entry.arguments += call.function.arguments;
            calls.set(call.index, entry);
          }
        }
        // The client ends a stream its signal aborted as if it were complete: it was not.
        if (dog?.stalled) throw new Error('stalled');
        return {
          content,
          toolCalls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c),
          usage,
        };
      } catch (error) {
        // Sending the text on failed, not the model: that error is the caller's own.
        if (sinkFailure !== undefined && error === sinkFailure) throw error;
        if (dog?.stalled) {
          throw new LlmError(`no answer from the model for ${config.chunkTimeoutMs} ms`, undefined, {
            cause: error,
            kind: 'stalled',
          });
        }
        const status = error instanceof OpenAI.APIError ? error.status : undefined;
        const kind = error instanceof OpenAI.APIConnectionTimeoutError ? 'timeout' : undefined;
        throw new LlmError(error instanceof Error ? error.message : String(error), status, {
          cause: error,
          kind,
        });
      } finally {
        dog?.disarm();
      }
    },
  };
}
