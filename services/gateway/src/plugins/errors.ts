import { StorageError } from '@munim/attachments';
import type { FastifyError } from 'fastify';
import fp from 'fastify-plugin';
import { HttpRefusal, httpError } from '../http-errors.ts';

export interface ErrorsOptions {
  /** The body limit, named in the answer to a body above it. */
  bodyLimitBytes: number;
}

/**
 * The one error handler: a thrown HttpRefusal (validation, tenant checks, uploads, quotas) is its
 * own answer; fastify's own errors get the contracts HttpError body (`/mcp` a JSON-RPC error);
 * anything else is a logged 500. Unknown routes get 404.
 */
export const errors = fp<ErrorsOptions>(
  async (app, { bodyLimitBytes }) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      if (error instanceof HttpRefusal)
        return reply.code(error.status).headers(error.headers).send(error.body);
      if (error instanceof StorageError) {
        request.log.error({ err: error }, 'attachment storage failed');
        return reply
          .code(503)
          .send(
            httpError('SERVICE_UNAVAILABLE', 'The attachment storage is not reachable; try again shortly.'),
          );
      }
      const status = error.statusCode ?? 500;
      if (status === 429) {
        return reply.code(429).send(httpError('RATE_LIMITED', error.message));
      }
      if (request.url.startsWith('/mcp') && status < 500) {
        return reply.code(400).send({
          jsonrpc: '2.0',
          error: { code: -32700, message: `Parse error: ${error.message}` },
          id: null,
        });
      }
      switch (error.code) {
        case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
          return reply
            .code(400)
            .send(
              httpError('BAD_REQUEST', 'content-type: must be application/json', { field: 'content-type' }),
            );
        case 'FST_ERR_CTP_BODY_TOO_LARGE':
          return reply
            .code(400)
            .send(
              httpError('BAD_REQUEST', `body: must be at most ${bodyLimitBytes} bytes`, { field: 'body' }),
            );
        case 'FST_ERR_CTP_EMPTY_JSON_BODY':
          return reply.code(400).send(httpError('BAD_REQUEST', 'body: must not be empty', { field: 'body' }));
        case 'FST_ERR_CTP_INVALID_JSON_BODY':
          return reply.code(400).send(httpError('BAD_REQUEST', 'body: is not valid JSON', { field: 'body' }));
      }
      if (status >= 400 && status < 500) {
        return reply.code(400).send(httpError('BAD_REQUEST', error.message, { field: 'body' }));
      }
      request.log.error({ err: error }, 'request failed');
      return reply.code(500).send(httpError('INTERNAL', 'Something went wrong on our side.'));
    });
    app.setNotFoundHandler((request, reply) =>
      reply
        .code(404)
        .send(httpError('NOT_FOUND', `${request.method} ${request.url.split('?')[0]} does not exist`)),
    );
  },
  { name: 'munim-errors' },
);
