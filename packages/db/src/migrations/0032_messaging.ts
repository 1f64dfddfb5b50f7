import { sql } from 'kysely';
import { applyGrants, ensureServiceRole, type Grants, type RoleService, SERVICE_ROLES } from './grants.ts';
import type { MigrationDb } from './types.ts';

/**
 * The messaging service (WhatsApp): its own login role and tables.
 * - `messaging_conversations`: a phone's conversation with one tenant, and when the person last
 *   wrote (the 24-hour window in which munim may write freely).
 * - `messaging_deliveries`: each message received, once: a delivery seen again (by any instance,
 *   however late) finds its row and is not answered twice.
 * - `messaging_cards`: the confirmation and approval cards sent, so a button is bound to the card
 *   it was on and answers only that card's action, and only while it is the newest card.
 * - `messaging_statuses`: the channel's statuses of the messages munim sent (recorded, not answered).
 * - `messaging_refusals`: when an unregistered number was last told so.
 * - `messaging_notices`: news sent to a phone unasked (an approval's outcome to its maker), once each.
 */
export const MESSAGING_GRANTS: Partial<Record<RoleService, Grants>> = {
  messaging: {
    users: { select: true },
    user_roles: { select: true },
    // A write waiting for approval: which conversation it belongs to, and whether it still waits.
    pending_actions: { select: true },
    business_contexts: { select: true },
    // A document or photo sent from a phone becomes an attachment of the question.
    attachments: { select: true, insert: true },
    messaging_conversations: { select: true, insert: true, update: ['last_inbound_at', 'user_id'] },
    messaging_deliveries: { select: true, insert: true, update: ['request_id', 'answered_at'] },
    messaging_cards: { select: true, insert: true },
    messaging_statuses: { select: true, insert: true },
    messaging_refusals: { select: true, insert: true, update: ['refused_at'] },
    messaging_notices: { select: true, insert: true },
  },
};

export async function up(db: MigrationDb): Promise<void> {
  await ensureServiceRole(db, SERVICE_ROLES.messaging);
  await db.schema
    .createTable('messaging_conversations')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('last_inbound_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('messaging_conversations_pk', ['channel', 'phone', 'entity_id', 'org_id'])
    .execute();
  await db.schema
    .createTable('messaging_deliveries')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('answered_at', 'timestamptz')
    .addPrimaryKeyConstraint('messaging_deliveries_pk', ['channel', 'message_id'])
    .execute();
  await db.schema
    .createTable('messaging_cards')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('sent_message_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('confirm', 'approve')`))
    .addColumn('action_id', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('messaging_cards_pk', ['channel', 'sent_message_id'])
    .execute();
  await db.schema
    .createIndex('messaging_cards_by_phone')
    .on('messaging_cards')
    .columns(['channel', 'phone', 'created_at'])
    .execute();
  await db.schema
    .createTable('messaging_statuses')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('error', 'jsonb')
    .addColumn('recorded_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('messaging_statuses_pk', ['channel', 'message_id', 'status'])
    .execute();
  await db.schema
    .createTable('messaging_refusals')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('refused_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('messaging_refusals_pk', ['channel', 'phone'])
    .execute();
  await db.schema
    .createTable('messaging_notices')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('notice_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('messaging_notices_pk', ['channel', 'notice_id', 'phone'])
    .execute();
  await applyGrants(db, MESSAGING_GRANTS);
}

export async function down(db: MigrationDb): Promise<void> {
  for (const table of [
    'messaging_notices',
    'messaging_refusals',
    'messaging_statuses',
    'messaging_cards',
    'messaging_deliveries',
    'messaging_conversations',
  ])
    await db.schema.dropTable(table).execute();
}
