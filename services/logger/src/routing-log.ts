import type { AgentEvent, Message } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type RawBuilder, sql, type Transaction } from 'kysely';
import { emptyRow, foldInto, type RoutingLog } from './fold.ts';

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
  actor_user_id: 'text',
  actor_roles: 'text[]',
  actor_via: 'text',
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

/** Writes each changed row over its request's `query_routing_logs` row (one statement for the batch). */
export async function upsertRoutingLogs(
  trx: Transaction<Database>,
  changed: readonly RoutingLog[],
): Promise<void> {
  if (changed.length === 0) return;
  await routingLogsUpsert(changed).execute(trx);
}

/** The statement of {@link upsertRoutingLogs}, to run on its own or after a statement it follows. */
export function routingLogsUpsert(changed: readonly RoutingLog[]): RawBuilder<unknown> {
  return sql`
    insert into query_routing_logs (request_id, entity_id, org_id, conversation_id, ${sql.join(
      UPDATED.map((c) => sql.ref(c)),
    )})
    select request_id, entity_id, org_id, conversation_id, ${sql.join(UPDATED.map((c) => sql.ref(c)))}
    from jsonb_to_recordset(${JSON.stringify(changed.map(logRecord))}::jsonb) as u(${LOG_RECORD})
    on conflict (request_id) do update set
      ${sql.join(UPDATED.map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`))},
      updated_at = now()`;
}

/** The row rebuilt from every stored event of its request, in stream order. */
export async function refold(trx: Transaction<Database>, current: RoutingLog): Promise<RoutingLog> {
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

/** The requests' current rows, each with the stream sequence of its last stored event. */
export async function currentRows(
  trx: Transaction<Database>,
  requestIds: readonly string[],
): Promise<Map<string, { row: RoutingLog; lastSeq: number | null }>> {
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
  return current;
}
