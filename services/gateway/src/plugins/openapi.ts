import fastifySwagger from '@fastify/swagger';
import { HttpErrorSchema } from '@munim/contracts';
import type { FastifySchema } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';

/**
 * The JSON Schema (OpenAPI 3.0 dialect) of a zod schema: routes validate with the zod schema
 * itself, the description is generated from it, so the two cannot drift apart.
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

/** Route options that keep a route out of the published API description (documented in the README). */
export const HIDDEN = { hide: true } as const;

const REQUEST_PARTS = ['body', 'querystring', 'params', 'headers'] as const;

const toJson = (schema: unknown, io: 'input' | 'output') =>
  schema instanceof z.ZodType ? jsonSchema(schema, io) : schema;

/** A route schema with its zod parts as JSON Schema (requests as accepted, answers as sent). */
function describeRoute(schema: FastifySchema | undefined): FastifySchema | undefined {
  if (!schema || schema.hide) return schema;
  const described: Record<string, unknown> = { ...schema };
  for (const part of REQUEST_PARTS) {
    if (schema[part] !== undefined) described[part] = toJson(schema[part], 'input');
  }
  if (schema.response) {
    described.response = Object.fromEntries(
      Object.entries(schema.response as Record<string, unknown>).map(([code, answer]) => [
        code,
        toJson(answer, 'output'),
      ]),
    );
  }
  return described as FastifySchema;
}

/** Registers @fastify/swagger, describing the routes from their zod schemas, served at `/docs/json`. */
export const openApi = fp(
  async (app) => {
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
              description:
                'An API key from GATEWAY_API_KEYS or a JWT naming entity and org (when auth is on).',
            },
          },
        },
      },
      transform: ({ schema, url }) => ({ schema: describeRoute(schema) as never, url }),
    });
    app.get('/docs/json', { schema: HIDDEN }, async () => app.swagger());
  },
  { name: 'munim-openapi' },
);
