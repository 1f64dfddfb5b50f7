import { traceIdOf } from '@munim/bus';
import type { AgentEvent, Message } from '@munim/contracts';
import type { Database, QueryRoutingLogRow } from '@munim/db';
import { type Kysely, sql, type Transaction } from 'kysely';
import { implicitSignal } from './feedback.ts';
import { emptyRow, foldEvent, type RoutingLog } from './fold.ts';

/** Where an event came from on the stream. */
export interface EventOrigin {
  /** JetStream stream sequence. */
  seq: number;
  traceparent: string | undefined;
}

/** One event to store, with where it came from. */
export interface IncomingEvent extends EventOrigin {
  message: Message<AgentEvent>;
}

/** Storing a batch of events failed; nothing of it was committed. */
export class StoreEventError extends Error {
  override name = 'StoreEventError';
}

/** What one committed batch changed. */
export interface BatchResult {
  /** Events new to the database (the rest were already stored: redeliveries). */
  inserted: number;
  /** The new events, in stream order per request, as folded. */
  stored: IncomingEvent[];
  /** Requests whose row was rebuilt from every stored event because an event arrived out of order. */
  refolded: number;
}

// PostgreSQL takes at most 65 535 parameters per statement.
const EVENT_ROWS_PER_STATEMENT = 2000;
const LOG_ROWS_PER_STATEMENT = 1000;

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

function chunks<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

function logRow(row: RoutingLog) {
  return {
    request_id: row.request_id,
    entity_id: row.entity_id,
    org_id: row.org_id,
    conversation_id: row.conversation_id,
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
  };
}

const UPDATED_COLUMNS = [
  'query',
  'path',
  'category',
  'confidence',
  'tier',
  'intent_id',
  'intent_confidence',
  'is_write_operation',
  'write_tool_results',
  'guardrails_triggered',
  'tools_used',
  'tools_failed',
  'llm_model',
  'iteration_count',
  'input_tokens',
  'output_tokens',
  'latency_ms',
  'status',
  'error_code',
  'response',
  'trace_id',
  'created_at',
] as const;

/**
 * Stores a batch of events and folds them into their requests' `query_routing_logs` rows, in one
 * transaction: a multi-row insert of the events, then one multi-row upsert of the touched rows.
 * An event whose id is already stored changes nothing, so a redelivery never double-counts.
 * Events of one request are folded in stream order; an event older than one already folded
 * (instances share the work) rebuilds its request's row from every stored event.
 * The requests' rows are locked first, in request-id order, so concurrent batches of several
 * instances never fold the same request at once.
 */
