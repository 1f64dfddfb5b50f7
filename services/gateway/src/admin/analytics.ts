import { AnalyticsQuerySchema } from '@munim/contracts';
import type { FastifyPluginAsync } from 'fastify';
import { sql } from 'kysely';
import type { GatewayContext } from '../context.ts';
import { noDatabase } from '../http-errors.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';

const num = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/**
 * `GET /v1/admin/analytics`: per tool and per intent, usage,
 * failure and block rates and p50/p95 latency over a window, computed in SQL from the logged events.
 */
export const analyticsRoutes: FastifyPluginAsync<Pick<GatewayContext, 'db'>> = async (admin, { db }) => {
  const schema = { ...HIDDEN, querystring: AnalyticsQuerySchema };
  admin.withTypeProvider<ZodTypeProvider>().get('/v1/admin/analytics', { schema }, async (request) => {
    if (!db) throw noDatabase('Analytics');
    const { from, to, entityId, orgId } = request.query;
    // An entity id alone may name several tenants (orgs share entity ids); with the org it names one.
    const entityFilter = sql`${entityId === undefined ? sql`true` : sql`entity_id = ${entityId}`}
      and ${orgId === undefined ? sql`true` : sql`org_id = ${orgId}`}`;

    // A call is its `executing_tool`; a blocked write never gets that far, only a `write_validation`.
    const tools = await sql<{
      tool: string;
      calls: number;
      results: number;
      failures: number;
      validations: number;
      blocks: number;
      failure_rate: number | null;
      block_rate: number | null;
      p50_ms: number | null;
      p95_ms: number | null;
    }>`
      with e as (
        select type, payload, payload->>'tool' as tool
        from request_events
        where ts >= ${from} and ts < ${to} and ${entityFilter}
          and type in ('executing_tool', 'tool_result', 'write_validation')
          and payload->>'tool' is not null
      ), t as (
        select tool,
          count(*) filter (where type = 'executing_tool')::int as calls,
          count(*) filter (where type = 'tool_result')::int as results,
          count(*) filter (where type = 'tool_result' and payload->>'success' = 'false')::int as failures,
          count(*) filter (where type = 'write_validation')::int as validations,
          count(*) filter (where type = 'write_validation' and payload->>'status' = 'blocked')::int as blocks,
          percentile_cont(0.5) within group (order by (payload->>'duration_ms')::float8)
            filter (where type = 'tool_result' and payload->>'duration_ms' is not null) as p50_ms,
          percentile_cont(0.95) within group (order by (payload->>'duration_ms')::float8)
            filter (where type = 'tool_result' and payload->>'duration_ms' is not null) as p95_ms
        from e group by tool
      )
      select t.*,
        round(failures::numeric / nullif(results, 0), 4)::float8 as failure_rate,
        round(blocks::numeric / nullif(validations, 0), 4)::float8 as block_rate
      from t order by calls desc, validations desc, tool`.execute(db);

    const intents = await sql<{
      intent_id: string;
      name: string | null;
      requests: number;
      fast_path: number;
      failures: number;
      failure_rate: number | null;
      p50_ms: number | null;
      p95_ms: number | null;
    }>`
      with q as (
        select intent_id, path, status, latency_ms
        from query_routing_logs
        where created_at >= ${from} and created_at < ${to} and ${entityFilter} and intent_id is not null
      )
      select q.intent_id, i.name,
        count(*)::int as requests,
        count(*) filter (where q.path = 'fast')::int as fast_path,
        count(*) filter (where q.status = 'error')::int as failures,
        round((count(*) filter (where q.status = 'error'))::numeric / count(*), 4)::float8 as failure_rate,
        percentile_cont(0.5) within group (order by q.latency_ms) as p50_ms,
        percentile_cont(0.95) within group (order by q.latency_ms) as p95_ms
      from q left join intents i on i.id = q.intent_id
      group by q.intent_id, i.name
      order by requests desc, q.intent_id`.execute(db);

    return {
      from: from.toISOString(),
      to: to.toISOString(),
      tools: tools.rows.map((r) => ({
        tool: r.tool,
        calls: r.calls,
        failures: r.failures,
        failureRate: num(r.failure_rate) ?? 0,
        validations: r.validations,
        blocks: r.blocks,
        blockRate: num(r.block_rate) ?? 0,
        latencyMs: { p50: num(r.p50_ms), p95: num(r.p95_ms) },
      })),
      intents: intents.rows.map((r) => ({
        intentId: r.intent_id,
        name: r.name,
        requests: r.requests,
        fastPath: r.fast_path,
        failures: r.failures,
        failureRate: num(r.failure_rate) ?? 0,
        latencyMs: { p50: num(r.p50_ms), p95: num(r.p95_ms) },
      })),
    };
  });
};
