import { GenerateRequestSchema, IntentInputSchema } from '@munim/contracts';
import { outboundFetch } from '@munim/kit';
import type { FastifyPluginAsync } from 'fastify';
import OpenAI from 'openai';
import { z } from 'zod';
import type { GatewayContext } from '../context.ts';
import { fieldIssues, HttpRefusal, httpError, noDatabase } from '../http-errors.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { flowProblems, insertIntent, intentsChangedPublisher, registryKinds } from './intent-store.ts';

const ModelAnswerSchema = z.object({ intents: z.array(z.unknown()).min(1) });

/** The model's answer was not the JSON asked for. */
export class GenerationError extends Error {
  override name = 'GenerationError';
}

function systemPrompt(count: number, tools: readonly string[]): string {
  return [
    `You design intents for a financial assistant. Draft exactly ${count} intent(s) from the administrator's description.`,
    'Answer with one JSON object and nothing else: {"intents": [ ... ]}, each intent being',
    '{"name": string, "description": string, "trainingPhrases": string[] (5-10 varied user phrasings),',
    '"entities": [{"name": string, "type": string, "required": boolean}],',
    '"resolutionFlow": [{"tool": string, "args": object, "description": string, "purpose": string}],',
    '"responseFormat": "table" | "report" | "narrative"}.',
    `Use only these tools in resolutionFlow: ${tools.join(', ')}.`,
  ].join('\n');
}

/** Parses the JSON object in a model answer, tolerating a fenced code block around it. */
function parseAnswer(text: string): unknown[] {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const raw = (fenced?.[1] ?? text).trim();
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new GenerationError('the model did not answer with JSON', { cause: error });
  }
  const parsed = ModelAnswerSchema.safeParse(Array.isArray(value) ? { intents: value } : value);
  if (!parsed.success) throw new GenerationError('the model answer has no intents');
  return parsed.data.intents;
}

/**
 * `POST /v1/admin/intents/generate`: drafts one intent or up to ten from a plain description with the LLM; each is validated against
 * the intent schema and the live tool registry and saved as an inactive draft, or reported as rejected.
 */
export const generateRoutes: FastifyPluginAsync<GatewayContext> = async (app, ctx) => {
  const { db, config } = ctx;
  const announce = intentsChangedPublisher(ctx);
  const client =
    config.OPENAI_BASE_URL && config.LLM_MODEL
      ? new OpenAI({
          fetch: outboundFetch(),
          baseURL: config.OPENAI_BASE_URL,
          apiKey: config.OPENAI_API_KEY ?? 'none',
          maxRetries: 1,
        })
      : undefined;

  const schema = { ...HIDDEN, body: GenerateRequestSchema };
  app
    .withTypeProvider<ZodTypeProvider>()
    .post('/v1/admin/intents/generate', { schema }, async (request, reply) => {
      const { body } = request;
      if (!db) throw noDatabase('Intent generation');
      if (!client || !config.LLM_MODEL) {
        throw new HttpRefusal(
          503,
          httpError('NO_MODEL_CONFIGURED', 'No model is configured: set OPENAI_BASE_URL and LLM_MODEL.'),
        );
      }
      // Intents hold reads only: the model is shown the read tools alone.
      const kinds = await registryKinds(ctx, db);
      const reads = [...(kinds ?? new Map<string, boolean>())]
        .filter(([, writes]) => !writes)
        .map(([name]) => name)
        .sort();
      let drafts: unknown[];
      try {
        const completion = await client.chat.completions.create({
          model: config.LLM_MODEL,
          temperature: 0.2,
          messages: [
            {
              role: 'system',
              content: systemPrompt(body.count, reads),
            },
            { role: 'user', content: body.description },
          ],
        });
        drafts = parseAnswer(completion.choices[0]?.message.content ?? '').slice(0, body.count);
      } catch (error) {
        request.log.warn({ err: error }, 'intent generation failed');
        const message =
          error instanceof GenerationError
            ? `The model's answer could not be used: ${error.message}.`
            : 'The model could not be reached; try again shortly.';
        throw new HttpRefusal(
          502,
          httpError(error instanceof GenerationError ? 'LLM_ERROR' : 'LLM_UNAVAILABLE', message),
        );
      }

      const created = [];
      const rejected = [];
      for (const [index, draft] of drafts.entries()) {
        const name = (draft as { name?: unknown } | null)?.name;
        // A draft is the model's output, not a request part: each is checked on its own.
        const parsed = IntentInputSchema.safeParse(
          draft && typeof draft === 'object' ? { ...draft, id: undefined, isActive: false } : draft,
        );
        if (!parsed.success) {
          rejected.push({
            index,
            name: typeof name === 'string' ? name : null,
            issues: fieldIssues(parsed.error.issues),
          });
          continue;
        }
        const problems = await flowProblems(ctx, db, parsed.data.resolutionFlow);
        if (problems === null || problems.length > 0) {
          const issues = problems ?? [
            { field: 'resolutionFlow', message: 'the tool registry cannot be read' },
          ];
          rejected.push({ index, name: parsed.data.name, issues });
          continue;
        }
        const row = await insertIntent(db, parsed.data);
        if (!row) {
          rejected.push({
            index,
            name: parsed.data.name,
            issues: [{ field: 'name', message: 'exists already' }],
          });
          continue;
        }
        created.push({
          id: row.id,
          name: row.name,
          isActive: row.is_active,
          trainingPhrases: row.training_phrases,
        });
      }
      if (created.length > 0) announce({ reason: 'generated', intentIds: created.map((c) => c.id) });
      return reply.code(created.length > 0 ? 201 : 422).send({ created, rejected });
    });
};
