import { traceIdOf } from '@munim/bus';
import type { AgentEvent, Message } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import { type EventOrigin, eventRecords, type IncomingEvent } from './event-records.ts';
import { emptyRow, foldInto, noteActor, type RoutingLog } from './fold.ts';
import { recordImplicitFeedback } from './implicit-feedback.ts';
import { currentRows, refold, routingLogsUpsert, upsertRoutingLogs } from './routing-log.ts';

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
  /** Implicit feedback signals recorded (each at most once per request and signal). */
  feedback: number;
}

/** Advisory-lock space of the logger's per-request locks (two-int keys: the request id's hash). */
const REQUEST_LOCK_SPACE = 4_242_002;

/**
 * Stores a batch of events and folds them into their requests' `query_routing_logs` rows, in one
 * transaction: the requests locked, their rows read, the events inserted, the rows upserted.
 * An event whose id is already stored changes nothing, so a redelivery never double-counts.
 * Events of one request are folded in stream order; an event older than one already folded
 * (instances share the work) rebuilds its request's row from every stored event.
 * Each request is locked (a transaction advisory lock, in key order, so batches never deadlock)
 * before its row is read, so concurrent batches of several instances never fold it at once; each
 * row is written once per batch.
 */
export async function storeBatch(
  db: Kysely<Database>,
  batch: readonly IncomingEvent[],
): Promise<BatchResult> {
  // One copy per envelope id: a batch may hold the original and its redelivery.
  const unique = new Map<string, IncomingEvent>();
  for (const item of batch) {
    // Of two copies of one event (a republish), the earlier in the stream is where it belongs.
    const held = unique.get(item.message.id);
    if (!held || item.seq < held.seq) unique.set(item.message.id, item);
  }
  const events = [...unique.values()].sort((a, b) => a.seq - b.seq);
  if (events.length === 0) return { inserted: 0, stored: [], refolded: 0, feedback: 0 };
  const records = eventRecords(events);
  const byRequest = new Map<string, IncomingEvent[]>();
  for (const e of events) {
    const list = byRequest.get(e.message.requestId);
    if (list) list.push(e);
    else byRequest.set(e.message.requestId, [e]);
  }
  const requestIds = [...byRequest.keys()].sort();

  /** One try at the batch; `redelivered`: some of its events may be stored already. */
  const write = (redelivered: boolean) =>
    db.transaction().execute(async (trx) => {
      await sql`
        select pg_advisory_xact_lock(${REQUEST_LOCK_SPACE}::int, k)
        from (select distinct hashtext(id) as k from unnest(${requestIds}::text[]) as id order by k) as keys`.execute(
        trx,
      );
      // Read after the locks, in a statement of its own: it sees every batch committed before.
      const current = await currentRows(trx, requestIds);
      // An event older than one folded already rebuilds its row from the stored events, the new included.
      const outOfOrder = requestIds.some((id) => {
        const lastSeq = current.get(id)?.lastSeq ?? null;
        const first = byRequest.get(id)?.[0];
        return lastSeq !== null && first !== undefined && lastSeq > first.seq;
      });
      if (!redelivered && !outOfOrder) {
        // Every event is new and every row folds in place: the events inserted and the rows
        // upserted in one statement (a unique violation fails it whole, and the batch goes again).
        const folded = await foldRows(trx, current, undefined, new Set());
        const insert = eventsInsert(records);
        await (folded.changed.length > 0
          ? sql`with stored_events as (${insert}) ${routingLogsUpsert(folded.changed)}`
          : insert
        ).execute(trx);
        return finish(folded, events.length);
      }

      const written = await insertEvents(trx, records, redelivered);
      const fresh = written && new Set(written.filter((w) => w.inserted).map((w) => w.id));
      const moved = new Set(written?.filter((w) => !w.inserted).map((w) => w.request_id));
      const folded = await foldRows(trx, current, fresh, moved);
      await upsertRoutingLogs(trx, folded.changed);
      return finish(folded, fresh ? fresh.size : events.length);
    });

  /** The batch's rows folded: each request's news into its current row, or rebuilt when out of order. */
  const foldRows = async (
    trx: Transaction<Database>,
    current: Awaited<ReturnType<typeof currentRows>>,
    fresh: Set<string> | undefined,
    moved: Set<string>,
  ) => {
    const stored: IncomingEvent[] = [];
    const changed: RoutingLog[] = [];
    let refolded = 0;
    for (const id of requestIds) {
      const all = byRequest.get(id)!;
      const news = fresh ? all.filter((e) => fresh.has(e.message.id)) : all;
      const known = current.get(id);
      if (news.length === 0 && !(known && moved.has(id))) continue;
      stored.push(...news);
      const first = news[0];
      let row: RoutingLog;
      if (known && (moved.has(id) || (known.lastSeq !== null && first && known.lastSeq > first.seq))) {
        row = await refold(trx, known.row);
        for (const e of news) noteActor(row, e.message);
        refolded += 1;
      } else if (first) {
        const base =
          known?.row ??
          emptyRow(
            {
              request_id: id,
              entity_id: first.message.entityId,
              org_id: first.message.orgId,
              conversation_id: first.message.conversationId,
              trace_id: null,
            },
            new Date(first.message.ts),
          );
        // Rows read or made here are this batch's own: folded in place.
        row = foldInto(
          base,
          news.map((e) => e.message),
        );
      } else {
        continue;
      }
      for (const e of news) {
        if (row.trace_id !== null) break;
        row.trace_id = traceIdOf(e.traceparent) ?? null;
      }
      changed.push(row);
    }
    return { trx, stored, changed, refolded };
  };

  /** The batch's implicit feedback recorded, and what it changed. */
  const finish = async (
    { trx, stored, refolded }: Awaited<ReturnType<typeof foldRows>>,
    inserted: number,
  ): Promise<BatchResult> => {
    const feedback = await recordImplicitFeedback(
      trx,
      stored.map((e) => e.message).filter((m) => m.data.type === 'understanding_started'),
    );
    return { inserted, stored, refolded, feedback };
  };

  try {
    try {
      return await write(false);
    } catch (error) {
      if (!isStoredEvent(error)) throw error;
      // A redelivery (or a copy another instance stored): the batch again, sorting out which.
      return await write(true);
    }
  } catch (error) {
    throw new StoreEventError(`could not store a batch of ${events.length} events`, { cause: error });
  }
}

