import type { InboundContent, MessagingInbound } from '@munim/contracts';
import { z } from 'zod';

/**
 * The parts of a WhatsApp Cloud API webhook delivery munim reads (`object`
 * `whatsapp_business_account`, field `messages`): messages and statuses. Everything else Meta
 * sends is let through unread, so a field added tomorrow breaks nothing.
 */
const Media = z.looseObject({
  id: z.string().min(1).max(256),
  mime_type: z.string().max(200).default('application/octet-stream'),
  filename: z.string().max(255).optional(),
  caption: z.string().max(4000).optional(),
  voice: z.boolean().optional(),
});

const Message = z.looseObject({
  id: z.string().min(1).max(256),
  from: z.string().regex(/^[0-9]{7,15}$/, 'must be the sender’s number, digits only'),
  timestamp: z.string().regex(/^[0-9]{1,12}$/),
  type: z.string().max(64),
  context: z.looseObject({ id: z.string().max(256).optional() }).optional(),
  text: z.looseObject({ body: z.string().max(4096) }).optional(),
  interactive: z
    .looseObject({
      type: z.string(),
      button_reply: z.looseObject({ id: z.string().max(256), title: z.string().max(100) }).optional(),
      list_reply: z.looseObject({ id: z.string().max(256), title: z.string().max(100) }).optional(),
    })
    .optional(),
  /** A template's quick-reply button. */
  button: z.looseObject({ payload: z.string().max(256), text: z.string().max(100) }).optional(),
  audio: Media.optional(),
  document: Media.optional(),
  image: Media.optional(),
});

const Status = z.looseObject({
  id: z.string().min(1).max(256),
  status: z.string().max(32),
  timestamp: z.string().regex(/^[0-9]{1,12}$/),
  recipient_id: z.string().max(32),
  errors: z
    .array(z.looseObject({ code: z.number().int().optional(), title: z.string().max(500).optional() }))
    .optional(),
});

const Delivery = z.looseObject({
  object: z.literal('whatsapp_business_account'),
  entry: z
    .array(
      z.looseObject({
        changes: z.array(
          z.looseObject({
            field: z.string(),
            value: z.looseObject({
              metadata: z.looseObject({ phone_number_id: z.string().max(64) }).optional(),
              messages: z.array(Message).max(100).optional(),
              statuses: z.array(Status).max(100).optional(),
            }),
          }),
        ),
      }),
    )
    .max(100),
});

/** A webhook body that is not a WhatsApp delivery munim can read; the message names what is wrong. */
export class DeliveryShapeError extends Error {
  override name = 'DeliveryShapeError';
}

const isoOf = (seconds: string) => new Date(Number(seconds) * 1000).toISOString();

function contentOf(message: z.infer<typeof Message>): InboundContent {
  const media = (m: z.infer<typeof Media>) => ({
    id: m.id,
    mimeType: m.mime_type,
    ...(m.filename ? { filename: m.filename } : {}),
    ...(m.caption ? { caption: m.caption } : {}),
    ...(m.voice !== undefined ? { voice: m.voice } : {}),
  });
  switch (message.type) {
    case 'text':
      if (message.text) return { kind: 'text', text: message.text.body };
      break;
    case 'interactive': {
      const reply = message.interactive?.button_reply ?? message.interactive?.list_reply;
      if (reply) return { kind: 'button', buttonId: reply.id, title: reply.title };
      break;
    }
    case 'button':
      if (message.button)
        return { kind: 'button', buttonId: message.button.payload, title: message.button.text };
      break;
    case 'audio':
      if (message.audio) return { kind: 'audio', media: media(message.audio) };
      break;
    case 'document':
      if (message.document) return { kind: 'document', media: media(message.document) };
      break;
    case 'image':
      if (message.image) return { kind: 'image', media: media(message.image) };
      break;
  }
  return { kind: 'unsupported', type: message.type };
}

/** The messages and statuses of a webhook delivery, in the order Meta listed them. */
export function readDelivery(body: unknown): MessagingInbound[] {
  const parsed = Delivery.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DeliveryShapeError(
      `not a WhatsApp delivery: ${issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'unreadable'}`,
    );
  }
  const out: MessagingInbound[] = [];
  for (const entry of parsed.data.entry)
    for (const change of entry.changes) {
      if (change.field !== 'messages') continue;
      const to = change.value.metadata?.phone_number_id ?? '';
      for (const message of change.value.messages ?? [])
        out.push({
          type: 'message',
          channel: 'whatsapp',
          messageId: message.id,
          from: `+${message.from}`,
          to,
          sentAt: isoOf(message.timestamp),
          ...(message.context?.id ? { contextId: message.context.id } : {}),
          content: contentOf(message),
        });
      for (const status of change.value.statuses ?? [])
        out.push({
          type: 'status',
          channel: 'whatsapp',
          messageId: status.id,
          recipient: status.recipient_id,
          status: status.status,
          at: isoOf(status.timestamp),
          ...(status.errors?.[0] ? { error: status.errors[0] } : {}),
        });
    }
  return out;
}
