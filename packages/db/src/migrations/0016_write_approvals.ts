import type { MigrationDb } from './types.ts';

/**
 * The executor runs a write only for an approved pending action: the same tenant, tool
 * and argument hash, unexpired, used by one call. `approved_at` is when the user confirmed it;
 * `executed_call_id` the call that used the approval, so a retry of that call (and only that call)
 * finds it again; `approved_by_request` the request that carried the approval, so a redelivery of
 * that request (its agent died) finishes the write instead of being refused as answered already.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('pending_actions')
    .addColumn('approved_at', 'timestamptz')
    .addColumn('executed_call_id', 'text')
    .addColumn('approved_by_request', 'text')
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('pending_actions')
    .dropColumn('approved_at')
    .dropColumn('executed_call_id')
    .dropColumn('approved_by_request')
    .execute();
}
