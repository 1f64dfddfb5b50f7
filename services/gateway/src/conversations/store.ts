import { type Conversation, ConversationMessageSchema, type ConversationSummary } from '@munim/contracts';
import type { ConversationMessage, Database } from '@munim/db';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Tenant } from '../auth.ts';
import { HttpRefusal, httpError, noDatabase } from '../http-errors.ts';

/** `#MJ-0001` from a chat number: the id a conversation is shown and exported by. */
export function displayId(chatNumber: number): string {
  return `#MJ-${String(chatNumber).padStart(4, '0')}`;
}

const iso = (value: Date | string) => new Date(value).toISOString();

/** The conversations API needs the database; the 503 without one. */
export const noConversations = () => noDatabase('Conversation history');

/** 404 for a conversation that does not exist, is deleted or is another tenant's. */
export const conversationNotFound = (conversationId: string) =>
  new HttpRefusal(
    404,
    httpError('NOT_FOUND', `No conversation ${conversationId}.`, { field: 'conversationId' }),
  );

export const summaryColumns = [
  'id',
  'chat_number',
  'chat_name',
  'last_message_preview',
  'message_count',
  'created_at',
  'updated_at',
] as const;

type SummaryRow = {
  id: string;
  chat_number: number;
  chat_name: string | null;
  last_message_preview: string | null;
  message_count: number;
  created_at: Date;
  updated_at: Date;
};

/** A conversation row as the console's sidebar shows it. */
export function toSummary(row: SummaryRow): ConversationSummary {
  return {
    id: row.id,
    chatNumber: row.chat_number,
    displayId: displayId(row.chat_number),
    name: row.chat_name,
    preview: row.last_message_preview,
    messageCount: row.message_count,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** Reads one live conversation of a tenant; null when it does not exist, is deleted or is another tenant's. */
export async function loadConversation(
  db: Kysely<Database>,
  tenant: Tenant,
  conversationId: string,
): Promise<Conversation | null> {
  const row = await db
    .selectFrom('unified_conversations')
    .select([...summaryColumns, 'summary', 'messages'])
    .where('id', '=', conversationId)
    .where('entity_id', '=', tenant.entityId)
    .where('org_id', '=', tenant.orgId)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  if (!row) return null;
  const messages = z.array(ConversationMessageSchema).catch([]).parse(row.messages) as ConversationMessage[];
  return { ...toSummary(row), summary: row.summary, messages: messages as Conversation['messages'] };
}
