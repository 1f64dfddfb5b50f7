import type { AgentEvent, Message } from '@munim/contracts';
import type { Database, QueryRoutingLogRow } from '@munim/db';
import { sql, type Transaction } from 'kysely';
import { implicitSignal } from './feedback.ts';

/**
 * For each query, the newest earlier request of its conversation (its tenant's own) with a query.
 * Only the (conversation, tenant, created_at) index drives it, whatever the statistics say: the
 * tenant checks are written so no index can use them (`is true`). A fresh or stale table otherwise
 * led the planner to the tenant's (org, entity, created_at) index, which walks the tenant's whole
 * history for every lookup.
 */
export function previousQueries(queries: Message<AgentEvent>[]) {
  return sql<QueryRoutingLogRow & { next_request_id: string }>`
    select n.request_id as next_request_id, p.*
    from unnest(
      ${queries.map((m) => m.requestId)}::text[], ${queries.map((m) => m.conversationId)}::text[],
      ${queries.map((m) => m.entityId)}::text[], ${queries.map((m) => m.orgId)}::text[],
      ${queries.map((m) => m.ts)}::timestamptz[]
    ) as n(request_id, conversation_id, entity_id, org_id, ts)
    join lateral (
      select * from query_routing_logs q
      where q.conversation_id = n.conversation_id and q.created_at < n.ts
        and (q.entity_id = n.entity_id and q.org_id = n.org_id) is true
        and q.request_id <> n.request_id and q.query is not null
      order by q.created_at desc
      limit 1
    ) p on true`;
}

/**
 * Reads each user's next query as feedback on the previous answer of its conversation (see
 * `implicitSignal`) and records it in `feedback_log` against that answer's request: one lookup for
 * the whole batch. At most one signal of a kind per answered request, so a redelivery records nothing twice.
 */
export async function recordImplicitFeedback(
  trx: Transaction<Database>,
  queries: Message<AgentEvent>[],
): Promise<number> {
  if (queries.length === 0) return 0;
  const { rows } = await previousQueries(queries).execute(trx);
  const values = rows.flatMap((previous) => {
    const next = queries.find((m) => m.requestId === previous.next_request_id);
    if (next?.data.type !== 'understanding_started') return [];
    const query = next.data.payload.query;
    const signal = implicitSignal(previous, query);
    if (!signal) return [];
    return [
      {
        request_id: previous.request_id,
        conversation_id: previous.conversation_id,
        entity_id: previous.entity_id,
        org_id: previous.org_id,
        kind: 'implicit' as const,
        signal: signal.signal,
        score: signal.score,
        query: previous.query,
        response: previous.response,
        intent_id: previous.intent_id,
        tools_used: previous.tools_used,
        llm_model: previous.llm_model,
        latency_ms: previous.latency_ms,
        comment: `next query (${next.requestId}): ${query}`.slice(0, 1000),
      },
    ];
  });
  if (values.length === 0) return 0;
  const inserted = await trx
    .insertInto('feedback_log')
    .values(values)
    .onConflict((oc) => oc.columns(['request_id', 'signal']).where('kind', '=', 'implicit').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0);
}
