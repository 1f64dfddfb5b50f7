import { STARTER_INTENTS, starterIntentRow } from '../seed/intents.ts';
import type { MigrationDb } from './types.ts';

/**
 * Inserts the starter intent catalog. Rows that already exist (by id or name) are left as
 * they are, so intents an operator edited keep their edits.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db
    .insertInto('intents')
    .values(STARTER_INTENTS.map(starterIntentRow))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Removes the starter intents. */
export async function down(db: MigrationDb): Promise<void> {
  await db
    .deleteFrom('intents')
    .where(
      'id',
      'in',
      STARTER_INTENTS.map((intent) => intent.id),
    )
    .execute();
}
