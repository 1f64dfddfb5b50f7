import { timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { WhatsAppAPI } from 'whatsapp-api-js';
import { ActionButtons, Body, Button, Document, Interactive, Template, Text } from 'whatsapp-api-js/messages';
import type {
  ClientIndividualRecipientIdentifier,
  ClientMessage,
  ServerMessageResponse,
} from 'whatsapp-api-js/types';
import { z } from 'zod';
import { WhatsAppMediaTooLargeError, WhatsAppMessageInvalidError, WhatsAppSendError } from './errors.ts';
import { createGraphFetch, DEFAULT_RETRY, type RetryPolicy } from './transport.ts';

/** The Graph API version this client speaks unless told otherwise. */
export const DEFAULT_GRAPH_API_VERSION = 'v24.0';

const ConfigSchema = z.object({
  graphUrl: z.url({ protocol: /^https?$/ }),
  accessToken: z.string().min(1),
  // Both go into URL paths: digits only, so neither can reach another Graph object.
  phoneNumberId: z.string().regex(/^\d{1,32}$/),
  appSecret: z.string().min(1),
  apiVersion: z.string().regex(/^v\d+\.\d+$/),
});

const MEDIA_ID = /^[0-9A-Za-z_-]{1,128}$/;
const SIGNATURE_HEADER = /^sha256=[0-9a-fA-F]{64}$/;

/** How {@link WhatsAppGraph} reaches the Cloud API. */
export interface WhatsAppGraphOptions {
  /** `WHATSAPP_GRAPH_URL`: where Graph calls go (https://graph.facebook.com in production). */
  graphUrl: string;
  accessToken: string;
  phoneNumberId: string;
  appSecret: string;
  /** Graph API version, `vNN.N`; {@link DEFAULT_GRAPH_API_VERSION} by default. */
  apiVersion?: string | undefined;
  log: Logger;
  retry?: RetryPolicy | undefined;
  /** Per request (headers and body), 30 s by default. */
  timeoutMs?: number | undefined;
  /** The fetch under the retrying one; kit's `outboundFetch()` by default. */
  fetch?: typeof fetch | undefined;
}

/** A reply button: `id` comes back in the webhook when tapped (≤ 256 chars), `title` is shown (≤ 20). */
export interface ReplyButton {
  id: string;
  title: string;
}

/** A file to send as a WhatsApp document. */
export interface OutgoingDocument {
  filename: string;
  /** One of the Cloud API's media types (application/pdf, text/plain, the Office types…). */
  mimeType: string;
  content: string | Uint8Array;
  caption?: string | undefined;
}

/** A downloaded media file. */
export interface DownloadedMedia {
  bytes: Uint8Array;
  mimeType: string;
  /** Meta's hash of the file, as Graph reports it. */
  sha256?: string;
}

/** Builds a library message, turning its plain `Error` for bad input into a named one. */
function build<T>(what: string, make: () => T): T {
  try {
    return make();
  } catch (error) {
    throw new WhatsAppMessageInvalidError(`${what}: ${(error as Error).message}`, { cause: error });
  }
}

function checkButtons(body: string, buttons: readonly ReplyButton[]): void {
  const refuse = (why: string) => {
    throw new WhatsAppMessageInvalidError(`buttons message: ${why}`);
  };
  if (body.trim() === '') refuse('the body is empty');
  if (body.length > 1024) refuse(`the body is ${body.length} characters, more than 1024`);
  if (buttons.length < 1 || buttons.length > 3) refuse(`${buttons.length} buttons, 1 to 3 are allowed`);
  for (const { id, title } of buttons) {
    if (id.length < 1 || id.length > 256)
      refuse(`button id of ${id.length} characters, 1 to 256 are allowed`);
    if (id !== id.trim()) refuse('a button id has leading or trailing spaces');
    if (title.trim() === '' || title.length > 20)
      refuse(`button title "${title}" must be 1 to 20 characters`);
  }
  if (new Set(buttons.map((b) => b.id)).size !== buttons.length) refuse('button ids repeat');
  if (new Set(buttons.map((b) => b.title)).size !== buttons.length) refuse('button titles repeat');
}

/** Reads a body, refusing it once it passes maxBytes (the rest is never read). */
async function readCapped(response: Response, mediaId: string, maxBytes: number): Promise<Uint8Array> {
  const declared = response.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    await response.body?.cancel();
    throw new WhatsAppMediaTooLargeError(mediaId, maxBytes, Number(declared));
  }
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new WhatsAppMediaTooLargeError(mediaId, maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * munim's WhatsApp Cloud API client: whatsapp-api-js for the message formats and endpoints, over a
 * fetch that rebases its calls onto `graphUrl`, retries what can be retried and turns a failed
 * answer into {@link WhatsAppSendError}. The access token goes into request headers only.
 * Graph has no idempotency key: a send retried after a 5xx or a dropped connection may arrive twice.
 */
export class WhatsAppGraph {
  readonly #api: WhatsAppAPI;
  readonly #phoneNumberId: string;
  readonly #log: Logger;

  constructor(options: WhatsAppGraphOptions) {
    const config = ConfigSchema.safeParse({
      ...options,
      apiVersion: options.apiVersion ?? DEFAULT_GRAPH_API_VERSION,
    });
    if (!config.success)
      // The issues name the fields, never their values: the token and secret stay out of the message.
      throw new Error(
        `WhatsApp configuration: ${config.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
      );
    const { graphUrl, accessToken, phoneNumberId, appSecret, apiVersion } = config.data;
    this.#phoneNumberId = phoneNumberId;
    this.#log = options.log;
    const graphFetch = createGraphFetch({
      graphUrl,
      log: options.log,
      retry: options.retry ?? DEFAULT_RETRY,
      timeoutMs: options.timeoutMs ?? 30_000,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    this.#api = new WhatsAppAPI({
      token: accessToken,
      appSecret,
      v: apiVersion,
      ponyfill: { fetch: graphFetch },
    });
  }

  /** Sends a text message (≤ 4096 characters), as a reply to `replyTo` (a wamid) when given. */
  async sendText(
    to: string,
    body: string,
    opts: { replyTo?: string | undefined } = {},
  ): Promise<{ messageId: string }> {
    if (body.trim() === '') throw new WhatsAppMessageInvalidError('text message: the body is empty');
    return this.#send(
      to,
      build('text message', () => new Text(body)),
      opts.replyTo,
    );
  }

  /**
   * Sends a message with 1 to 3 reply buttons (id ≤ 256 characters, title 1–20, each unique).
   * @throws WhatsAppMessageInvalidError for input the Cloud API would reject, before any request.
   */
  async sendButtons(
    to: string,
    body: string,
    buttons: readonly ReplyButton[],
  ): Promise<{ messageId: string }> {
    checkButtons(body, buttons);
    const message = build('buttons message', () => {
      const [first, ...rest] = buttons.map((b) => new Button(b.id, b.title));
      return new Interactive(new ActionButtons(first!, ...rest), new Body(body));
    });
    return this.#send(to, message);
  }

  /** Uploads the file to the phone number's media, then sends it as a document by its media id. */
  async sendDocument(to: string, doc: OutgoingDocument): Promise<{ messageId: string }> {
    const bytes = typeof doc.content === 'string' ? new TextEncoder().encode(doc.content) : doc.content;
    const form = new FormData();
    form.append('messaging_product', 'whatsapp');
    form.append('type', doc.mimeType);
    form.append('file', new Blob([new Uint8Array(bytes)], { type: doc.mimeType }), doc.filename);
    let uploaded: Awaited<ReturnType<WhatsAppAPI['uploadMedia']>>;
    try {
      uploaded = await this.#api.uploadMedia(this.#phoneNumberId, form);
    } catch (error) {
      if (error instanceof WhatsAppSendError) throw error;
      throw new WhatsAppMessageInvalidError(`document ${doc.filename}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (!('id' in uploaded) || typeof uploaded.id !== 'string')
      throw new WhatsAppSendError('media upload answered without a media id', { attempts: 1 });
    const message = build(
      'document message',
      () => new Document(uploaded.id, true, doc.caption, doc.filename),
    );
    return this.#send(to, message);
  }

  /** Sends an approved template without parameters (the only way to write outside the 24-hour window). */
  async sendTemplate(to: string, name: string, language: string): Promise<{ messageId: string }> {
    return this.#send(
      to,
      build('template message', () => new Template(name, language)),
    );
  }

  /**
   * Downloads a media file by id: its URL from Graph, then the file from that URL with the token.
   * @throws WhatsAppMediaTooLargeError past maxBytes (by Graph's size, the answer's length, or while reading).
   */
  async downloadMedia(mediaId: string, maxBytes: number): Promise<DownloadedMedia> {
    if (!MEDIA_ID.test(mediaId)) throw new WhatsAppMessageInvalidError(`media id "${mediaId}" is malformed`);
    const info = await this.#api.retrieveMedia(mediaId, this.#phoneNumberId);
    if ('error' in info || typeof info.url !== 'string')
      throw new WhatsAppSendError(`media ${mediaId}: Graph answered without a URL`, { attempts: 1 });
    const size = Number(info.file_size);
    if (Number.isFinite(size) && size > maxBytes)
      throw new WhatsAppMediaTooLargeError(mediaId, maxBytes, size);
    const protocol = URL.canParse(info.url) ? new URL(info.url).protocol : '';
    if (protocol !== 'https:' && protocol !== 'http:')
      throw new WhatsAppSendError(`media ${mediaId}: refused a download URL that is not http(s)`, {
        attempts: 0,
      });
    const response = await this.#api.fetchMedia(info.url);
    const bytes = await readCapped(response, mediaId, maxBytes);
    const mimeType = info.mime_type ?? response.headers.get('content-type') ?? 'application/octet-stream';
    return { bytes, mimeType, ...(info.sha256 ? { sha256: info.sha256 } : {}) };
  }

  /**
   * Whether `X-Hub-Signature-256` is Meta's signature of this raw body with the app secret
   * (HMAC-SHA256; checked by the library through WebCrypto's verify, which compares in constant time).
   * A missing or malformed header is false, never an exception.
   */
  async verifySignature(rawBody: string, header: string | undefined): Promise<boolean> {
    if (header === undefined || !SIGNATURE_HEADER.test(header)) return false;
    return this.#api.verifyRequestSignature(rawBody, header.toLowerCase());
  }

  /**
   * Meta's webhook subscription handshake: the challenge to echo when `hub.mode` is `subscribe` and
   * `hub.verify_token` is ours (compared in constant time), else null.
   */
  verifyHandshake(params: Record<string, string | undefined>, verifyToken: string): string | null {
    const mode = params['hub.mode'];
    const token = params['hub.verify_token'];
    const challenge = params['hub.challenge'];
    if (mode !== 'subscribe' || !token || !challenge || !verifyToken) return null;
    const given = Buffer.from(token);
    const expected = Buffer.from(verifyToken);
    return given.length === expected.length && timingSafeEqual(given, expected) ? challenge : null;
  }

  async #send(to: string, message: ClientMessage, replyTo?: string): Promise<{ messageId: string }> {
    if (!/^\+?\d{5,20}$/.test(to)) throw new WhatsAppMessageInvalidError('recipient is not a phone number');
    const response: ServerMessageResponse = await this.#api.sendMessage(
      this.#phoneNumberId,
      // The library's type asks for a BSUID as well; a phone number alone is a valid recipient.
      { phone: to.replace(/^\+/, '') } as ClientIndividualRecipientIdentifier,
      message,
      replyTo,
    );
    const messageId = 'messages' in response ? response.messages[0]?.id : undefined;
    if (!messageId)
      throw new WhatsAppSendError('send message answered without a message id', { attempts: 1 });
    this.#log.debug({ type: message._type, messageId }, 'whatsapp: sent');
    return { messageId };
  }
}
