import type { Database } from '@munim/db';
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';

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

/** The running deletion of old events. */
export interface Retention {
  /** Stops the schedule and waits for a deletion under way. */
  stop(): Promise<void>;
}

/**
 * Deletes old events now and every `intervalMs`, one deletion at a time; a failure is logged and
 * the next run tries again. `days` of 0 or less keeps every event.
 */
export function startRetention(
  db: Kysely<Database>,
  log: Logger,
  days: number,
  intervalMs: number,
): Retention {
  let pruning: Promise<unknown> = Promise.resolve();
  const prune = () => {
    if (days <= 0) return;
    pruning = pruning
      .then(() => deleteOldEvents(db, days))
      .then((deleted) => {
        if (deleted > 0) log.info({ deleted, days }, 'old request events deleted');
      })
      .catch((error: unknown) => log.warn({ err: error }, 'could not delete old request events'));
  };
  prune();
  const timer = setInterval(prune, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await pruning;
    },
  };
}
