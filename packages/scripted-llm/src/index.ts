// A scripted OpenAI-compatible chat-completions server: the LLM test fixture.
// Tests register scripts (matched by the last user message) whose turns answer successive requests,
// over the real HTTP protocol, so the product talks to it through the real `openai` client.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AnswerOut,
  chunkText,
  completionBody,
  defaultErrorType,
  errorBody,
  streamChunks,
  toolCallsOut,
  usageFor,
} from './responses.ts';
import { lastUserText, ScriptBook, textMatches } from './scripts.ts';
import type {
  ChatRequest,
  RecordedRequest,
  RecordedTranscription,
  ScriptedLlm,
  StartOptions,
  StreamProgress,
  TurnAnswer,
} from './types.ts';

export { contentText, lastUserText, offeredToolNames } from './scripts.ts';
export type {
  ChatContentPart,
  ChatMessage,
  ChatRequest,
  ChatToolCall,
  ContentResult,
  ErrorResult,
  RecordedRequest,
  RecordedTranscription,
  Script,
  ScriptedLlm,
  ScriptedToolCall,
  ScriptMatch,
  StartOptions,
  ToolCallsResult,
  Turn,
  TurnAnswer,
  TurnResult,
  TurnTiming,
} from './types.ts';

const CHAT_PATH = /^(?:\/v1)?\/chat\/completions\/?$/;
const AZURE_CHAT_PATH = /^(?:\/openai)?\/deployments\/([^/]+)\/chat\/completions\/?$/;
const MODELS_PATH = /^(?:\/v1|\/openai)?\/models\/?$/;
const TRANSCRIPTIONS_PATH = /^(?:\/v1)?\/audio\/transcriptions\/?$/;
const MAX_BODY_BYTES = 32 * 1024 * 1024;

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (part: Buffer) => {
      size += part.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge('request body too large'));
        req.destroy();
        return;
      }
      parts.push(part);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function presentedKey(headers: Record<string, string>): string | undefined {
  const auth = headers.authorization;
  if (auth) {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (m) return m[1];
  }
  return headers['api-key'];
}

function maskKey(key: string | undefined): string {
  if (!key) return '(none)';
  return key.length <= 8 ? '****' : `${key.slice(0, 3)}****${key.slice(-4)}`;
}

