import { traceIdOf } from '@munim/bus';
import type { AgentEvent, Message } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type Kysely, sql } from 'kysely';
import { emptyRow, foldEvent, type RoutingLog } from './fold.ts';

/** Where an event came from on the stream. */
export interface EventOrigin {
  /** JetStream stream sequence. */
  seq: number;
  traceparent: string | undefined;
}

/** Storing one event failed; the message is redelivered. */
export class StoreEventError extends Error {
  override name = 'StoreEventError';
}

/**
 * PostgreSQL refuses NUL in text and jsonb, and lone surrogates in jsonb: a tool result carrying
 * either would otherwise fail on every redelivery and never be stored.
 */
function storable<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) =>
      typeof v === 'string' ? v.toWellFormed().replaceAll('\u0000', '\uFFFD') : v,
    ),
  ) as T;
}

function changes(row: RoutingLog) {
  return {
    query: row.query,
    path: row.path,
    category: row.category,
    confidence: row.confidence,
    tier: row.tier,
    intent_id: row.intent_id,
    intent_confidence: row.intent_confidence,
    is_write_operation: row.is_write_operation,
    write_tool_results: JSON.stringify(row.write_tool_results),
    guardrails_triggered: row.guardrails_triggered,
    tools_used: row.tools_used,
    tools_failed: row.tools_failed,
    llm_model: row.llm_model,
    iteration_count: row.iteration_count,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    latency_ms: row.latency_ms,
    status: row.status,
    error_code: row.error_code,
    response: row.response,
    trace_id: row.trace_id,
    created_at: row.created_at,
    updated_at: sql<Date>`now()`,
  };
}

/**
 * Stores one event and folds it into its request's `query_routing_logs` row, in one transaction.
 * An event whose id is already stored changes nothing, so a redelivery never double-counts.
 * Resolves to whether the event was new.
 */
export async function storeEvent(
  db: Kysely<Database>,
  received: Message<AgentEvent>,
  origin: EventOrigin,
): Promise<boolean> {
  const message = storable(received);
  const traceId = traceIdOf(origin.traceparent) ?? null;
  try {
    return await db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('request_events')
        .values({
          id: message.id,
          request_id: message.requestId,
          seq: origin.seq,
          type: message.data.type,
          service: message.service,
          conversation_id: message.conversationId,
          entity_id: message.entityId,
          org_id: message.orgId,
          payload: JSON.stringify(message.data.payload),
          ts: message.ts,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!inserted) return false;

      await trx
        .insertInto('query_routing_logs')
        .values({
          request_id: message.requestId,
          entity_id: message.entityId,
          org_id: message.orgId,
          conversation_id: message.conversationId,
          created_at: message.ts,
          status: 'running',
          trace_id: traceId,
        })
        .onConflict((oc) => oc.column('request_id').doNothing())
        .execute();
      const current = await trx
        .selectFrom('query_routing_logs')
        .selectAll()
        .where('request_id', '=', message.requestId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      // Instances share the work, so events of one request can arrive out of stream order.
      // An event older than one already folded refolds the row from every stored event, in order.
      const newer = await trx
        .selectFrom('request_events')
        .select('id')
        .where('request_id', '=', message.requestId)
        .where('seq', '>', origin.seq)
        .limit(1)
        .executeTakeFirst();
      const next = newer ? await refold(trx, current) : foldEvent(current, message);
      next.trace_id ??= traceId;
      await trx
        .updateTable('query_routing_logs')
        .set(changes(next))
        .where('request_id', '=', message.requestId)
        .execute();

      return true;
    });
  } catch (error) {
    throw new StoreEventError(`could not store event ${message.id} of request ${message.requestId}`, {
      cause: error,
    });
  }
}

/** The row rebuilt from every stored event of its request, in stream order. */
async function refold(trx: Kysely<Database>, current: RoutingLog): Promise<RoutingLog> {
  const events = await trx
    .selectFrom('request_events')
    .selectAll()
    .where('request_id', '=', current.request_id)
    .orderBy('seq')
    .execute();
  let row = emptyRow(current, events[0]?.ts ?? current.created_at);

  for (const e of events) {
    row = foldEvent(row, {
      id: e.id,
      requestId: e.request_id,
      conversationId: e.conversation_id,
      entityId: e.entity_id,
      orgId: e.org_id,
      service: e.service as Message<AgentEvent>['service'],
      ts: e.ts.toISOString(),
      data: { type: e.type, payload: e.payload } as AgentEvent,
    });
  }
  return row;
}
