import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { MessagingPeople } from './people.ts';
import { type Card, CHANNEL, type PhoneConversation, SERVICE_WINDOW_MS, type Sender } from './store-types.ts';

export * from './store-types.ts';

/** The messaging service's tables, and what it reads of the people and approvals. */
export class MessagingStore extends MessagingPeople {
  /** The phone's conversation with the tenant (made on first use), and when the person last wrote before now. */
  async conversation(phone: string, sender: Sender, at: Date): Promise<PhoneConversation> {
    const before = await this.db
      .selectFrom('messaging_conversations')
      .select(['conversation_id', 'last_inbound_at'])
      .where('channel', '=', CHANNEL)
      .where('phone', '=', phone)
      .where('entity_id', '=', sender.entityId)
      .where('org_id', '=', sender.orgId)
      .executeTakeFirst();
    const row = await this.db
      .insertInto('messaging_conversations')
      .values({
        channel: CHANNEL,
        phone,
        entity_id: sender.entityId,
        org_id: sender.orgId,
        conversation_id: randomUUID(),
        user_id: sender.userId,
        last_inbound_at: at,
      })
      .onConflict((c) =>
        c.columns(['channel', 'phone', 'entity_id', 'org_id']).doUpdateSet({
          last_inbound_at: sql`greatest(messaging_conversations.last_inbound_at, excluded.last_inbound_at)`,
          user_id: sender.userId,
        }),
      )
      .returning('conversation_id')
      .executeTakeFirstOrThrow();
    return {
      conversationId: row.conversation_id,
      lastInboundAt: before ? new Date(before.last_inbound_at) : null,
    };
  }

  /** When the phone last wrote to munim, about any tenant (null: never). */
  async lastInbound(phone: string): Promise<Date | null> {
    const row = await this.db
      .selectFrom('messaging_conversations')
      .select((e) => e.fn.max('last_inbound_at').as('at'))
      .where('channel', '=', CHANNEL)
      .where('phone', '=', phone)
      .executeTakeFirst();
    return row?.at ? new Date(row.at as unknown as string) : null;
  }

  /**
   * Records a delivery: `new` the first time; `seen` with its request (if one was submitted) and
   * whether it was answered, when it was recorded before (a redelivery, or Meta sending it again).
   */
  async receive(
    messageId: string,
    phone: string,
  ): Promise<{ first: boolean; requestId: string | null; answered: boolean }> {
    const made = await this.db
      .insertInto('messaging_deliveries')
      .values({ channel: CHANNEL, message_id: messageId, phone })
      .onConflict((c) => c.columns(['channel', 'message_id']).doNothing())
      .returning('message_id')
      .executeTakeFirst();
    if (made) return { first: true, requestId: null, answered: false };
    const row = await this.db
      .selectFrom('messaging_deliveries')
      .select(['request_id', 'answered_at'])
      .where('channel', '=', CHANNEL)
      .where('message_id', '=', messageId)
      .executeTakeFirstOrThrow();
    return { first: false, requestId: row.request_id, answered: row.answered_at !== null };
  }

  /** The request that answers a delivery: set once, so a redelivery follows the same one. */
  async submitted(messageId: string, requestId: string): Promise<string> {
    await this.db
      .updateTable('messaging_deliveries')
      .set({ request_id: requestId })
      .where('channel', '=', CHANNEL)
      .where('message_id', '=', messageId)
      .where('request_id', 'is', null)
      .execute();
    const row = await this.db
      .selectFrom('messaging_deliveries')
      .select('request_id')
      .where('channel', '=', CHANNEL)
      .where('message_id', '=', messageId)
      .executeTakeFirstOrThrow();
    return row.request_id ?? requestId;
  }

  async answered(messageId: string): Promise<void> {
    await this.db
      .updateTable('messaging_deliveries')
      .set({ answered_at: new Date() })
      .where('channel', '=', CHANNEL)
      .where('message_id', '=', messageId)
      .where('answered_at', 'is', null)
      .execute();
  }

  async recordCard(card: Card): Promise<void> {
    await this.db
      .insertInto('messaging_cards')
      .values({
        channel: CHANNEL,
        sent_message_id: card.sentMessageId,
        phone: card.phone,
        kind: card.kind,
        action_id: card.actionId,
        entity_id: card.entityId,
        org_id: card.orgId,
        conversation_id: card.conversationId,
      })
      .onConflict((c) => c.columns(['channel', 'sent_message_id']).doNothing())
      .execute();
  }

  /** The card a button was on: the message it replies to, sent to this phone. */
  async card(phone: string, sentMessageId: string): Promise<Card | undefined> {
    const row = await this.db
      .selectFrom('messaging_cards')
      .selectAll()
      .where('channel', '=', CHANNEL)
      .where('sent_message_id', '=', sentMessageId)
      .where('phone', '=', phone)
      .executeTakeFirst();
    return row
      ? {
          sentMessageId: row.sent_message_id,
          phone: row.phone,
          kind: row.kind,
          actionId: row.action_id,
          entityId: row.entity_id,
          orgId: row.org_id,
          conversationId: row.conversation_id,
        }
      : undefined;
  }

