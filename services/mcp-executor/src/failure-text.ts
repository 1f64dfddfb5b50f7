import { isRecord } from '@munim/contracts';
import { type CallResultLike, parseJsonOrText } from './result.ts';

/**
 * Recognisers of tool results that report a failure although `isError` is unset: accounting MCP
 * servers we did not write often answer "Error creating invoice: …" as ordinary text. Only the
 * first line of a text and the top level of a JSON object count, so a record that merely holds
 * the word "error" (a reference, a name, an item's status, a later log line) is not a failure.
 */

/** Which recogniser matched, and the failure message fit for a user (not yet sanitised). */
export interface ReportedFailure {
  pattern: string;
  message: string;
}

const MAX_MESSAGE_CHARS = 300;
const FALLBACK = 'The accounting system reported an error.';

/** Failure texts, tried on the first line of the text with leading bullets and markup removed. */
export const FAILURE_TEXTS: readonly { name: string; pattern: RegExp }[] = [
  {
    // "Error: …", "ERROR - …", "Error creating invoice: …", "Error 500 …"; not "Error correction …".
    name: 'error-prefix',
    pattern:
      /^error\b(?:\s*(?:[:\-–—\]!.(]|$)|\s+(?:-?\d+|\w+ing|while|when|during|in|on|from|occurred|with)\b)/i,
  },
  { name: 'failed-prefix', pattern: /^failed(?:\s*(?:[:\-–—\]!.]|$)|\s+(?:to|with|\w+ing)\b)/i },
  {
    // "Invoice creation failed: …", "Validation failed: …", "Request failed with status code 400"
    name: 'subject-failed',
    pattern: /^(?:[\w-]+\s+){1,3}failed(?:\s*(?:[:\-–—!.]|$)|\s+(?:with|because|due)\b)/i,
  },
  { name: 'cannot', pattern: /^(?:unable\s+to|could\s*not|couldn['’]t|cannot|can['’]t|can\s+not)\b/i },
  {
    // "Xero API error: …", "QuickBooks error 6240: …", "MCP error -32603: …"; a name, not a
    // phrase: "Reversal of posting error: JV-12 posted" is a success.
    name: 'vendor-error',
    pattern:
      /^(?!no\s)(?:(?!(?:of|for|the|an?|to|on|in|at|by|with|and|after|before)\s)[\w.&'-]+\s+){1,4}error(?:\s+-?\d+)?\s*[:\-–—]/i,
  },
  { name: 'invalid', pattern: /^invalid\b/i },
  {
    name: 'not-found',
    pattern:
      /^(?:not\s+found\b|no\s+such\b|(?:[\w-]+\s+){1,4}(?:(?:was|is)\s+)?(?:not\s+found|does\s+not\s+exist)\s*(?:[:.!]|$))/i,
  },
  {
    name: 'denied',
    pattern:
      /^(?:\d{3}\s+)?(?:unauthori[sz]ed|forbidden|permission\s+denied|access\s+denied|not\s+authori[sz]ed|authentication\s+(?:failed|required|error)|too\s+many\s+requests|you\s+(?:do\s+not|don't)\s+have\s+permission)\b/i,
  },
  {
    name: 'http-status',
    pattern:
      /^(?:https?(?:\/[\d.]+)?\s*(?:error\s*)?[45]\d\d\b|[45]\d\d\s+(?:bad\s+request|unauthori[sz]ed|forbidden|not\s+found|method\s+not\s+allowed|conflict|gone|payment\s+required|precondition\s+failed|unprocessable|too\s+many|internal\s+server\s+error|bad\s+gateway|service\s+unavailable|gateway\s+time-?out)\b)/i,
  },
  {
    name: 'error-occurred',
    pattern:
      /^(?:(?:an?\s+)?(?:\w+\s+)?error\s+(?:has\s+)?(?:occurred|occured|happened)|internal\s+server\s+error|something\s+went\s+wrong)\b/i,
  },
  { name: 'traceback', pattern: /^traceback\s+\(most recent call last\)/i },
  // "McpError: …", "Exception: …", "xero_python.exceptions.AccountingBadRequestException: …"
  { name: 'exception', pattern: /^(?:[A-Za-z_]\w*\.)*\w*(?:Error|Exception|Fault)\s*(?::|$)/ },
];

type Json = Record<string, unknown>;

/** Failure shapes of a JSON object's top level (keys compared case-insensitively). */
export const FAILURE_OBJECTS: readonly {
  name: string;
  test: (o: Json) => boolean;
  message?: (o: Json) => string | undefined;
}[] = [
  { name: 'is-error-flag', test: (o) => get(o, 'isError') === true },
  { name: 'success-false', test: (o) => isFalse(get(o, 'success')) },
  { name: 'ok-false', test: (o) => isFalse(get(o, 'ok')) },
  {
    // QuickBooks: {"Fault": {"Error": [{"Message", "Detail", "code"}], "type": "ValidationFault"}}
    name: 'quickbooks-fault',
    test: (o) => isRecord(get(o, 'fault')),
    message: (o) => findMessage(get(o, 'fault')),
  },
  {
    // Xero: {"ErrorNumber": 10, "Type": "ValidationException", "Message", "Elements": [{"ValidationErrors"}]}
    name: 'xero-exception',
    test: (o) => get(o, 'errorNumber') !== undefined && /exception/i.test(String(get(o, 'type'))),
    message: (o) => joinMessages(findMessage(get(o, 'message')), findMessage(get(o, 'elements'))),
  },
  { name: 'error-field', test: (o) => filled(get(o, 'error')) },
  { name: 'errors-field', test: (o) => filled(get(o, 'errors')) || filled(get(o, 'validationErrors')) },
  {
    // Zoho Books: {"code": 1002, "message": "Invoice does not exist."}; success is code 0.
    name: 'error-code',
    test: (o) => typeof get(o, 'message') === 'string' && isErrorCode(get(o, 'code')),
  },
  { name: 'status-text', test: (o) => /^(?:error|failed|failure|fail)$/i.test(String(get(o, 'status'))) },
  {
    name: 'http-status',
    test: (o) => ['status', 'statusCode', 'status_code', 'httpStatus'].some((k) => isHttpError(get(o, k))),
  },
  {
    // {"message": "Failed to create invoice"} and nothing else of substance.
    name: 'message-only',
    test: (o) =>
      Object.keys(o).every((k) => /^(?:message|msg|detail|code|type|timestamp)$/i.test(k)) &&
      textFailure(String(get(o, 'message') ?? get(o, 'msg') ?? get(o, 'detail') ?? '')) !== undefined,
  },
];

/** Tally's XML import answer: `<LINEERROR>` holds the reason, `<ERRORS>` counts the failures. */
const TALLY_LINE_ERROR = /<LINEERROR>([^<]*)<\/LINEERROR>/i;
const TALLY_ERRORS = /<ERRORS>\s*[1-9]\d*\s*<\/ERRORS>/i;

/**
 * Whether an answer without `isError` plainly reports a failure, and its message: the error
 * text itself (clipped), or the JSON's message field, never the whole JSON.
 */
export function reportedFailure(raw: CallResultLike): ReportedFailure | undefined {
  for (const value of [raw.structuredContent, raw.toolResult]) {
    const found = valueFailure(value);
    if (found) return found;
  }
  const first = Array.isArray(raw.content)
    ? (raw.content as { type?: unknown; text?: unknown }[]).find(
        (item) => item?.type === 'text' && typeof item.text === 'string',
      )
    : undefined;
  return first ? valueFailure(parseJsonOrText(first.text as string)) : undefined;
}

function valueFailure(value: unknown): ReportedFailure | undefined {
  if (typeof value === 'string') return textFailure(value);
  if (!isRecord(value)) return undefined;
  // FreshBooks wraps its answer: {"response": {"errors": [{"message", "errno"}]}}.
  const response = get(value, 'response');
  const top = Object.keys(value).length === 1 && isRecord(response) ? response : value;
  for (const shape of FAILURE_OBJECTS) {
    if (!shape.test(top)) continue;
    return { pattern: shape.name, message: clip((shape.message ?? findMessage)(top) ?? FALLBACK) };
  }
  return undefined;
}

function textFailure(text: string): ReportedFailure | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('<')) {
    const line = TALLY_LINE_ERROR.exec(trimmed)?.[1]?.trim();
    if (line || TALLY_ERRORS.test(trimmed)) return { pattern: 'tally-xml', message: clip(line || FALLBACK) };
    return undefined;
  }
  // Bullets, emoji and markdown before the first word ("❌ **Error:** …") do not hide it.
  const firstLine = (trimmed.split('\n')[0] ?? '').replace(/^[^\p{L}\p{N}]+/u, '').replace(/[*`]+/g, '');
  const match = FAILURE_TEXTS.find((entry) => entry.pattern.test(firstLine));
  if (!match) return undefined;
  if (match.name === 'traceback') {
    // The exception line, last in a Python traceback, says what went wrong.
    const lines = trimmed
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    return { pattern: match.name, message: clip(lines[lines.length - 1] ?? FALLBACK) };
  }
  return { pattern: match.name, message: clip(trimmed) };
}

/** Keys that hold a failure's reason, best first. */
const MESSAGE_KEYS = [
  'error_description',
  'message',
  'msg',
  'error',
  'errors',
  'validationErrors',
  'title',
  'detail',
  'details',
  'description',
  'reason',
];

/** The first message found in a failure's JSON, its `Detail` added when that says more. */
function findMessage(value: unknown, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  if (typeof value === 'string') return value.trim() || undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findMessage(item, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  let message: string | undefined;
  for (const key of MESSAGE_KEYS) {
    message = findMessage(get(value, key), depth + 1);
    if (message) break;
  }
  const detail = get(value, 'detail');
  if (message && typeof detail === 'string' && !message.includes(detail.trim())) {
    message = joinMessages(message, detail.trim());
  }
  if (message || depth === 0) return message;
  // Errors keyed by field: {"errors": {"name": ["can't be blank"]}}.
  const [key, child] = Object.entries(value)[0] ?? [];
  return key && Array.isArray(child) && typeof child[0] === 'string' ? `${key}: ${child[0]}` : undefined;
}

function joinMessages(first: string | undefined, second: string | undefined): string | undefined {
  if (!first || !second || first === second) return first ?? second;
  return `${first.replace(/[.:\s]+$/, '')}: ${second}`;
}

function get(o: Json, key: string): unknown {
  if (key in o) return o[key];
  const lower = key.toLowerCase();
  const found = Object.keys(o).find((k) => k.toLowerCase() === lower);
  return found === undefined ? undefined : o[found];
}

const isFalse = (v: unknown) => v === false || v === 'false';

function filled(v: unknown): boolean {
  if (typeof v === 'string') return v.trim() !== '';
  if (Array.isArray(v)) return v.length > 0;
  if (isRecord(v)) return Object.values(v).some((x) => x !== null && x !== undefined && x !== '');
  return v === true;
}

const asNumber = (v: unknown) =>
  typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : undefined;

function isHttpError(v: unknown): boolean {
  const n = asNumber(v);
  return n !== undefined && n >= 400 && n <= 599;
}

/** A non-zero numeric code outside 2xx, or a code that names an error ("NOT_FOUND", "invalid_request"). */
function isErrorCode(v: unknown): boolean {
  const n = asNumber(v);
  if (n !== undefined) return n !== 0 && !(n >= 200 && n <= 299);
  return (
    typeof v === 'string' &&
    /error|invalid|not.?found|denied|unauthori[sz]ed|forbidden|fail|conflict|bad.?request|exception/i.test(v)
  );
}

function clip(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > MAX_MESSAGE_CHARS ? `${trimmed.slice(0, MAX_MESSAGE_CHARS - 1)}…` : trimmed;
}
