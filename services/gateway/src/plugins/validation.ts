import type { FastifyTypeProvider } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import { HttpRefusal, httpError, validationError } from '../http-errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A request without a body is refused (`body: is required`) instead of being read as `{}`. */
    bodyRequired?: boolean;
  }
}

/** Request parts typed by the zod schemas of a route (`params`, `querystring`, `body`). */
export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown;
  serializer: this['schema'] extends z.ZodType ? z.input<this['schema']> : unknown;
}

const isZod = (schema: unknown): schema is z.ZodType => schema instanceof z.ZodType;

/**
 * Stands for the body a request did not send, where its route requires one: fastify hands the
 * validator null both for no body and for a JSON `null`, which get different answers.
 */
const MISSING_BODY = Symbol('missing body');

/**
 * Validates every request part a route gives a zod schema for, answering 400 with the contracts
 * HttpError body (first offending field, every issue); the parsed value (coerced, defaulted)
 * replaces the part. A plain JSON Schema only documents a part its handler reads itself.
 * Answers are serialised with JSON.stringify: response schemas document them, nothing more.
 */
export const validation = fp(
  async (app) => {
    app.setValidatorCompiler(({ schema }) => {
      if (!isZod(schema)) return () => true;
      return (data) => {
        if (data === MISSING_BODY) {
          return {
            error: new HttpRefusal(400, httpError('BAD_REQUEST', 'body: is required', { field: 'body' })),
          };
        }
        const parsed = schema.safeParse(data);
        return parsed.success
          ? { value: parsed.data }
          : { error: new HttpRefusal(400, validationError(parsed.error.issues)) };
      };
    });
    app.setSerializerCompiler(() => (data) => JSON.stringify(data));
    // Marked here, refused by the validator: validation runs after every preValidation hook, so a
    // rate-limited request still gets 429 first. Elsewhere no body (or null) reads as {}, so the
    // answer names the missing fields.
    app.addHook('preValidation', async (request) => {
      if (!request.routeOptions.schema?.body) return;
      if (request.routeOptions.config.bodyRequired) {
        if (request.body === undefined) request.body = MISSING_BODY;
        return;
      }
      request.body ??= {};
    });
  },
  { name: 'munim-validation' },
);