/** The insert of a batch's events, every one new. */
function eventsInsert(records: Buffer): RawBuilder<unknown> {
  // The whole batch as one jsonb parameter: PostgreSQL parses it far faster than thousands of
  // bind parameters, and nothing is compiled or escaped per row here.
  return sql`
    insert into request_events
      (id, request_id, seq, type, service, conversation_id, entity_id, org_id, payload, ts)
    select m->>'id', m->>'requestId', seq, m->'data'->>'type', m->>'service',
      m->>'conversationId', m->>'entityId', m->>'orgId', m->'data'->'payload',
      (m->>'ts')::timestamptz
    from jsonb_to_recordset(${records}::jsonb) as e(seq bigint, m jsonb)`;
}

/** What inserting events did, where some of them may have been stored already. */
type Written = { id: string; request_id: string; inserted: boolean }[];

/**
 * Inserts the batch's events. `redelivered`: some may be stored already, and the rows say which
 * were new; otherwise every event is new and nothing is returned.
 */
async function insertEvents(
  trx: Transaction<Database>,
  records: Buffer,
  redelivered: boolean,
): Promise<Written | undefined> {
  const insert = eventsInsert(records);
  if (!redelivered) {
    // Nearly every batch is new events: a plain insert, without the cost of ON CONFLICT.
    await insert.execute(trx);
    return undefined;
  }
  // A copy of a stored event that stands earlier in the stream moves the event there (a
  // republished copy may be stored first, by another instance): its request is refolded.
  // Only `seq` is updated: the logger's role may change no other column of a stored event.
  const { rows } = await sql<Written[number]>`
    ${insert}
    on conflict (id) do update set seq = excluded.seq where request_events.seq > excluded.seq
    returning id, request_id, xmax = 0 as inserted`.execute(trx);
  return rows;
}

/** Whether the database refused an event because its id is stored already. */
function isStoredEvent(error: unknown): boolean {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && e.constraint === 'request_events_pkey';
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
