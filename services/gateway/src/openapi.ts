import fastifySwagger from '@fastify/swagger';
import { HttpErrorSchema } from '@munim/contracts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

/**
 * The JSON Schema (OpenAPI 3.0 dialect) of a zod schema: the handlers validate with the zod schema
 * itself, this copy only documents it, so the two cannot drift apart.
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    io,
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
}

/** The documented error answer for the given status codes. */
export function errorResponses(...codes: number[]): Record<number, unknown> {
  const error = {
    description: 'An error (contracts HttpErrorSchema)',
    ...jsonSchema(HttpErrorSchema, 'output'),
  };
  return Object.fromEntries(codes.map((code) => [code, error]));
}

/** A `text/event-stream` success answer. */
export const SSE_RESPONSE = {
  description:
    'Server-Sent Events: `id: <sequence>`, `event: <type>`, `data: <json>`; first `connected`, last `complete` or `error`.',
  content: { 'text/event-stream': { schema: { type: 'string' } } },
};

/** Bearer security scheme name used in route docs. */
export const SECURITY = [{ bearer: [] }];

/**
 * Registers @fastify/swagger and serves the description at `/docs/json`. Route schemas are
 * documentation only: request validation stays with the zod schemas in the handlers (so the error
 * bodies keep their shape) and answers are serialised with plain JSON.stringify.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'munim gateway',
        description:
          'HTTP API of munim, the AI CFO agent: queries streamed as SSE, replays, conversations, feedback.',
        version: '0.1.0',
      },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key from GATEWAY_API_KEYS or a JWT naming entity and org (when auth is on).',
          },
        },
      },
    },
  });
  app.get('/docs/json', { schema: { hide: true } }, async () => app.swagger());
}