  /** The newest confirmation card sent to the phone in a conversation. */
  async latestCard(phone: string, conversationId: string): Promise<Card | undefined> {
    const row = await this.db
      .selectFrom('messaging_cards')
      .select('sent_message_id')
      .where('channel', '=', CHANNEL)
      .where('phone', '=', phone)
      .where('conversation_id', '=', conversationId)
      .where('kind', '=', 'confirm')
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? this.card(phone, row.sent_message_id) : undefined;
  }

  /** The word a tier-3 card asks to be typed, while its action still waits for it. */
  async confirmWord(card: Card): Promise<string | null> {
    const row = await this.db
      .selectFrom('pending_actions')
      .select('confirm_text')
      .where('action_id', '=', card.actionId)
      .where('entity_id', '=', card.entityId)
      .where('org_id', '=', card.orgId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row?.confirm_text ?? null;
  }

  /** Whether a phone was sent the card of an action already (an event seen twice sends one card). */
  async hasCard(phone: string, actionId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('messaging_cards')
      .select('sent_message_id')
      .where('channel', '=', CHANNEL)
      .where('phone', '=', phone)
      .where('action_id', '=', actionId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The conversation an approval belongs to (the maker's), while it still waits. */
  async waitingApproval(
    tenant: { entityId: string; orgId: string },
    approvalId: string,
  ): Promise<{ conversationId: string; requestedBy: string | null } | undefined> {
    const row = await this.db
      .selectFrom('pending_actions')
      .select(['conversation_id', 'requested_by', 'status'])
      .where('action_id', '=', approvalId)
      .where('entity_id', '=', tenant.entityId)
      .where('org_id', '=', tenant.orgId)
      .where('approval_requested_at', 'is not', null)
      .executeTakeFirst();
    return row ? { conversationId: row.conversation_id, requestedBy: row.requested_by } : undefined;
  }

  async recordStatus(status: {
    messageId: string;
    status: string;
    recipient: string;
    at: Date;
    error?: unknown;
  }): Promise<void> {
    await this.db
      .insertInto('messaging_statuses')
      .values({
        channel: CHANNEL,
        message_id: status.messageId,
        status: status.status,
        recipient: status.recipient,
        at: status.at,
        error: status.error === undefined ? null : JSON.stringify(status.error),
      })
      .onConflict((c) => c.columns(['channel', 'message_id', 'status']).doNothing())
      .execute();
  }

  /** The replies to a message sent so far, by their place in the answer. */
  async repliesSent(messageId: string): Promise<Map<number, string>> {
    const rows = await this.db
      .selectFrom('messaging_replies')
      .select(['idx', 'sent_message_id'])
      .where('channel', '=', CHANNEL)
      .where('message_id', '=', messageId)
      .execute();
    return new Map(rows.map((r) => [r.idx, r.sent_message_id]));
  }

  /** Records a reply the channel took, at once: a redelivery will not send it again. */
  async replySent(messageId: string, idx: number, sentMessageId: string): Promise<void> {
    await this.db
      .insertInto('messaging_replies')
      .values({ channel: CHANNEL, message_id: messageId, idx, sent_message_id: sentMessageId })
      .onConflict((c) => c.columns(['channel', 'message_id', 'idx']).doNothing())
      .execute();
  }

  /** The phone whose conversation this is, and when it last wrote; undefined for a conversation of no phone. */
  async phoneOf(conversationId: string): Promise<{ phone: string; lastInboundAt: Date } | undefined> {
    const row = await this.db
      .selectFrom('messaging_conversations')
      .select(['phone', 'last_inbound_at'])
      .where('channel', '=', CHANNEL)
      .where('conversation_id', '=', conversationId)
      .executeTakeFirst();
    return row ? { phone: row.phone, lastInboundAt: new Date(row.last_inbound_at) } : undefined;
  }

  /** Claims a notice for a phone: true the first time only, so news is sent once however often it is seen. */
  async claimNotice(noticeId: string, phone: string): Promise<boolean> {
    const row = await this.db
      .insertInto('messaging_notices')
      .values({ channel: CHANNEL, notice_id: noticeId, phone })
      .onConflict((c) => c.columns(['channel', 'notice_id', 'phone']).doNothing())
      .returning('notice_id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Whether an unregistered number may be told so now: once a day at most, so a stranger cannot make munim spam. */
  async mayRefuse(phone: string, now: Date): Promise<boolean> {
    const cutoff = new Date(now.getTime() - SERVICE_WINDOW_MS);
    const row = await this.db
      .insertInto('messaging_refusals')
      .values({ channel: CHANNEL, phone, refused_at: now })
      .onConflict((c) =>
        c
          .columns(['channel', 'phone'])
          .doUpdateSet({ refused_at: now })
          .where('messaging_refusals.refused_at', '<', cutoff),
      )
      .returning('phone')
      .executeTakeFirst();
    return row !== undefined;
  }
}
