import fastifyCors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Registers CORS for the configured origins (none: no cross-origin access). */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  await app.register(fastifyCors, {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'POST', 'DELETE'],
    allowedHeaders: [
      'authorization',
      'content-type',
      'last-event-id',
      'mcp-protocol-version',
      'mcp-session-id',
    ],
    exposedHeaders: ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
    maxAge: 600,
  });
}
