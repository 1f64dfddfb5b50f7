import { z } from 'zod';
import { changeSchema, changesSomething } from './change.ts';

/**
 * Why a chat endpoint cannot serve the OpenAI chat-completions API, or null when it can:
 * not http(s), a Supabase URL, or an Anthropic-style `/v1/messages` endpoint.
 */
export function llmEndpointProblem(endpoint: string): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'must be an http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL';
  if (/(^|\.)supabase\.(co|in|net)$/i.test(url.hostname) || /\/functions\/v1(\/|$)/.test(url.pathname)) {
    return 'is a Supabase URL, not an OpenAI-compatible chat endpoint';
  }
  if (/\/messages\/?$/i.test(url.pathname)) {
    return 'is an Anthropic-style /v1/messages endpoint; an OpenAI-compatible chat-completions endpoint is needed';
  }
  return null;
}

const EndpointSchema = z
  .string()
  .trim()
  .max(2000)
  .superRefine((value, ctx) => {
    const problem = llmEndpointProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** Most fallbacks one configuration lists (the database holds no more). */
const MAX_LLM_FALLBACKS = 8;

/**
 * The configurations a call fails over to, in order, when this one is the default and fails
 * (connection error, 429, 5xx, timeout, a stream that stalls): ids of other configurations, each once.
 */
const FallbacksSchema = z
  .array(z.number().int().positive())
  .max(MAX_LLM_FALLBACKS)
  .refine((ids) => new Set(ids).size === ids.length, { message: 'lists a configuration twice' });

/** A model configuration as an administrator writes it; the key is write-only. */
export const LlmConfigInputSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    provider: z.string().trim().min(1).max(100),
    model: z.string().trim().min(1).max(200),
    endpoint: EndpointSchema,
    apiStyle: z.enum(['openai', 'azure']).default('openai'),
    apiKey: z.string().min(1).max(4000).optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    maxTokens: z.number().int().positive().max(1_000_000).nullable().optional(),
    isDefault: z.boolean().default(false),
    fallbacks: FallbacksSchema.optional(),
  })
  .strict();

/**
 * A change to a configuration: any field, at least one; what it leaves out stays as it is (a change
 * of the model alone keeps an Azure configuration Azure); `apiKey: null` removes the key.
 */
export const LlmConfigUpdateSchema = changeSchema(
  LlmConfigInputSchema.omit({ apiKey: true, isDefault: true }),
)
  .extend({ apiKey: z.string().min(1).max(4000).nullable().optional() })
  .strict()
  .refine(changesSomething, { message: 'must change at least one field' });

/** Path of `/v1/admin/llm-configs/:id…`. */
export const LlmConfigParamsSchema = z.object({ id: z.coerce.number().int().positive() }).strict();
