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
}

/** The LLM could not be reached or answered with an error. */
export class LlmError extends Error {
  override name = 'LlmError';
  readonly status: number | undefined;
  constructor(message: string, status: number | undefined, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
  }
}

export interface Llm {
  /** `<provider>/<model>`, as reported in `complete.llmModel`. */
  readonly label: string;
  /** The model's own name (what decides, for LLM_VISION=auto, whether it sees images). */
  readonly model: string;
  /** One streamed chat turn; text deltas go to `onText` as they arrive. */
  turn(input: {
    messages: ChatCompletionMessageParam[];
    tools?: ChatCompletionFunctionTool[];
    maxTokens: number;
    temperature?: number;
    onText?: (text: string) => Promise<void>;
  }): Promise<LlmTurn>;
}

/** Any OpenAI-compatible chat-completions endpoint, through the `openai` client (it retries 429/5xx). */
export function createLlm(config: LlmConfig): Llm {
  const common = {
    // A redirect is refused, never followed: the key would go with the request somewhere else.
    fetch: outboundFetch({ allowlist: config.allowlist }),
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
    async turn({ messages, tools, maxTokens, temperature, onText }) {
      let sinkFailure: unknown;
      try {
        const stream = await client.chat.completions.create({
          model: config.model,
          messages: asRole(messages),
          ...(tools && tools.length > 0 ? { tools, tool_choice: 'auto' as const } : {}),
          max_tokens: maxTokens,
          ...(temperature !== undefined ? { temperature } : {}),
          stream: true,
          stream_options: { include_usage: true },
        });
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
          const delta = chunk.choices[0]?.delta;
          if (!delta) continue;
          if (delta.content) {
            content += delta.content;
            await onText?.(delta.content).catch((error: unknown) => {
              sinkFailure = error;
              throw error;
            });
          }
          for (const call of delta.tool_calls ?? []) {
            const entry = calls.get(call.index) ?? { id: '', name: '', arguments: '' };
            if (call.id) entry.id = call.id;
            if (call.function?.name) entry.name += call.function.name;
            if (call.function?.arguments) entry.arguments += call.function.arguments;
            calls.set(call.index, entry);
          }
        }
        return {
          content,
          toolCalls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c),
          usage,
        };
      } catch (error) {
        // Sending the text on failed, not the model: that error is the caller's own.
        if (sinkFailure !== undefined && error === sinkFailure) throw error;
        const status = error instanceof OpenAI.APIError ? error.status : undefined;
        throw new LlmError(error instanceof Error ? error.message : String(error), status, { cause: error });
      }
    },
  };
}
