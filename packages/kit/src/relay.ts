import type { FollowedEvent, Following } from '@munim/bus';
import { type ErrorInfo, ErrorInfoSchema, TERMINAL_EVENT_TYPES } from '@munim/contracts';

/**
 * The streams (SSE responses, MCP tool calls) the gateway has open, so that a shutdown can end
 * each one with an `error` event instead of cutting it off.
 */
export class OpenStreams {
  readonly #entries = new Set<{ controller: AbortController; done: Promise<void> }>();

  /** Runs `body` as one open stream; its signal aborts, with an {@link ErrorInfo} reason, at shutdown. */
  async track<T>(body: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const { promise, resolve } = Promise.withResolvers<void>();
    const entry = { controller, done: promise };
    this.#entries.add(entry);
    try {
      return await body(controller.signal);
    } finally {
      this.#entries.delete(entry);
      resolve();
    }
  }

  /** Aborts every open stream with `reason` and waits until each has finished. */
  async closeAll(reason: ErrorInfo): Promise<void> {
    const entries = [...this.#entries];
    for (const entry of entries) entry.controller.abort(reason);
    await Promise.allSettled(entries.map((entry) => entry.done));
  }
}

export interface RelayOptions {
  following: Following;
  /** Aborts the relay; an {@link ErrorInfo} reason becomes the relay's result. */
  signal: AbortSignal;
  /** Longest the whole stream may last. */
  timeoutMs: number;
  /** Longest the stream may go without an event. */
  idleTimeoutMs?: number | undefined;
  onEvent: (event: FollowedEvent) => Promise<void> | void;
}

function reasonOf(reason: unknown): ErrorInfo {
  const parsed = ErrorInfoSchema.safeParse(reason);
  return parsed.success ? parsed.data : { code: 'SERVICE_UNAVAILABLE', message: 'The stream was closed.' };
}

/**
 * Hands each followed event to `onEvent` until the request's `complete` or `error` (result null),
 * or until the signal aborts, the timeout passes or the event stream breaks (result: the error to
 * report). The follow is stopped in every case.
 */
export async function relay(opts: RelayOptions): Promise<ErrorInfo | null> {
  const { following, signal, timeoutMs, idleTimeoutMs, onEvent } = opts;
  let reason: ErrorInfo | undefined;
  const end = (error: ErrorInfo) => {
    if (reason) return;
    reason = error;
    void following.stop();
  };
  const onAbort = () => end(reasonOf(signal.reason));
  const timer = setTimeout(
    () =>
      end({
        code: 'TIMEOUT',
        message: `No answer within ${Math.ceil(timeoutMs / 1000)} s. The request may still finish: replay its events to see the rest.`,
      }),
    timeoutMs,
  );
  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = () => {
    if (idleTimeoutMs === undefined) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(
      () =>
        end({
          code: 'TIMEOUT',
          message: `No progress for ${Math.ceil(idleTimeoutMs / 1000)} s. The request may still finish: replay its events to see the rest.`,
        }),
      idleTimeoutMs,
    );
  };
  armIdle();
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const event of following) {
      if (reason) break;
      armIdle();
      await onEvent(event);
      if (TERMINAL_EVENT_TYPES.includes(event.message.data.type)) return null;
    }
    return reason ?? { code: 'SERVICE_UNAVAILABLE', message: 'The event stream ended unexpectedly.' };
  } finally {
    clearTimeout(timer);
    clearTimeout(idleTimer);
    signal.removeEventListener('abort', onAbort);
    await following.stop();
  }
}
