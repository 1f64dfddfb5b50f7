import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newWamid, WHATSAPP_TEST_PHONE_NUMBER_ID } from './whatsapp-webhooks.ts';

/** A message the fixture accepted (answered with a wamid), with its JSON body as sent. */
export interface GraphSentMessage {
  id: string;
  phoneNumberId: string;
  to: string;
  type: string;
  body: Record<string, unknown>;
}

/** A file uploaded to `POST /:version/:phoneNumberId/media`. */
export interface GraphUpload {
  id: string;
  phoneNumberId: string;
  filename: string;
  mimeType: string;
  bytes: Uint8Array;
}

/** Which Cloud API endpoint a request reached. */
export type GraphEndpoint = 'messages' | 'media-upload' | 'media-info' | 'media-download';

/** Every request the fixture answered: path without the query, the status it answered. */
export interface GraphRequest {
  method: string;
  path: string;
  endpoint: GraphEndpoint | undefined;
  status: number;
}

/** An error answer to inject, shaped like Graph's `{ error: { code, message, … } }`. */
export interface GraphFault {
  status: number;
  code?: number;
  message?: string;
  /** Seconds, sent as `Retry-After`. */
  retryAfter?: number;
  /** Only requests to this endpoint take the fault (any endpoint by default). */
  endpoint?: GraphEndpoint;
}

export interface GraphFixtureOptions {
  accessToken?: string;
  phoneNumberId?: string;
}

/** A fake WhatsApp Cloud API on 127.0.0.1 speaking the real endpoints; see {@link startGraphFixture}. */
export interface GraphFixture {
  /** The base URL to use as `WHATSAPP_GRAPH_URL`. */
  readonly url: string;
  readonly accessToken: string;
  readonly phoneNumberId: string;
  readonly requests: GraphRequest[];
  readonly sent: GraphSentMessage[];
  readonly uploads: GraphUpload[];
  /**
   * A media file as if a user had sent it; its id for webhook deliveries and `GET /:version/:mediaId`.
   * `reportedSize` makes Graph report another `file_size`; `chunked` leaves out Content-Length.
   */
  addMedia(
    bytes: Uint8Array | string,
    mimeType: string,
    opts?: { reportedSize?: number; chunked?: boolean },
  ): string;
  /** The next n matching requests are answered with this error. */
  failNext(n: number, fault: GraphFault): void;
  /** Resolves with the accepted messages (to one recipient when given) once there are at least n. */
  waitForMessages(n: number, opts?: { to?: string; timeoutMs?: number }): Promise<GraphSentMessage[]>;
  close(): Promise<void>;
}

interface StoredMedia {
  bytes: Uint8Array;
  mimeType: string;
  reportedSize?: number | undefined;
  chunked?: boolean | undefined;
}

const FAULT_MESSAGES: Record<number, string> = {
  4: 'Application request limit reached',
  100: 'Invalid parameter',
  131000: 'Something went wrong',
  80007: 'Rate limit issues',
  130429: 'Rate limit hit',
  131048: 'Spam rate limit hit',
  131056: '(Business Account, Consumer Account) pair rate limit hit',
};

const MESSAGE_TYPES = new Set([
  'text',
  'audio',
  'document',
  'image',
  'sticker',
  'video',
  'location',
  'contacts',
  'interactive',
  'template',
  'reaction',
]);