export async function storeBatch(
  db: Kysely<Database>,
  batch: readonly IncomingEvent[],
): Promise<BatchResult> {
  // One copy per envelope id: a batch may hold the original and its redelivery.
  const unique = new Map<string, IncomingEvent>();
  for (const item of batch) {
    if (!unique.has(item.message.id))
      unique.set(item.message.id, { ...item, message: storable(item.message) });
  }
  const events = [...unique.values()].sort((a, b) => a.seq - b.seq);
  if (events.length === 0) return { inserted: 0, stored: [], refolded: 0 };
  const byRequest = new Map<string, IncomingEvent[]>();
  for (const e of events) {
    const list = byRequest.get(e.message.requestId);
    if (list) list.push(e);
    else byRequest.set(e.message.requestId, [e]);
  }
  const requestIds = [...byRequest.keys()].sort();

  try {
    return await db.transaction().execute(async (trx) => {
      for (const ids of chunks(requestIds, LOG_ROWS_PER_STATEMENT)) {
        await trx
          .insertInto('query_routing_logs')
          .values(
            ids.map((id) => {
              const first = byRequest.get(id)![0]!;
              return {
                request_id: id,
                entity_id: first.message.entityId,
                org_id: first.message.orgId,
                conversation_id: first.message.conversationId,
                created_at: first.message.ts,
                status: 'running',
                trace_id: traceIdOf(first.traceparent) ?? null,
              };
            }),
          )
          .onConflict((oc) => oc.column('request_id').doNothing())
          .execute();
      }
      const current = new Map<string, RoutingLog>();
      const lastSeq = new Map<string, number>();
      for (const ids of chunks(requestIds, LOG_ROWS_PER_STATEMENT)) {
        const rows = await trx
          .selectFrom('query_routing_logs')
          .selectAll()
          .where('request_id', 'in', ids)
          .orderBy('request_id')
          .forUpdate()
          .execute();
        for (const { updated_at: _, ...row } of rows) current.set(row.request_id, row);
        const seqs = await trx
          .selectFrom('request_events')
          .select((eb) => ['request_id', eb.fn.max('seq').as('seq')])
          .where('request_id', 'in', ids)
          .groupBy('request_id')
          .execute();
        for (const s of seqs) lastSeq.set(s.request_id, Number(s.seq));
      }

      const fresh = new Set<string>();
      for (const part of chunks(events, EVENT_ROWS_PER_STATEMENT)) {
        const inserted = await trx
          .insertInto('request_events')
          .values(
            part.map(({ message, seq }) => ({
              id: message.id,
              request_id: message.requestId,
              seq,
              type: message.data.type,
              service: message.service,
              conversation_id: message.conversationId,
              entity_id: message.entityId,
              org_id: message.orgId,
              payload: JSON.stringify(message.data.payload),
              ts: message.ts,
            })),
          )
          .onConflict((oc) => oc.column('id').doNothing())
          .returning('id')
          .execute();
        for (const { id } of inserted) fresh.add(id);
      }

      const stored: IncomingEvent[] = [];
      const changed: RoutingLog[] = [];
      let refolded = 0;
      for (const id of requestIds) {
        const news = byRequest.get(id)!.filter((e) => fresh.has(e.message.id));
        if (news.length === 0) continue;
        stored.push(...news);
        let row = current.get(id)!;
        const last = lastSeq.get(id);
        if (last !== undefined && last > news[0]!.seq) {
          row = await refold(trx, row);
          refolded += 1;
        } else {
          for (const e of news) row = foldEvent(row, e.message);
        }
        row.trace_id ??= news.map((e) => traceIdOf(e.traceparent)).find(Boolean) ?? null;
        changed.push(row);
      }

      for (const rows of chunks(changed, LOG_ROWS_PER_STATEMENT)) {
        await trx
          .insertInto('query_routing_logs')
          .values(rows.map(logRow))
          .onConflict((oc) =>
            oc.column('request_id').doUpdateSet((eb) => ({
              ...Object.fromEntries(UPDATED_COLUMNS.map((c) => [c, eb.ref(`excluded.${c}`)])),
              updated_at: sql<Date>`now()`,
            })),
          )
          .execute();
      }
      await recordImplicitFeedback(
        trx,
        stored.map((e) => e.message).filter((m) => m.data.type === 'understanding_started'),
      );
      return { inserted: fresh.size, stored, refolded };
    });
  } catch (error) {
    throw new StoreEventError(`could not store a batch of ${events.length} events`, { cause: error });
  }
}

/**
 * Stores one event (a batch of one). Resolves to whether the event was new.
 */
export async function storeEvent(
  db: Kysely<Database>,
  message: Message<AgentEvent>,
  origin: EventOrigin,
): Promise<boolean> {
  const { inserted } = await storeBatch(db, [{ message, ...origin }]);
  return inserted === 1;
}

/** The row rebuilt from every stored event of its request, in stream order. */
async function refold(trx: Transaction<Database>, current: RoutingLog): Promise<RoutingLog> {
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

/**
 * Reads each user's next query as feedback on the previous answer of its conversation (seed 003
 * §8.5) and records it in `feedback_log` against that answer's request: one lookup for the whole
 * batch. At most one signal of a kind per answered request, so a redelivery records nothing twice.
 */
async function recordImplicitFeedback(
  trx: Transaction<Database>,
  queries: Message<AgentEvent>[],
): Promise<void> {
  if (queries.length === 0) return;
  const { rows } = await sql<QueryRoutingLogRow & { next_request_id: string }>`
    select n.request_id as next_request_id, p.*
    from unnest(
      ${queries.map((m) => m.requestId)}::text[], ${queries.map((m) => m.conversationId)}::text[],
      ${queries.map((m) => m.entityId)}::text[], ${queries.map((m) => m.orgId)}::text[],
      ${queries.map((m) => m.ts)}::timestamptz[]
    ) as n(request_id, conversation_id, entity_id, org_id, ts)
    join lateral (
      select * from query_routing_logs q
      where q.conversation_id = n.conversation_id and q.entity_id = n.entity_id and q.org_id = n.org_id
        and q.request_id <> n.request_id and q.created_at < n.ts and q.query is not null
      order by q.created_at desc
      limit 1
    ) p on true`.execute(trx);
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
  if (values.length === 0) return;
  await trx
    .insertInto('feedback_log')
    .values(values)
    .onConflict((oc) => oc.columns(['request_id', 'signal']).where('kind', '=', 'implicit').doNothing())
    .execute();
}
