import { z } from 'zod';
import { defineSubject } from '../subject.ts';

/** A file a messaging delivery carries (voice note, document, image), kept by the channel until fetched. */
export const InboundMediaSchema = z.object({
  /** The channel's media id, fetched through its media API. */
  id: z.string().min(1).max(256),
  mimeType: z.string().max(200),
  filename: z.string().max(255).optional(),
  caption: z.string().max(4000).optional(),
  /** A voice note recorded in the app, as opposed to an audio file sent. */
  voice: z.boolean().optional(),
});
export type InboundMedia = z.infer<typeof InboundMediaSchema>;

/** What a message from a phone carries, read from the channel's own format. */
export const InboundContentSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string().max(4096) }),
  z.object({
    kind: z.literal('button'),
    /** The reply button's id, as munim set it on the card (`confirm:<actionId>`, …). */
    buttonId: z.string().max(256),
    title: z.string().max(100),
  }),
  z.object({ kind: z.literal('audio'), media: InboundMediaSchema }),
  z.object({ kind: z.literal('document'), media: InboundMediaSchema }),
  z.object({ kind: z.literal('image'), media: InboundMediaSchema }),
  /** A kind munim does not read (sticker, location, contacts, …): answered with what it does read. */
  z.object({ kind: z.literal('unsupported'), type: z.string().max(64) }),
]);
export type InboundContent = z.infer<typeof InboundContentSchema>;

/** One message from a phone, or one status of a message munim sent. */
export const MessagingInboundSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('message'),
    channel: z.literal('whatsapp'),
    /** The channel's message id (`wamid.…`): a delivery seen twice is answered once by it. */
    messageId: z.string().min(1).max(256),
    /** The sender's number in E.164. */
    from: z.string().regex(/^\+[1-9][0-9]{6,14}$/),
    /** The business number it was sent to (the Cloud API's phone number id). */
    to: z.string().max(64),
    /** When the person sent it (ISO-8601). */
    sentAt: z.iso.datetime(),
    /** The message of ours it replies to (a card's button, a quoted message). */
    contextId: z.string().max(256).optional(),
    content: InboundContentSchema,
  }),
  z.object({
    type: z.literal('status'),
    channel: z.literal('whatsapp'),
    /** The id of the message of ours the status is about. */
    messageId: z.string().min(1).max(256),
    recipient: z.string().max(32),
    status: z.string().max(32),
    at: z.iso.datetime(),
    /** The channel's error, for a failed message. */
    error: z.object({ code: z.number().int().optional(), title: z.string().max(500).optional() }).optional(),
  }),
]);
export type MessagingInbound = z.infer<typeof MessagingInboundSchema>;

export const messagingInbound = defineSubject({
  kind: 'stream',
  stream: 'work',
  subject: 'work.messaging.inbound',
  schema: MessagingInboundSchema,
  description:
    'A message from a phone or a status of one munim sent, as the messaging service received it from the ' +
    'channel (acknowledged at once; the id of the channel’s message is the dedupe id). Consumed by one ' +
    'messaging instance.',
});