class GraphRefusal extends Error {
  readonly status: number;
  readonly code: number;
  constructor(status: number, code: number, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const refuse = (message: string, code = 100, status = 400) => new GraphRefusal(status, code, message);

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function graphError(code: number, message: string) {
  return {
    error: {
      message,
      type: 'OAuthException',
      code,
      error_data: { messaging_product: 'whatsapp', details: message },
      fbtrace_id: randomBytes(9).toString('base64url'),
    },
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The checks Meta makes that a client most easily gets wrong; answers Graph's code 100 otherwise. */
function checkMessage(body: Record<string, unknown>, mediaIds: (id: string) => boolean): void {
  if (body.messaging_product !== 'whatsapp') throw refuse('The parameter messaging_product is required.');
  if (typeof body.to !== 'string' || body.to === '') throw refuse('The parameter to is required.');
  const type = body.type;
  if (typeof type !== 'string' || !MESSAGE_TYPES.has(type))
    throw refuse(`Invalid message type ${String(type)}`);
  const content = body[type] as Record<string, unknown> | undefined;
  if (!content || typeof content !== 'object') throw refuse(`The parameter ${type} is required.`);
  if (
    type === 'text' &&
    (typeof content.body !== 'string' || content.body === '' || content.body.length > 4096)
  )
    throw refuse('text.body must be 1 to 4096 characters');
  if (type === 'interactive' && content.type === 'button') {
    const buttons = (
      content.action as { buttons?: { type?: string; reply?: { id?: string; title?: string } }[] }
    )?.buttons;
    if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > 3)
      throw refuse('interactive.action.buttons must have 1 to 3 buttons');
    for (const b of buttons)
      if (b.type !== 'reply' || !b.reply?.id || !b.reply.title || b.reply.title.length > 20)
        throw refuse('each button needs type reply, an id and a title of at most 20 characters');
    if (typeof (content.body as { text?: unknown })?.text !== 'string')
      throw refuse('interactive.body.text is required');
  }
  if (['audio', 'document', 'image', 'sticker', 'video'].includes(type)) {
    if (typeof content.id === 'string') {
      if (!mediaIds(content.id)) throw refuse(`Media id ${content.id} does not exist`, 131053);
    } else if (typeof content.link !== 'string') throw refuse(`${type} needs an id or a link`);
  }
  if (type === 'template') {
    const language = content.language as { code?: unknown } | undefined;
    if (typeof content.name !== 'string' || typeof language?.code !== 'string')
      throw refuse('template.name and template.language.code are required');
  }
}

/**
 * Starts a fake WhatsApp Cloud API (Graph) on 127.0.0.1 and a random port. It answers
 * `POST /:version/:phoneNumberId/messages`, `POST /:version/:phoneNumberId/media` (multipart),
 * `GET /:version/:mediaId` and `GET /media-download/:mediaId` as Meta documents them, requires
 * `Authorization: Bearer <accessToken>` on each, and records what it was sent.
 */
export async function startGraphFixture(options: GraphFixtureOptions = {}): Promise<GraphFixture> {
  const accessToken = options.accessToken ?? 'test-whatsapp-token';
  const phoneNumberId = options.phoneNumberId ?? WHATSAPP_TEST_PHONE_NUMBER_ID;
  const media = new Map<string, StoredMedia>();
  const requests: GraphRequest[] = [];
  const sent: GraphSentMessage[] = [];
  const uploads: GraphUpload[] = [];
  const faults: { remaining: number; fault: GraphFault }[] = [];
  const waiters = new Set<() => void>();
  let nextMediaId = 1_100_000_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;
  let url = '';

  const storeMedia = (stored: StoredMedia): string => {
    const id = String(nextMediaId++);
    media.set(id, stored);
    return id;
  };

  const route = (method: string, path: string): { endpoint: GraphEndpoint; param: string } | undefined => {
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    if (method === 'GET' && parts.length === 2 && parts[0] === 'media-download')
      return { endpoint: 'media-download', param: parts[1]! };
    if (!/^v\d+\.\d+$/.test(parts[0] ?? '')) return undefined;
    if (method === 'POST' && parts.length === 3 && parts[2] === 'messages')
      return { endpoint: 'messages', param: parts[1]! };
    if (method === 'POST' && parts.length === 3 && parts[2] === 'media')
      return { endpoint: 'media-upload', param: parts[1]! };
    if (method === 'GET' && parts.length === 2) return { endpoint: 'media-info', param: parts[1]! };
    return undefined;
  };

  const handle = async (
    req: IncomingMessage,
    res: ServerResponse,
    endpoint: GraphEndpoint,
    param: string,
  ) => {
    const query = new URL(req.url ?? '/', 'http://fixture').searchParams;
    if (endpoint === 'messages' || endpoint === 'media-upload') {
      if (param !== phoneNumberId)
        throw refuse(`Unsupported post request. Object with ID '${param}' does not exist`);
    }
    if (endpoint === 'messages') {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse((await readBody(req)).toString('utf8')) as Record<string, unknown>;
      } catch {
        throw refuse('Invalid JSON payload');
      }
      if (body.status === 'read') return sendJson(res, 200, { success: true });
      checkMessage(body, (id) => media.has(id));
      const to = body.to as string;
      const message = { id: newWamid(), phoneNumberId, to, type: body.type as string, body };
      sent.push(message);
      for (const wake of waiters) wake();
      return sendJson(res, 200, {
        messaging_product: 'whatsapp',
        contacts: [{ input: to, wa_id: to.replace(/^\+/, '') }],
        messages: [{ id: message.id }],
      });
    }
    if (endpoint === 'media-upload') {
      const type = req.headers['content-type'] ?? '';
      if (!type.startsWith('multipart/form-data')) throw refuse('Upload must be multipart/form-data');
      const form = await new Response(new Uint8Array(await readBody(req)), {
        headers: { 'content-type': type },
      }).formData();
      const file = form.get('file');
      if ((query.get('messaging_product') ?? form.get('messaging_product')) !== 'whatsapp')
        throw refuse('The parameter messaging_product is required.');
      if (!(file instanceof File)) throw refuse('The parameter file is required.');
      const mimeType = String(form.get('type') ?? file.type);
      if (!mimeType) throw refuse('The parameter type is required.');
      const bytes = new Uint8Array(await file.arrayBuffer());
      const id = storeMedia({ bytes, mimeType });
      uploads.push({ id, phoneNumberId: param, filename: file.name, mimeType, bytes });
      return sendJson(res, 200, { id });
    }
    const stored = media.get(param);
    if (!stored) throw refuse(`Unsupported get request. Object with ID '${param}' does not exist`, 100, 404);
    if (endpoint === 'media-info') {
      const asked = query.get('phone_number_id');
      if (asked !== null && asked !== phoneNumberId)
        throw refuse(`Media ${param} does not belong to phone number ${asked}`);
      return sendJson(res, 200, {
        messaging_product: 'whatsapp',
        url: `${url}/media-download/${param}`,
        mime_type: stored.mimeType,
        sha256: createHash('sha256').update(stored.bytes).digest('base64'),
        file_size: stored.reportedSize ?? stored.bytes.byteLength,
        id: param,
      });
    }
    res.writeHead(200, {
      'content-type': stored.mimeType,
      ...(stored.chunked ? {} : { 'content-length': String(stored.bytes.byteLength) }),
    });
    if (!stored.chunked) return void res.end(stored.bytes);
    // Several writes without a length: the client sees a chunked body it can only measure by reading.
    for (let i = 0; i < stored.bytes.byteLength; i += 1024) res.write(stored.bytes.subarray(i, i + 1024));
    res.end();
  };

  const server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://fixture').pathname;
    const matched = route(method, path);
    // Recorded as the status is written, so it is there before the client can read the answer.
    const writeHead = res.writeHead.bind(res);
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      requests.push({ method, path, endpoint: matched?.endpoint, status });
      return (writeHead as (...args: unknown[]) => ServerResponse)(status, ...rest);
    }) as typeof res.writeHead;
    void (async () => {
      if (!matched) return sendJson(res, 404, graphError(100, `Unknown path components: ${path}`));
      if (req.headers.authorization !== `Bearer ${accessToken}`) {
        req.resume();
        return sendJson(res, 401, graphError(190, 'Invalid OAuth access token - Cannot parse access token'));
      }
      const slot = faults.find(
        (f) => f.remaining > 0 && (!f.fault.endpoint || f.fault.endpoint === matched.endpoint),
      );
      if (slot) {
        slot.remaining--;
        req.resume();
        const { status, code = status === 429 ? 130429 : 131000, retryAfter } = slot.fault;
        const message = slot.fault.message ?? FAULT_MESSAGES[code] ?? 'Error';
        return sendJson(
          res,
          status,
          graphError(code, message),
          retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
        );
      }
      await handle(req, res, matched.endpoint, matched.param);
    })().catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (error instanceof GraphRefusal)
        return sendJson(res, error.status, graphError(error.code, error.message));
      sendJson(res, 500, graphError(1, `fixture failure: ${(error as Error).message}`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    accessToken,
    phoneNumberId,
    requests,
    sent,
    uploads,
    addMedia(bytes, mimeType, opts = {}) {
      const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
      return storeMedia({ bytes: data, mimeType, reportedSize: opts.reportedSize, chunked: opts.chunked });
    },
    failNext(n, fault) {
      faults.push({ remaining: n, fault });
    },
    waitForMessages(n, opts = {}) {
      const { to, timeoutMs = 5_000 } = opts;
      const matching = () => sent.filter((m) => to === undefined || m.to === to);
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = matching();
          if (found.length < n) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `waited ${timeoutMs} ms for ${n} messages${to ? ` to ${to}` : ''}, got ${matching().length}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export * from './whatsapp-webhooks.ts';
