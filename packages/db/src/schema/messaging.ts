import type { GeneratedTimestamp, NullableTimestamp, Timestamp } from './columns.ts';

/** A phone's conversation with one tenant (written by the messaging service). */
export interface MessagingConversationsTable {
  /** `whatsapp`. */
  channel: string;
  /** E.164. */
  phone: string;
  entity_id: string;
  org_id: string;
  conversation_id: string;
  /** The user the number named when the conversation began or last wrote. */
  user_id: string;
  /** When the person last wrote: munim may write freely for 24 hours after it. */
  last_inbound_at: Timestamp;
  created_at: GeneratedTimestamp;
}

/** Each message received from a phone, once (written by the messaging service). */
export interface MessagingDeliveriesTable {
  channel: string;
  message_id: string;
  phone: string;
  /** The request that answers it, once submitted. */
  request_id: string | null;
  received_at: GeneratedTimestamp;
  answered_at: NullableTimestamp;
}

/** A confirmation or approval card sent to a phone, which its buttons answer (written by the messaging service). */
export interface MessagingCardsTable {
  channel: string;
  /** The channel's id of the message carrying the card. */
  sent_message_id: string;
  phone: string;
  kind: 'confirm' | 'approve';
  /** The pending action (confirm) or approval (approve) the card's buttons answer. */
  action_id: string;
  entity_id: string;
  org_id: string;
  conversation_id: string;
  created_at: GeneratedTimestamp;
}

/** The channel's statuses of messages munim sent (written by the messaging service). */
export interface MessagingStatusesTable {
  channel: string;
  message_id: string;
  status: string;
  recipient: string;
  at: Timestamp;
  error: unknown;
  recorded_at: GeneratedTimestamp;
}

/** When an unregistered number was last told so (written by the messaging service). */
export interface MessagingRefusalsTable {
  channel: string;
  phone: string;
  refused_at: Timestamp;
}

/** News sent to a phone unasked (an approval's outcome to its maker), once each (written by the messaging service). */
export interface MessagingNoticesTable {
  channel: string;
  /** What the news is about, e.g. `approval:<approvalId>:<status>`. */
  notice_id: string;
  phone: string;
  sent_at: GeneratedTimestamp;
}

/** Each message sent in answer to one from a phone, by its place in the answer (written by the messaging service). */
export interface MessagingRepliesTable {
  channel: string;
  /** The message from the phone it answers. */
  message_id: string;
  idx: number;
  /** The channel's id of the message sent. */
  sent_message_id: string;
  sent_at: GeneratedTimestamp;
}
