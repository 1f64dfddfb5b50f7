import type { HealthMetrics, Rate } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type Kysely, sql } from 'kysely';
import type { Tenant } from '../auth.ts';

function rate(numerator: number, denominator: number): Rate {
  return { value: denominator === 0 ? null : numerator / denominator, numerator, denominator };
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

interface Window {
  tenant: Tenant;
  from: Date;
  to: Date;
}

/**
 * The health monitor's figures (validation, self-correction, path and cache rates, tokens, latency) for one tenant and window, computed in SQL over
 * `query_routing_logs` (one row per request) and `request_events` (stage timings).
 */
export async function healthMetrics(db: Kysely<Database>, w: Window): Promise<HealthMetrics> {
  const scope = sql`q.entity_id = ${w.tenant.entityId} and q.org_id = ${w.tenant.orgId}
    and q.created_at >= ${w.from} and q.created_at < ${w.to}`;

  const {
    rows: [requests],
  } = await sql<Record<string, unknown>>`
    select
      count(*)::int as queries,
      count(*) filter (where q.status <> 'running')::int as finished,
      count(*) filter (where q.path is not null)::int as routed,
      count(*) filter (where q.path = 'fast')::int as fast,
      count(*) filter (where q.path = 'cached')::int as cached,
      avg(coalesce(q.input_tokens, 0)) filter (where q.status <> 'running') as input_tokens,
      avg(coalesce(q.output_tokens, 0)) filter (where q.status <> 'running') as output_tokens,
      percentile_cont(0.5) within group (order by q.latency_ms) as total_p50,
      percentile_cont(0.95) within group (order by q.latency_ms) as total_p95,
      count(q.latency_ms)::int as total_count
    from query_routing_logs q
    where ${scope}`.execute(db);

  const {
    rows: [writes],
  } = await sql<Record<string, unknown>>`
    with w as (
      select q.request_id, e.ord, e.v
      from query_routing_logs q
      cross join lateral jsonb_array_elements(q.write_tool_results) with ordinality as e(v, ord)
      where ${scope} and q.is_write_operation
    )
    select
      count(*)::int as validations,
      count(*) filter (where w.v->>'validation_status' = 'blocked')::int as blocked,
      count(*) filter (
        where w.v->>'validation_status' = 'passed' and jsonb_typeof(w.v->'mcp_result') = 'object'
      )::int as executed,
      count(*) filter (
        where w.v->>'validation_status' = 'passed' and (w.v->'mcp_result'->>'success') = 'false'
      )::int as execution_failed,
      count(distinct w.request_id) filter (where w.v->>'validation_status' = 'blocked')::int as blocked_requests,
      count(distinct w.request_id) filter (
        where w.v->>'validation_status' = 'blocked' and exists (
          select 1 from w later
          where later.request_id = w.request_id and later.ord > w.ord
            and later.v->>'tool' = w.v->>'tool' and later.v->>'validation_status' = 'passed'
        )
      )::int as corrected_requests
    from w`.execute(db);

  const events = sql`
    select e.request_id, e.type, e.ts, e.payload
    from request_events e
    where e.entity_id = ${w.tenant.entityId} and e.org_id = ${w.tenant.orgId}
      and e.request_id in (select q.request_id from query_routing_logs q where ${scope})`;

  const {
    rows: [stages],
  } = await sql<Record<string, unknown>>`
    with ev as (${events}),
    per as (
      select
        extract(epoch from (min(ts) filter (where type = 'route_classified') - min(ts))) * 1000 as routing,
        extract(epoch from (
          min(ts) filter (where type in ('complete', 'error'))
          - min(ts) filter (where type = 'response_generating')
        )) * 1000 as response
      from ev group by request_id
    )
    select
      percentile_cont(0.5) within group (order by routing) as routing_p50,
      percentile_cont(0.95) within group (order by routing) as routing_p95,
      count(routing)::int as routing_count,
      percentile_cont(0.5) within group (order by response) as response_p50,
      percentile_cont(0.95) within group (order by response) as response_p95,
      count(response)::int as response_count
    from per`.execute(db);

  const { rows: durations } = await sql<{ type: string; p50: unknown; p95: unknown; count: number }>`
    with ev as (${events})
    select type,
      percentile_cont(0.5) within group (order by (payload->>'duration_ms')::float8) as p50,
      percentile_cont(0.95) within group (order by (payload->>'duration_ms')::float8) as p95,
      count(*)::int as count
    from ev
    where type in ('write_validation', 'tool_result') and payload->>'duration_ms' is not null
    group by type`.execute(db);

  const r = requests ?? {};
  const wr = writes ?? {};
  const st = stages ?? {};
  const n = (v: unknown) => Number(v ?? 0);
  const duration = (type: string) => {
    const row = durations.find((d) => d.type === type);
    return { p50: num(row?.p50), p95: num(row?.p95), count: row?.count ?? 0 };
  };
  const input = num(r.input_tokens);
  const output = num(r.output_tokens);
  return {
    from: w.from.toISOString(),
    to: w.to.toISOString(),
    entityId: w.tenant.entityId,
    orgId: w.tenant.orgId,
    queries: n(r.queries),
    finished: n(r.finished),
    rates: {
      writeValidationBlock: rate(n(wr.blocked), n(wr.validations)),
      selfCorrectionSuccess: rate(n(wr.corrected_requests), n(wr.blocked_requests)),
      writeFailureAfterValidation: rate(n(wr.execution_failed), n(wr.executed)),
      fastPathHit: rate(n(r.fast), n(r.routed)),
      cacheHit: rate(n(r.cached), n(r.routed)),
    },
    llmTokensPerQuery: {
      input,
      output,
      total: input === null || output === null ? null : input + output,
    },
    latencyMs: {
      total: { p50: num(r.total_p50), p95: num(r.total_p95), count: n(r.total_count) },
      routing: { p50: num(st.routing_p50), p95: num(st.routing_p95), count: n(st.routing_count) },
      validation: duration('write_validation'),
      tool: duration('tool_result'),
      response: { p50: num(st.response_p50), p95: num(st.response_p95), count: n(st.response_count) },
    },
  };
}
