import { sql } from 'kysely';
import { applyGrants, type Grants, type RoleService } from './grants.ts';
import type { MigrationDb } from './types.ts';

/**
 * `messaging_replies`: each message sent in answer to a message from a phone, by its place in the
 * answer, recorded as soon as the channel took it. A message handled again after its instance died
 * mid-answer sends only what was not sent yet: the person gets each reply once.
 */
export const MESSAGING_REPLY_GRANTS: Partial<Record<RoleService, Grants>> = {
  messaging: { messaging_replies: { select: true, insert: true } },
};

export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('messaging_replies')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('sent_message_id', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('messaging_replies_pk', ['channel', 'message_id', 'idx'])
    .execute();
  await applyGrants(db, MESSAGING_REPLY_GRANTS);
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('messaging_replies').execute();
}