/** Starts the fixture server; resolves once it listens. */
export async function startScriptedLlm(opts: StartOptions = {}): Promise<ScriptedLlm> {
  const host = opts.host ?? '127.0.0.1';
  const defaultModel = opts.model ?? 'scripted-llm';
  const book = new ScriptBook();
  const requests: RecordedRequest[] = [];
  const waits = new Set<() => void>();
  let requestSeq = 0;
  let callSeq = 0;
  let closing = false;

  /** Resolves after `ms`, or early when the response closes or the server shuts down. */
  const wait = (ms: number, res: ServerResponse): Promise<void> =>
    new Promise((resolve) => {
      if (ms <= 0 || closing) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        waits.delete(done);
        res.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waits.add(done);
      res.on('close', done);
    });

  const gone = (res: ServerResponse): boolean => closing || res.destroyed || res.writableEnded;

  const sendJson = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void => {
    if (gone(res)) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  const transcriptions: RecordedTranscription[] = [];
  let transcription: string | ((upload: RecordedTranscription) => string) = '';

  /** OpenAI's `/audio/transcriptions`: a multipart form with `file` and `model`; answers `{ text }`. */
  const transcribe = async (
    req: IncomingMessage,
    res: ServerResponse,
    headers: Record<string, string>,
    at: number,
  ): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let form: FormData;
    try {
      form = await new Response(Buffer.concat(chunks), {
        headers: { 'content-type': headers['content-type'] ?? '' },
      }).formData();
    } catch {
      return sendJson(
        res,
        400,
        errorBody('scripted-llm: expected a multipart form', 'invalid_request_error'),
      );
    }
    const file = form.get('file');
    if (!(file instanceof Blob)) {
      return sendJson(res, 400, errorBody("scripted-llm: the form has no 'file'", 'invalid_request_error'));
    }
    const upload: RecordedTranscription = {
      model: String(form.get('model') ?? ''),
      filename: file instanceof File ? file.name : 'file',
      mimeType: file.type,
      bytes: new Uint8Array(await file.arrayBuffer()),
      ...(form.get('language') ? { language: String(form.get('language')) } : {}),
      headers,
      at,
    };
    transcriptions.push(upload);
    const text = typeof transcription === 'function' ? transcription(upload) : transcription;
    return sendJson(res, 200, { text });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const at = Date.now();
    const seq = ++requestSeq;
    res.setHeader('x-request-id', `req_scripted_${seq}`);
    res.setHeader('openai-processing-ms', '1');
    const url = new URL(req.url ?? '/', 'http://scripted-llm.invalid');
    const path = url.pathname;
    const headers = flatHeaders(req);
    const authorized = opts.apiKey === undefined || presentedKey(headers) === opts.apiKey;
    const unauthorized = (): void =>
      sendJson(
        res,
        401,
        errorBody(
          `Incorrect API key provided: ${maskKey(presentedKey(headers))}.`,
          'invalid_request_error',
          'invalid_api_key',
        ),
      );

    if (MODELS_PATH.test(path)) {
      if (req.method !== 'GET') {
        return sendJson(res, 405, errorBody(`Method ${req.method} not allowed`, 'invalid_request_error'));
      }
      if (!authorized) return unauthorized();
      return sendJson(res, 200, {
        object: 'list',
        data: [{ id: defaultModel, object: 'model', created: 0, owned_by: 'scripted-llm' }],
      });
    }

    if (TRANSCRIPTIONS_PATH.test(path) && req.method === 'POST') {
      if (!authorized) return unauthorized();
      return transcribe(req, res, headers, at);
    }

    const azure = AZURE_CHAT_PATH.exec(path);
    if (!azure && !CHAT_PATH.test(path)) {
      return sendJson(
        res,
        404,
        errorBody(`scripted-llm: unknown path ${req.method} ${path}`, 'invalid_request_error'),
      );
    }
    if (req.method !== 'POST') {
      return sendJson(res, 405, errorBody(`Method ${req.method} not allowed`, 'invalid_request_error'));
    }
    const deployment = azure?.[1] !== undefined ? decodeURIComponent(azure[1]) : undefined;

    let body: ChatRequest;
    try {
      const parsed: unknown = JSON.parse(await readBody(req));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return sendJson(
          res,
          400,
          errorBody('The request body must be a JSON object.', 'invalid_request_error'),
        );
      }
      body = parsed as ChatRequest;
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        return sendJson(res, 413, errorBody('scripted-llm: request body too large', 'invalid_request_error'));
      }
      return sendJson(
        res,
        400,
        errorBody(
          `We could not parse the JSON body of your request: ${String(err)}`,
          'invalid_request_error',
        ),
      );
    }

    const userText = lastUserText(body);
    const record: RecordedRequest = { body, headers, path, lastUserText: userText, at };
    if (deployment !== undefined) record.deployment = deployment;
    requests.push(record);
    const reply = (status: number, payload: unknown, extra?: Record<string, string>): void => {
      record.status = status;
      sendJson(res, status, payload, extra);
    };

    if (!authorized) {
      record.status = 401;
      return unauthorized();
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return reply(
        400,
        errorBody("'messages' must be a non-empty array.", 'invalid_request_error', null, 'messages'),
      );
    }

    const decision = book.next(body, userText);
    if (decision.scriptName !== undefined) record.scriptName = decision.scriptName;
    if (decision.turnIndex !== undefined) record.turnIndex = decision.turnIndex;
    if (decision.kind === 'fail') {
      return reply(500, errorBody(decision.message, decision.type), { 'x-should-retry': 'false' });
    }
    const turn: TurnAnswer = decision.answer;
    await wait(turn.delayMs ?? 0, res);
    if (gone(res)) return;

    if ('error' in turn) {
      const { status, message, type, code, headers: extra } = turn.error;
      return reply(
        status,
        errorBody(
          message ?? `scripted-llm: scripted error ${status}`,
          type ?? defaultErrorType(status),
          code !== undefined ? code : status === 429 ? 'rate_limit_exceeded' : null,
        ),
        extra,
      );
    }

    const answer: AnswerOut =
      'toolCalls' in turn
        ? {
            content: turn.content ?? null,
            toolCalls: toolCallsOut(turn.toolCalls, () => `call_scripted_${++callSeq}`),
            deltas: turn.deltas,
          }
        : { content: turn.content, toolCalls: [], deltas: turn.deltas };
    const meta = {
      id: `chatcmpl-scripted-${seq}`,
      created: Math.floor(at / 1000),
      model: typeof body.model === 'string' && body.model !== '' ? body.model : (deployment ?? defaultModel),
    };
    const usage = usageFor(body, answer);

    if (body.stream !== true) return reply(200, completionBody(meta, answer, usage));

    record.status = 200;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const includeUsage = body.stream_options?.include_usage === true;
    const chunks = streamChunks(meta, answer, includeUsage ? usage : undefined);
    const progress: StreamProgress = { deltas: chunks.filter((c) => chunkText(c) !== '').length, sent: 0 };
    record.streamed = progress;
    for (const [i, chunk] of chunks.entries()) {
      if (i > 0) await wait(turn.chunkDelayMs ?? 0, res);
      const text = chunkText(chunk) !== '';
      if (text && progress.sent === progress.deltas - 1 && turn.lastDeltaAfter)
        await Promise.race([turn.lastDeltaAfter, new Promise((resolve) => res.once('close', resolve))]);
      if (gone(res)) return;
      if (text && progress.sent === turn.dropAfterDeltas) {
        // What was written goes out first, then the connection closes mid-body, as a dropped one does.
        res.socket?.end();
        return;
      }
      if (text && progress.sent === turn.stallAfterDeltas) {
        await new Promise((resolve) => res.once('close', resolve));
        return;
      }
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      if (!text) continue;
      progress.sent += 1;
      const now = performance.timeOrigin + performance.now();
      progress.firstAt ??= now;
      progress.lastAt = now;
    }
    if (gone(res)) return;
    res.end('data: [DONE]\n\n');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      sendJson(res, 500, errorBody(`scripted-llm: internal error: ${String(err)}`, 'server_error'));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let closed: Promise<void> | undefined;
  return {
    baseURL: `${origin}/v1`,
    origin,
    port,
    requests,
    script(s) {
      book.add(s);
    },
    requestsFor(match) {
      return requests.filter((r) => textMatches(match, r.lastUserText));
    },
    reset() {
      book.clear();
      requests.length = 0;
      transcriptions.length = 0;
    },
    transcriptions,
    transcribeAs(text) {
      transcription = text;
    },
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        closing = true;
        for (const done of [...waits]) done();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
