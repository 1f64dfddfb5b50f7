import { setTimeout as sleep } from 'node:timers/promises';
import { OutboundRefusedError, outboundFetch } from '@munim/kit';
import type { Logger } from 'pino';
import { WhatsAppSendError } from './errors.ts';

/** Where whatsapp-api-js sends every Graph call; rebased onto the configured Graph URL. */
const LIBRARY_GRAPH_ORIGIN = 'https://graph.facebook.com';

/** Graph error codes that mean "too many requests" whatever the HTTP status says. */
export const RATE_LIMIT_CODES: ReadonlySet<number> = new Set([4, 80007, 130429, 131048, 131056]);

/** Backoff between attempts: the n-th wait is about baseMs·2ⁿ⁻¹, jittered, at most maxMs. */
export interface RetryPolicy {
  /** Requests in all, the first included (1 = no retry). */
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseMs: 500, maxMs: 8_000 };

export interface GraphFetchOptions {
  graphUrl: string;
  log: Logger;
  retry: RetryPolicy;
  /** Per request, headers and body; a timed-out request counts as a network error. */
  timeoutMs: number;
  /** The fetch underneath (kit's outboundFetch: a redirect is an error, never followed with the token). */
  fetch?: typeof fetch;
}

/** The URL a request goes to: Graph calls rebased onto the configured base, any other http(s) URL as given. */
export function resolveGraphUrl(input: string | URL, graphUrl: string): URL {
  const url = new URL(String(input));
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new WhatsAppSendError(`refused a ${url.protocol} URL (only http and https are fetched)`, {
      attempts: 0,
    });
  if (url.origin !== LIBRARY_GRAPH_ORIGIN) return url;
  const base = new URL(graphUrl);
  base.pathname = base.pathname.replace(/\/$/, '') + url.pathname;
  base.search = url.search;
  return base;
}

/** A name for the call in messages and logs: no query string, no host (a media URL carries a hash). */
function operationOf(method: string, input: string | URL): string {
  const url = new URL(String(input));
  if (url.origin !== LIBRARY_GRAPH_ORIGIN) return 'media download';
  if (url.pathname.endsWith('/messages')) return 'send message';
  if (url.pathname.endsWith('/media')) return 'media upload';
  return `${method} graph object`;
}

/** Jittered exponential backoff: half the step fixed, half random, so a burst of clients spreads out. */
export function backoffMs(attempt: number, retry: RetryPolicy): number {
  const step = Math.min(retry.maxMs, retry.baseMs * 2 ** (attempt - 1));
  return step / 2 + Math.random() * (step / 2);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
export function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

interface GraphErrorBody {
  code?: number;
  message?: string;
}

/** Graph's `{ error: { code, message } }`, read from at most 64 KiB of an error answer. */
async function readGraphError(response: Response): Promise<GraphErrorBody> {
  const length = Number(response.headers.get('content-length') ?? '0');
  if (length > 65_536) {
    await response.body?.cancel();
    return {};
  }
  const text = await response.text().catch(() => '');
  try {
    const error = (JSON.parse(text) as { error?: unknown }).error;
    if (!error || typeof error !== 'object') return {};
    const { code, message } = error as Record<string, unknown>;
    return {
      ...(typeof code === 'number' ? { code } : {}),
      ...(typeof message === 'string' ? { message: message.slice(0, 300) } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * The `fetch` given to whatsapp-api-js: rebases its graph.facebook.com URLs onto the configured
 * Graph URL, retries network errors, 5xx, 429 and Graph's rate-limit codes with jittered backoff
 * (at least Retry-After), and throws {@link WhatsAppSendError} for an answer that is not 2xx — the
 * library itself reads any answer as JSON and would hand an error body back as a result.
 */
export function createGraphFetch(options: GraphFetchOptions): typeof fetch {
  const { graphUrl, log, retry, timeoutMs } = options;
  const base = options.fetch ?? outboundFetch();
  const attempts = Math.max(1, retry.attempts);

  const graphFetch = async (
    input: Parameters<typeof fetch>[0],
    init: RequestInit = {},
  ): Promise<Response> => {
    if (input instanceof Request) throw new TypeError('graph fetch takes a URL, not a Request');
    const url = resolveGraphUrl(input, graphUrl);
    const method = init.method ?? 'GET';
    const operation = operationOf(method, input);
    for (let attempt = 1; ; attempt++) {
      const signal = init.signal
        ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)])
        : AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await base(url, { ...init, signal });
      } catch (error) {
        const final = attempt >= attempts || error instanceof OutboundRefusedError || init.signal?.aborted;
        if (final)
          throw new WhatsAppSendError(`${operation} failed: ${(error as Error).message}`, {
            attempts: attempt,
            cause: error,
          });
        const delayMs = backoffMs(attempt, retry);
        log.warn({ operation, attempt, delayMs, err: (error as Error).message }, 'whatsapp: retrying');
        await sleep(delayMs);
        continue;
      }
      if (response.ok) return response;

      const { status } = response;
      const graphError = await readGraphError(response);
      const wait = retryAfterMs(response.headers.get('retry-after'));
      const retryable =
        status >= 500 ||
        status === 429 ||
        (graphError.code !== undefined && RATE_LIMIT_CODES.has(graphError.code));
      // A wait longer than this client's longest is the caller's to schedule, not this request's.
      const tooLong = wait !== undefined && wait > retry.maxMs;
      if (!retryable || attempt >= attempts || tooLong) {
        const code = graphError.code === undefined ? '' : ` (code ${graphError.code})`;
        const detail = graphError.message ? `: ${graphError.message}` : '';
        throw new WhatsAppSendError(`${operation} failed with HTTP ${status}${code}${detail}`, {
          status,
          code: graphError.code,
          attempts: attempt,
          retryAfterMs: retryable ? wait : undefined,
        });
      }
      const delayMs = Math.max(wait ?? 0, backoffMs(attempt, retry));
      log.warn({ operation, attempt, status, code: graphError.code, delayMs }, 'whatsapp: retrying');
      await sleep(delayMs);
    }
  };
  return graphFetch as typeof fetch;
}
