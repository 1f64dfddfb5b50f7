import { isUtf8 } from 'node:buffer';
import { traceIdOf } from '@munim/bus';
import type { AgentEvent, Message } from '@munim/contracts';
import type { Database, QueryRoutingLogRow } from '@munim/db';
import { type Kysely, sql, type Transaction } from 'kysely';
import { implicitSignal } from './feedback.ts';
import { emptyRow, foldInto, type RoutingLog } from './fold.ts';

/** Where an event came from on the stream. */
export interface EventOrigin {
  /** JetStream stream sequence. */
  seq: number;
  traceparent: string | undefined;
}

/** One event to store, with where it came from. */
export interface IncomingEvent extends EventOrigin {
  message: Message<AgentEvent>;
  /**
   * The message's bytes as they came off the stream (it passed the schema, which has no
   * transforms): stored as published without writing it out again. `message` is what gets folded.
   */
  json?: Uint8Array | undefined;
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
  /** Implicit feedback signals recorded (each at most once per request and signal). */
  feedback: number;
}

/** How JSON.stringify writes a NUL or a lone surrogate; any other text is stored as it is. */
const UNSTORABLE = /\\u0000|\\ud[89a-f]/i;

/**
 * PostgreSQL refuses NUL in text and jsonb, and lone surrogates in jsonb: a tool result carrying
 * either would otherwise fail on every redelivery and never be stored. The copy is cleaned.
 */
function scrubbed<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) =>
      typeof v === 'string' ? v.toWellFormed().replaceAll('\u0000', '\uFFFD') : v,
    ),
  ) as T;
}

/** The UTF-8 JSON of one event's message: the bytes it arrived as where they are valid UTF-8. */
function messageBytes(e: IncomingEvent): Buffer {
  const { json } = e;
  if (json && isUtf8(json)) return Buffer.from(json.buffer, json.byteOffset, json.byteLength);
  return Buffer.from(JSON.stringify(e.message));
}

/** jsonb's binary input: a version byte (1), then the JSON text. */
const JSONB_BINARY_VERSION = 1;

/** `\u`: JSON.stringify writes it only for control characters and lone surrogates. */
const ESCAPE = Buffer.from('\\u');

/** Whether a message's JSON holds text PostgreSQL refuses (a NUL or a lone surrogate). */
function unstorable(bytes: Buffer): boolean {
  // The escapes are ASCII: a byte-wise (latin1) view of UTF-8 shows them as they are.
  return bytes.includes(ESCAPE) && UNSTORABLE.test(bytes.toString('latin1'));
}

/**
 * The events as one jsonb array of `{ seq, m }` (m: the message), as PostgreSQL reads it with
 * `jsonb_to_recordset`, in jsonb's binary form: the messages' bytes are copied in as they arrived,
 * never decoded and encoded again. An event whose text PostgreSQL would refuse is scrubbed first.
 */
function eventRecords(events: IncomingEvent[]): Buffer {
  const heads: string[] = [];
  const bodies: Buffer[] = [];
  let length = 3; // the version byte, '[' and ']'
  for (const [i, e] of events.entries()) {
    let body = messageBytes(e);
    if (unstorable(body)) {
      events[i] = { seq: e.seq, traceparent: e.traceparent, message: scrubbed(e.message) };
      body = messageBytes(events[i]!);
    }
    const head = `${i === 0 ? '' : ','}{"seq":${e.seq},"m":`;
    heads.push(head);
    bodies.push(body);
    length += head.length + body.length + 1;
  }
  const out = Buffer.allocUnsafe(length);
  out[0] = JSONB_BINARY_VERSION;
  out[1] = 0x5b; // [
  let at = 2;
  for (const [i, head] of heads.entries()) {
    at += out.write(head, at, 'latin1');
    const body = bodies[i]!;
    out.set(body, at);
    at += body.length;
    out[at++] = 0x7d; // }
  }
  out[at] = 0x5d; // ]
  return out;
}

/** The columns a fold changes, with their PostgreSQL types (for `jsonb_to_recordset`). */
const UPDATED_COLUMNS = {
  query: 'text',
  path: 'text',
  category: 'text',
  confidence: 'real',
  tier: 'text',
  intent_id: 'text',
  intent_confidence: 'real',
  is_write_operation: 'boolean',
  write_tool_results: 'jsonb',
  guardrails_triggered: 'text[]',
  tools_used: 'text[]',
  tools_failed: 'text[]',
  llm_model: 'text',
  iteration_count: 'integer',
  input_tokens: 'integer',
  output_tokens: 'integer',
  latency_ms: 'integer',
  status: 'text',
  error_code: 'text',
  response: 'text',
  trace_id: 'text',
  created_at: 'timestamptz',
} as const satisfies Partial<Record<keyof RoutingLog, string>>;

