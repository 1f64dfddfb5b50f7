import { outboundFetch } from '@munim/kit';
import { jsonrepair } from 'jsonrepair';
import OpenAI from 'openai';

/** Asks an LLM, once, to turn broken JSON into JSON that fits a schema (seed 004 "AI auto-correction"). */
export interface JsonCorrector {
  /** The corrected value, or undefined when the model gave nothing usable (never throws). */
  correct(input: {
    text: string;
    errors: readonly string[];
    schema: unknown;
    what: string;
  }): Promise<unknown>;
}

export interface LlmCorrectorConfig {
  baseURL: string;
  apiKey?: string | undefined;
  model: string;
  timeoutMs: number;
}

/** Minimal logger the corrector writes to. */
interface WarnLog {
  warn(obj: object, msg: string): void;
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
    async correct({ text, errors, schema, what }) {
      try {
        const completion = await client.chat.completions.create({
          model: config.model,
          temperature: 0.1,
          messages: [
            { role: 'system', content: SYSTEM },
            {
              role: 'user',
              content: [
                `Correct this ${what}.`,
                `Validation errors:\n${errors.map((e) => `- ${e}`).join('\n')}`,
                `JSON Schema it must satisfy:\n${JSON.stringify(schema)}`,
                `Original:\n${text}`,
              ].join('\n\n'),
            },
          ],
        });
        const content = completion.choices[0]?.message.content;
        return typeof content === 'string' ? jsonFromReply(content) : undefined;
      } catch (error) {
        log?.warn({ err: error, what }, 'LLM JSON correction failed');
        return undefined;
      }
    },
  };
}
