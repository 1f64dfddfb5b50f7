import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ErrorCode as McpErrorCode } from '@modelcontextprotocol/sdk/types.js';

/** How a failed MCP call failed, which decides retry, reconnect and the error code. */
export type FailureKind = 'timeout' | 'transport' | 'tool_not_found' | 'protocol';

const TRANSPORT_CODES = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|UND_ERR/;

/** Classifies an error thrown by the MCP client while calling the server. */
export function classifyFailure(error: unknown): FailureKind {
  if (error instanceof McpError) {
    if (error.code === McpErrorCode.RequestTimeout) return 'timeout';
    if (error.code === McpErrorCode.ConnectionClosed) return 'transport';
    if (error.code === McpErrorCode.InvalidParams && /\bnot found\b|unknown tool/i.test(error.message)) {
      return 'tool_not_found';
    }
    return 'protocol';
  }
  if (error instanceof StreamableHTTPError) return 'transport';
  if (error instanceof Error) {
    if (error.name === 'AbortError') return 'transport';
    if (error.name === 'TypeError' && /fetch failed|network|terminated|socket/i.test(error.message))
      return 'transport';
    const cause = (error as { cause?: { code?: unknown } }).cause;
    if (
      TRANSPORT_CODES.test(`${String((error as { code?: unknown }).code ?? '')} ${String(cause?.code ?? '')}`)
    ) {
      return 'transport';
    }
  }
  return 'protocol';
}

/**
 * Whether a failed call surely never reached the tool: the connection was refused, or the server
 * turned the request away before running anything (unknown session, bad credentials).
 */
export function neverReachedTool(error: unknown): boolean {
  if (error instanceof StreamableHTTPError)
    return error.code === 404 || error.code === 401 || error.code === 403;
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return /ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(
    String(cause?.code ?? (error as { code?: unknown })?.code ?? ''),
  );
}

const STACK_LINE = /^\s*at\s+\S.*$/gm;
const URL_PATTERN = /\b(?:https?|wss?|nats|postgres(?:ql)?):\/\/[^\s'"<>)\]]+/gi;
const BEARER = /\bbearer\s+[^\s,;'"]+/gi;
const KEYED_SECRET =
  /\b(token|api[_-]?key|secret|password|authorization)\b(\s*[:=]\s*)(?!bearer\b|\[redacted\])[^\s,;'"]+/gi;
const MCP_PREFIX = /^MCP error -?\d+:\s*/;
const MAX_MESSAGE_CHARS = 500;

/**
 * Makes a server-provided error text fit for the LLM and the user: no stack traces,
 * no URLs, no credentials (including the configured ones), bounded length.
 */
export function sanitizeMessage(
  text: string,
  secrets: readonly string[] = [],
  fallback = 'The tool failed.',
): string {
  let out = text.replace(MCP_PREFIX, '');
  for (const secret of secrets) if (secret) out = out.split(secret).join('[redacted]');
  out = out
    .replace(STACK_LINE, '')
    .replace(URL_PATTERN, '[link]')
    .replace(BEARER, 'Bearer [redacted]')
    .replace(KEYED_SECRET, '$1$2[redacted]')
    .replace(/\n{2,}/g, '\n')
    .trim();
  if (out.length > MAX_MESSAGE_CHARS) out = `${out.slice(0, MAX_MESSAGE_CHARS - 1)}…`;
  return out || fallback;
}
