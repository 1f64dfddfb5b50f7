import { HealthMetricsQuerySchema, HealthMetricsSchema } from '@munim/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError, noDatabase } from '../http-errors.ts';
import { errorResponses, SECURITY } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { requestTenant } from '../tenant-gate.ts';
import { healthMetrics } from './health-metrics.ts';

const DAY_MS = 86_400_000;
/** Longest window one call may ask for, so a call never scans years of events. */
const MAX_WINDOW_MS = 93 * DAY_MS;

const badWindow = (message: string) =>
  new HttpRefusal(400, httpError('BAD_REQUEST', `from: ${message}`, { field: 'from' }));

/** `GET /v1/metrics/health?from=&to=`: the health monitor of the caller's tenant. */
export const metricsRoutes: FastifyPluginAsync<Pick<GatewayContext, 'db'>> = async (app, { db }) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/metrics/health',
    {
      schema: {
        summary: 'Health monitor: validation, self-correction, path and cache rates, tokens, stage latency',
        tags: ['metrics'],
        security: SECURITY,
        querystring: HealthMetricsQuerySchema,
        response: { 200: HealthMetricsSchema, ...errorResponses(400, 401, 403, 429, 503) },
      },
    },
    async (request) => {
      const { query } = request;
      const tenant = requestTenant(request, query);
      const to = query.to ? new Date(query.to) : new Date();
      const from = query.from ? new Date(query.from) : new Date(to.getTime() - DAY_MS);
      if (from >= to) throw badWindow('must be before to');
      if (to.getTime() - from.getTime() > MAX_WINDOW_MS)
        throw badWindow('the window may span at most 93 days');
      if (!db) throw noDatabase('Health metrics', 'are');
      return healthMetrics(db, { tenant, from, to });
    },
  );
};
