import type { Usage } from '@munim/contracts';
import { estimateTokens, outboundFetch } from '@munim/kit';
import { jsonrepair } from 'jsonrepair';
import OpenAI from 'openai';

/** Asks an LLM, once, to turn broken JSON that jsonrepair could not fix into JSON that fits a schema. */
export interface JsonCorrector {
  /** The corrected value, or undefined when the model gave nothing usable (never throws). */
  correct(input: {
    text: string;
    errors: readonly string[];
    schema: unknown;
    what: string;
    /** What the corrections of this request may still spend; no bound when absent. */
    tokens?: CorrectionTokens | undefined;
  }): Promise<unknown>;
}

/**
 * The model tokens the LLM corrections of one request may spend (what the agent holds for them in
 * the tenant's quota; no bound when undefined) and have spent. A call holds its prompt's estimate
 * and its `max_tokens` before it is made, as the agent's own calls do, so corrections made at once
 * cannot together spend more than was held.
 */
export class CorrectionTokens {
  readonly #allowance: number | undefined;
  #held = 0;
  #calls = 0;
  readonly #spent: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };

  constructor(allowance?: number) {
    this.#allowance = allowance;
  }

  /** Holds `tokens` for one call; false (nothing held) when what is left cannot cover them. */
  hold(tokens: number): boolean {
    if (this.#allowance !== undefined && this.#held + this.#spent.total_tokens + tokens > this.#allowance)
      return false;
    this.#held += tokens;
    return true;
  }

  /** Replaces what a call held by what it spent. */
  settle(held: number, usage: Usage): void {
    this.#held -= held;
    this.#calls += 1;
    this.#spent.input_tokens += usage.input_tokens;
    this.#spent.output_tokens += usage.output_tokens;
    this.#spent.total_tokens += usage.total_tokens;
  }

  /** What the calls made spent together; undefined when none was made. */
  get usage(): Usage | undefined {
    return this.#calls > 0 ? { ...this.#spent } : undefined;
  }
}

export interface LlmCorrectorConfig {
  baseURL: string;
  apiKey?: string | undefined;
  model: string;
  timeoutMs: number;
  /** The `max_tokens` of one correction: its reply is a corrected copy of the arguments or block. */
  maxTokens: number;
}

/** Minimal logger the corrector writes to. */
interface WarnLog {
  warn(obj: object, msg: string): void;
}

/**
 * The usage the endpoint reported, or, when it reported none (some OpenAI-compatible servers send
 * none), the estimate of the prompt and the reply, so a correction is never counted as free.
 */
function reportedOrEstimated(
  reported: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | undefined,
  promptTokens: number,
  reply: string,
): Usage {
  if (reported && reported.total_tokens > 0)
    return {
      input_tokens: reported.prompt_tokens,
      output_tokens: reported.completion_tokens,
      total_tokens: reported.total_tokens,
    };
  const output = estimateTokens(reply);
  return { input_tokens: promptTokens, output_tokens: output, total_tokens: promptTokens + output };
}

const SYSTEM = [
  'You repair malformed JSON produced by another model.',
  'Reply with ONLY the corrected JSON value: no prose, no code fences.',
  'Keep every value that was given; fix syntax, types and field names so the result fits the schema.',
  'Never invent identifiers, amounts or dates that are not in the original.',
].join(' ');

/** The JSON in a model's reply, tolerating code fences and small syntax slips. */
export function jsonFromReply(reply: string): unknown {
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/.exec(reply);
  const body = (fenced?.[1] ?? reply).trim();
  try {
    return JSON.parse(body);
  } catch {
    return JSON.parse(jsonrepair(body));
  }
}

/** The corrector over any OpenAI-compatible chat-completions endpoint, at temperature 0.1. */
export function createLlmCorrector(config: LlmCorrectorConfig, log?: WarnLog): JsonCorrector {
  const client = new OpenAI({
    fetch: outboundFetch(),
    baseURL: config.baseURL,
    apiKey: config.apiKey ?? 'not-needed',
    timeout: config.timeoutMs,
    maxRetries: 0,
  });
  return {
    async correct({ text, errors, schema, what, tokens }) {
      const messages = [
        { role: 'system' as const, content: SYSTEM },
        {
          role: 'user' as const,
          content: [
            `Correct this ${what}.`,
            `Validation errors:\n${errors.map((e) => `- ${e}`).join('\n')}`,
            `JSON Schema it must satisfy:\n${JSON.stringify(schema)}`,
            `Original:\n${text}`,
          ].join('\n\n'),
        },
      ];
      const promptTokens = estimateTokens(JSON.stringify(messages));
      const held = promptTokens + config.maxTokens;
      if (tokens && !tokens.hold(held)) {
        log?.warn(
          { what, tokens: held },
          'LLM JSON correction not made: the tokens held for it in the tenant’s quota do not cover it',
        );
        return undefined;
      }
      let content: string | null | undefined;
      try {
        const completion = await client.chat.completions.create({
          model: config.model,
          temperature: 0.1,
          max_tokens: config.maxTokens,
          messages,
        });
        content = completion.choices[0]?.message.content;
        tokens?.settle(held, reportedOrEstimated(completion.usage, promptTokens, content ?? ''));
      } catch (error) {
        // A failed call may still have been billed for its prompt, so that much is counted.
        tokens?.settle(held, { input_tokens: promptTokens, output_tokens: 0, total_tokens: promptTokens });
        log?.warn({ err: error, what }, 'LLM JSON correction failed');
        return undefined;
      }
      try {
        return typeof content === 'string' ? jsonFromReply(content) : undefined;
      } catch (error) {
        log?.warn({ err: error, what }, 'LLM JSON correction is not JSON');
        return undefined;
      }
    },
  };
}
