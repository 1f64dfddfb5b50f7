import type { PersonRole } from '@munim/contracts';

/** The one channel spoken so far. */
export const CHANNEL = 'whatsapp';

/** How long after a person's last message munim may write to them freely (WhatsApp's service window). */
export const SERVICE_WINDOW_MS = 24 * 3600_000;

/** A registered sender: the user their number names, and the tenant and roles they act with. */
export interface Sender {
  userId: string;
  name: string;
  orgId: string;
  entityId: string;
  roles: PersonRole[];
}

/** Why a number names nobody to act as. */
export type NoSender = { reason: 'unknown' | 'ambiguous' | 'no_roles' };

/** A phone's conversation with a tenant. */
export interface PhoneConversation {
  conversationId: string;
  /** When the person last wrote before this message (null: never). */
  lastInboundAt: Date | null;
}

/** A card sent to a phone, which its buttons answer. */
export interface Card {
  sentMessageId: string;
  phone: string;
  kind: 'confirm' | 'approve';
  actionId: string;
  entityId: string;
  orgId: string;
  conversationId: string;
}
