import { MORE_INTENTS, starterIntentRow } from '../seed/intents.ts';
import type { MigrationDb } from './types.ts';

/**
 * Adds the router's wider intent catalog to the starter one. Rows that already exist
 * (by id or name) are left as they are, so intents an operator edited keep their edits.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db
    .insertInto('intents')
    .values(MORE_INTENTS.map(starterIntentRow))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Removes the intents of {@link up}. */
export async function down(db: MigrationDb): Promise<void> {
  await db
    .deleteFrom('intents')
    .where(
      'id',
      'in',
      MORE_INTENTS.map((intent) => intent.id),
    )
    .execute();
}
