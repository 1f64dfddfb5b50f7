import type { Database } from '@munim/db';
import { type Kysely, sql } from 'kysely';

// Small deletes keep each transaction short, so ingest never waits long on them.
const DELETE_CHUNK = 5000;

/**
 * Deletes the `request_events` older than `days` days, a chunk at a time; resolves to how many.
 * `query_routing_logs` keeps one row per request and is left alone.
 */
export async function deleteOldEvents(db: Kysely<Database>, days: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  let total = 0;
  for (;;) {
    const result = await sql`
      delete from request_events
      where id in (select id from request_events where ts < ${cutoff} limit ${DELETE_CHUNK})`.execute(db);
    const deleted = Number(result.numAffectedRows ?? 0);
    total += deleted;
    if (deleted < DELETE_CHUNK) return total;
  }
}
