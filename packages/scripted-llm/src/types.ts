// Wire types of the scripted OpenAI-compatible chat-completions fixture.
// They describe only what the fixture reads or writes; unknown request fields are kept as-is.

/** One part of an array-form message content (`{ type: 'text', text }`, images, ...). */
export interface ChatContentPart {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** A tool call as it appears in an assistant message of the request history. */
export interface ChatToolCall {
  id: string;
  type: 'function' | (string & {});
  function: { name: string; arguments: string };
}

/** One message of the request's `messages` array. */
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function' | (string & {});
  content?: string | ChatContentPart[] | null;
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  [key: string]: unknown;
}

/** The JSON body of a chat-completions request, as sent by the client. */
export interface ChatRequest {
  model?: string;
  messages: ChatMessage[];
  tools?: unknown[];
  tool_choice?: unknown;
  temperature?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean; [key: string]: unknown } | null;
  [key: string]: unknown;
}

/** A tool call the scripted model makes. */
export interface ScriptedToolCall {
  name: string;
  /** An object is sent as `JSON.stringify(arguments)`; a string is sent raw (so malformed JSON can be tested). */
  arguments: unknown;
  /** Defaults to a generated `call_scripted_<n>` id. */
  id?: string;
}

/** A final text answer. */
export interface ContentResult {
  content: string;
  /** Streaming only: the text deltas, in order, instead of one per word; they must join to `content`. */
  deltas?: string[];
}

/** One or more tool calls, optionally with text content alongside. */
export interface ToolCallsResult {
  toolCalls: ScriptedToolCall[];
  content?: string;
  /** Streaming only: the deltas of `content`, as for a text answer. */
  deltas?: string[];
}

/** An HTTP error answer, in OpenAI's error shape (e.g. 429 with `retry-after`, 500). */
export interface ErrorResult {
  error: {
    status: number;
    message?: string;
    /** OpenAI error `type`; defaults from the status: 429 → `requests`, >= 500 → `server_error`, else `invalid_request_error`. */
    type?: string;
    /** OpenAI error `code`; defaults to `rate_limit_exceeded` for 429, else null. */
    code?: string | null;
    headers?: Record<string, string>;
  };
}

export type TurnResult = ContentResult | ToolCallsResult | ErrorResult;

/** Timing knobs of one turn. */
export interface TurnTiming {
  /** Wait this long before answering (before the status line / first byte). */
  delayMs?: number;
  /** Streaming only: wait this long between SSE chunks (a model's time per token). */
  chunkDelayMs?: number;
  /** Streaming only: the last text delta is written only once this settles (a test's gate). */
  lastDeltaAfter?: PromiseLike<unknown>;
  /** Streaming only: after this many text deltas nothing more is sent, until the client gives up (a stalled model). */
  stallAfterDeltas?: number;
  /** Streaming only: after this many text deltas the connection is cut, mid-stream (a dropped connection). */
  dropAfterDeltas?: number;
}

export type TurnAnswer = TurnResult & TurnTiming;

/** A scripted turn: a fixed answer, or a function computing it from the request (e.g. from earlier tool results). */
export type Turn = TurnAnswer | ((req: ChatRequest) => TurnAnswer);

export type ScriptMatch = string | RegExp | ((req: ChatRequest) => boolean);

export interface Script {
  /** Shown in errors and recorded on requests; defaults to the match string/regex, or `script#<n>`. */
  name?: string;
  /**
   * string: case-insensitive substring of the last `user` message's text; RegExp: tested against that text;
   * function: called with the whole request.
   */
  match: ScriptMatch;
  turns: Turn[];
  /** Start over from the first turn when the turns run out (otherwise: HTTP 500 `scripted_llm_exhausted`). */
  repeat?: boolean;
}

/** A chat-completions request the fixture received. */
export interface RecordedRequest {
  body: ChatRequest;
  /** Lower-cased request headers. */
  headers: Record<string, string>;
  /** Request path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  /** The deployment name of an Azure-style `/openai/deployments/:name/chat/completions` request. */
  deployment?: string;
  /** Text of the last `user` message ('' when there is none). */
  lastUserText: string;
  /** Name of the script that answered. */
  scriptName?: string;
  /** 0-based index of the script turn that answered. */
  turnIndex?: number;
  /** HTTP status answered (set once the answer is decided). */
  status?: number;
  /** A streamed answer's text deltas as they are written: how many in all, how many so far, and when. */
  streamed?: StreamProgress;
  /** `Date.now()` when the request was received. */
  at: number;
}

/** The text deltas of one streamed answer; times are epoch milliseconds (sub-millisecond precision). */
export interface StreamProgress {
  deltas: number;
  sent: number;
  /** When the first text delta was written (the model's time to first token). */
  firstAt?: number;
  /** When the last one was. */
  lastAt?: number;
}

export interface StartOptions {
  /** Default 0 (a free port). */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** When set, requests must carry `Authorization: Bearer <apiKey>` or `api-key: <apiKey>` (else 401). */
  apiKey?: string;
  /** Model id listed by `GET /v1/models` and echoed when a request has none. Default `scripted-llm`. */
  model?: string;
}

export interface ScriptedLlm {
  /** e.g. `http://127.0.0.1:PORT/v1` — pass to `new OpenAI({ baseURL })`. */
  readonly baseURL: string;
  /** e.g. `http://127.0.0.1:PORT` — for `new AzureOpenAI({ endpoint })`. */
  readonly origin: string;
  readonly port: number;
  /** Register a script; scripts are tried in registration order. */
  script(s: Script): void;
  /** Every chat-completions request received, in order (the same array across `reset()`). */
  readonly requests: RecordedRequest[];
  /** The recorded requests whose last user message matches (string: case-insensitive substring). */
  requestsFor(match: string | RegExp): RecordedRequest[];
  /** Forget all scripts, cursors and recorded requests. */
  reset(): void;
  close(): Promise<void>;
  /** What `/audio/transcriptions` answers next: a fixed text, or one computed from the upload. */
  transcribeAs(text: string | ((upload: RecordedTranscription) => string)): void;
  /** Every transcription request received, in order. */
  readonly transcriptions: RecordedTranscription[];
}

/** One `/audio/transcriptions` request, as the multipart form arrived. */
export interface RecordedTranscription {
  model: string;
  filename: string;
  mimeType: string;
  /** The uploaded file's bytes. */
  bytes: Uint8Array;
  language?: string;
  headers: Record<string, string>;
  at: number;
}
