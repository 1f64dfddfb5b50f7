import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/**
 * One approval, one run: the executor binds an approval to the request as well
 * as the call that first used it, so the same call id under another request id is refused, and
 * notes when it did, so a retry of that call is accepted only while the idempotency store still
 * holds the call's outcome. Approvals used before this migration are bound to the request that
 * carried them, the one that sent their call.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('pending_actions')
    .addColumn('executed_request_id', 'text')
    .addColumn('executed_at', 'timestamptz')
    .execute();
  await sql`update pending_actions
    set executed_request_id = approved_by_request, executed_at = coalesce(decided_at, approved_at, created_at)
    where executed_call_id is not null`.execute(db);
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('pending_actions')
    .dropColumn('executed_request_id')
    .dropColumn('executed_at')
    .execute();
}
