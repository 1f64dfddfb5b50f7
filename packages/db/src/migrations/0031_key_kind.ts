import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/**
 * What an issued API key is for. A `person` key is a person's own credential (the console, their
 * own scripts run on their behalf as themselves); a `program` key is a program's: it never
 * confirms or approves its own writes unless its user holds the `automation` role, so its
 * writes wait for a person.
 */
export const KEY_KINDS = ['person', 'program'] as const;

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('kind', 'text', (c) =>
      c.notNull().defaultTo('person').check(sql`kind in ('person', 'program')`),
    )
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('kind').execute();
}
