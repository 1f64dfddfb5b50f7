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
    // The logger's role may not delete events: this function deletes by age alone.
    const { rows } = await sql<{ deleted: number }>`
      select munim_delete_old_events(${cutoff}, ${DELETE_CHUNK}) as deleted`.execute(db);
    const deleted = Number(rows[0]?.deleted ?? 0);
    total += deleted;
    if (deleted < DELETE_CHUNK) return total;
  }
}
