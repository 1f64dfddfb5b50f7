import { createHash, createHmac, randomBytes } from 'node:crypto';

/** The phone number id, display number and account id the Graph fixture and these builders use by default. */
export const WHATSAPP_TEST_PHONE_NUMBER_ID = '100000000000001';
export const WHATSAPP_TEST_DISPLAY_NUMBER = '15550001234';
export const WHATSAPP_TEST_WABA_ID = '200000000000002';

/** Which business number a delivery is for (the fixture's by default). */
export interface WebhookTarget {
  phoneNumberId?: string;
  displayPhoneNumber?: string;
  /** The WhatsApp Business Account id, `entry[].id`. */
  wabaId?: string;
}

/** What every inbound message delivery has: the sender's number (wa_id), and optionally its id, time and name. */
export interface InboundMessageOptions extends WebhookTarget {
  from: string;
  /** The message's wamid; a new one by default. */
  id?: string;
  /** Unix seconds; now by default. */
  timestamp?: number;
  /** The sender's profile name. */
  name?: string;
}

/** A webhook delivery as Meta posts it for the `messages` field. */
export interface WebhookDelivery {
  object: 'whatsapp_business_account';
  entry: {
    id: string;
    changes: {
      field: 'messages';
      value: {
        messaging_product: 'whatsapp';
        metadata: { display_phone_number: string; phone_number_id: string };
        contacts?: { profile: { name: string }; wa_id: string }[];
        messages?: Record<string, unknown>[];
        statuses?: Record<string, unknown>[];
      };
    }[];
  }[];
}

/** A wamid like Meta's: "wamid." and a base64 blob. */
export function newWamid(): string {
  return `wamid.${randomBytes(27).toString('base64')}`;
}

const seconds = (timestamp?: number) => String(timestamp ?? Math.floor(Date.now() / 1000));
// Meta reports a media file's hash as base64 SHA-256; the builders only know the id.
const mediaHash = (mediaId: string) => createHash('sha256').update(mediaId).digest('base64');

function delivery(
  target: WebhookTarget,
  value: Pick<
    WebhookDelivery['entry'][number]['changes'][number]['value'],
    'contacts' | 'messages' | 'statuses'
  >,
): WebhookDelivery {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: target.wabaId ?? WHATSAPP_TEST_WABA_ID,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: {
                display_phone_number: target.displayPhoneNumber ?? WHATSAPP_TEST_DISPLAY_NUMBER,
                phone_number_id: target.phoneNumberId ?? WHATSAPP_TEST_PHONE_NUMBER_ID,
              },
              ...value,
            },
          },
        ],
      },
    ],
  };
}

function inbound(
  opts: InboundMessageOptions,
  type: string,
  content: Record<string, unknown>,
): WebhookDelivery {
  return delivery(opts, {
    contacts: [{ profile: { name: opts.name ?? 'Test User' }, wa_id: opts.from }],
    messages: [
      { from: opts.from, id: opts.id ?? newWamid(), timestamp: seconds(opts.timestamp), type, ...content },
    ],
  });
}

/** A user's text message. */
export function textDelivery(opts: InboundMessageOptions & { text: string }): WebhookDelivery {
  return inbound(opts, 'text', { text: { body: opts.text } });
}

/** A user's tap on a reply button of the message `contextId` (ours; a new wamid by default). */
export function buttonReplyDelivery(
  opts: InboundMessageOptions & { buttonId: string; title: string; contextId?: string },
): WebhookDelivery {
  return inbound(opts, 'interactive', {
    context: {
      from: opts.displayPhoneNumber ?? WHATSAPP_TEST_DISPLAY_NUMBER,
      id: opts.contextId ?? newWamid(),
    },
    interactive: { type: 'button_reply', button_reply: { id: opts.buttonId, title: opts.title } },
  });
}

/** Media fields common to the media deliveries; `sha256` is a stand-in hash by default. */
export interface InboundMediaOptions extends InboundMessageOptions {
  mediaId: string;
  sha256?: string;
}

/** A voice note (`voice: true`) or an audio file. */
export function audioDelivery(
  opts: InboundMediaOptions & { voice?: boolean; mimeType?: string },
): WebhookDelivery {
  return inbound(opts, 'audio', {
    audio: {
      mime_type: opts.mimeType ?? 'audio/ogg; codecs=opus',
      sha256: opts.sha256 ?? mediaHash(opts.mediaId),
      id: opts.mediaId,
      voice: opts.voice ?? true,
    },
  });
}

/** A document (a PDF invoice, a spreadsheet). */
export function documentDelivery(
  opts: InboundMediaOptions & { filename: string; mimeType: string; caption?: string },
): WebhookDelivery {
  return inbound(opts, 'document', {
    document: {
      ...(opts.caption === undefined ? {} : { caption: opts.caption }),
      filename: opts.filename,
      mime_type: opts.mimeType,
      sha256: opts.sha256 ?? mediaHash(opts.mediaId),
      id: opts.mediaId,
    },
  });
}

/** A photo (a receipt). */
export function imageDelivery(
  opts: InboundMediaOptions & { mimeType?: string; caption?: string },
): WebhookDelivery {
  return inbound(opts, 'image', {
    image: {
      ...(opts.caption === undefined ? {} : { caption: opts.caption }),
      mime_type: opts.mimeType ?? 'image/jpeg',
      sha256: opts.sha256 ?? mediaHash(opts.mediaId),
      id: opts.mediaId,
    },
  });
}

/** A status update for a message we sent; a failed one carries Meta's error (131026 by default). */
export function statusDelivery(
  opts: WebhookTarget & {
    id: string;
    recipient: string;
    status: 'sent' | 'delivered' | 'read' | 'failed';
    timestamp?: number;
    error?: { code: number; title: string };
  },
): WebhookDelivery {
  const failed = opts.status === 'failed';
  const error = opts.error ?? { code: 131026, title: 'Message undeliverable' };
  return delivery(opts, {
    statuses: [
      {
        id: opts.id,
        status: opts.status,
        timestamp: seconds(opts.timestamp),
        recipient_id: opts.recipient,
        ...(failed
          ? {
              errors: [
                {
                  code: error.code,
                  title: error.title,
                  message: error.title,
                  error_data: { details: error.title },
                },
              ],
            }
          : { pricing: { billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' } }),
      },
    ],
  });
}

/**
 * `X-Hub-Signature-256` as Meta computes it: HMAC-SHA256 with the app secret over the body with
 * every non-ASCII character escaped as `\uXXXX` (lowercase hex), the form Meta signs.
 */
export function signWebhook(rawBody: string, appSecret: string): string {
  const escaped = rawBody.replace(/[^\0-~]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `sha256=${createHmac('sha256', appSecret).update(escaped).digest('hex')}`;
}

/** A delivery's raw body and the headers Meta sends with it, signed with the app secret. */
export function signedWebhook(
  payload: WebhookDelivery,
  appSecret: string,
): { body: string; headers: { 'content-type': string; 'x-hub-signature-256': string } } {
  const body = JSON.stringify(payload);
  return {
    body,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWebhook(body, appSecret) },
  };
}