const UPDATED = Object.keys(UPDATED_COLUMNS) as (keyof typeof UPDATED_COLUMNS)[];
/** A constant of this file, never input: the record type of the update's rows. */
const LOG_RECORD = sql.raw(
  [
    'request_id text',
    'entity_id text',
    'org_id text',
    'conversation_id text',
    ...UPDATED.map((c) => `${c} ${UPDATED_COLUMNS[c]}`),
  ].join(', '),
);

function logRecord(row: RoutingLog): Record<string, unknown> {
  const record: Record<string, unknown> = {
    request_id: row.request_id,
    entity_id: row.entity_id,
    org_id: row.org_id,
    conversation_id: row.conversation_id,
  };
  for (const c of UPDATED) record[c] = row[c];
  // A string, so JSON.stringify stays on its fast path (a Date's toJSON takes it off).
  record.created_at = row.created_at.toISOString();
  return record;
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
      const rows = await trx
        .selectFrom('query_routing_logs as q')
        .selectAll('q')
        .select((eb) =>
          eb
            .selectFrom('request_events as e')
            .select((e) => e.fn.max('e.seq').as('seq'))
            .whereRef('e.request_id', '=', 'q.request_id')
            .as('last_seq'),
        )
        .where('q.request_id', '=', sql<string>`any(${requestIds}::text[])`)
        .execute();
      const current = new Map<string, { row: RoutingLog; lastSeq: number | null }>();
      for (const { updated_at: _, last_seq, ...row } of rows) {
        current.set(row.request_id, { row, lastSeq: last_seq === null ? null : Number(last_seq) });
      }

      // The whole batch as one jsonb parameter: PostgreSQL parses it far faster than thousands of
      // bind parameters, and nothing is compiled or escaped per row here.
      const insertEvents = sql`
          insert into request_events
            (id, request_id, seq, type, service, conversation_id, entity_id, org_id, payload, ts)
          select m->>'id', m->>'requestId', seq, m->'data'->>'type', m->>'service',
            m->>'conversationId', m->>'entityId', m->>'orgId', m->'data'->'payload',
            (m->>'ts')::timestamptz
          from jsonb_to_recordset(${records}::jsonb) as e(seq bigint, m jsonb)`;
      /** What the insert did, where some events may have been stored already. */
      let written: { id: string; request_id: string; inserted: boolean }[] | undefined;
      if (!redelivered) {
        // Nearly every batch is new events: a plain insert, without the cost of ON CONFLICT.
        await insertEvents.execute(trx);
      } else {
        // A copy of a stored event that stands earlier in the stream moves the event there (a
        // republished copy may be stored first, by another instance): its request is refolded.
        ({ rows: written } = await sql<{ id: string; request_id: string; inserted: boolean }>`
          ${insertEvents}
          on conflict (id) do update set seq = excluded.seq where request_events.seq > excluded.seq
          returning id, request_id, xmax = 0 as inserted`.execute(trx));
      }
      const fresh = written && new Set(written.filter((w) => w.inserted).map((w) => w.id));
      const moved = new Set(written?.filter((w) => !w.inserted).map((w) => w.request_id));

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

      if (changed.length > 0) {
        await sql`
          insert into query_routing_logs (request_id, entity_id, org_id, conversation_id, ${sql.join(
            UPDATED.map((c) => sql.ref(c)),
          )})
          select request_id, entity_id, org_id, conversation_id, ${sql.join(UPDATED.map((c) => sql.ref(c)))}
          from jsonb_to_recordset(${JSON.stringify(changed.map(logRecord))}::jsonb) as u(${LOG_RECORD})
          on conflict (request_id) do update set
            ${sql.join(UPDATED.map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`))},
            updated_at = now()`.execute(trx);
      }
      const feedback = await recordImplicitFeedback(
        trx,
        stored.map((e) => e.message).filter((m) => m.data.type === 'understanding_started'),
      );
      return { inserted: fresh ? fresh.size : events.length, stored, refolded, feedback };
    });

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

/** The row rebuilt from every stored event of its request, in stream order. */
async function refold(trx: Transaction<Database>, current: RoutingLog): Promise<RoutingLog> {
  const events = await trx
    .selectFrom('request_events')
    .selectAll()
    .where('request_id', '=', current.request_id)
    .orderBy('seq')
    .execute();
  const row = foldInto(
    emptyRow(current, events[0]?.ts ?? current.created_at),
    events.map((e) => ({
      id: e.id,
      requestId: e.request_id,
      conversationId: e.conversation_id,
      entityId: e.entity_id,
      orgId: e.org_id,
      service: e.service as Message<AgentEvent>['service'],
      ts: e.ts.toISOString(),
      data: { type: e.type, payload: e.payload } as AgentEvent,
    })),
  );
  return row;
}

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
 * Reads each user's next query as feedback on the previous answer of its conversation (seed 003
 * §8.5) and records it in `feedback_log` against that answer's request: one lookup for the whole
 * batch. At most one signal of a kind per answered request, so a redelivery records nothing twice.
 */
async function recordImplicitFeedback(
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
