import { sql } from 'kysely';
import type { Grants, RoleService } from './grants.ts';
import { applyGrants } from './grants.ts';
import type { MigrationDb } from './types.ts';

/** The agent numbers a tenant's chats. */
export const CHAT_NUMBER_GRANTS: Partial<Record<RoleService, Grants>> = {
  agent: { conversation_chat_numbers: { select: true, insert: true, update: true } },
};

/**
 * `conversation_chat_numbers`: the last chat number given in each tenant (entity + org). A new
 * conversation takes the next one in the statement that inserts it: the row's lock orders a
 * tenant's first turns, where a transaction holding an advisory lock took four round trips. A row
 * starts from the tenant's highest number, so conversations numbered before it keep theirs.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('conversation_chat_numbers')
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('last_number', 'integer', (c) => c.notNull().check(sql`last_number > 0`))
    .addPrimaryKeyConstraint('conversation_chat_numbers_pk', ['entity_id', 'org_id'])
    .execute();
  await applyGrants(db, CHAT_NUMBER_GRANTS);
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('conversation_chat_numbers').execute();
}
