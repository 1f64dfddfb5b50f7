import { HealthStatusSchema, ReadinessSchema } from '@munim/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { checkReadiness } from './readiness.ts';

/** `GET /healthz` (the process is up) and `GET /readyz` (NATS and every service it needs answer). */
export const healthRoutes: FastifyPluginAsync<Pick<GatewayContext, 'bus' | 'config'>> = async (
  app,
  { bus, config },
) => {
  app.get(
    '/healthz',
    { schema: { summary: 'The process is up', tags: ['health'], response: { 200: HealthStatusSchema } } },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        summary: 'NATS and every service the gateway needs answer',
        tags: ['health'],
        response: { 200: ReadinessSchema, 503: ReadinessSchema },
      },
    },
    async (_request, reply) => {
      const readiness = await checkReadiness(bus, config.REQUEST_TIMEOUT_MS);
      return reply.code(readiness.ready ? 200 : 503).send({
        status: readiness.ready ? 'ok' : 'unavailable',
        nats: readiness.nats,
        services: readiness.services,
      });
    },
  );
};
