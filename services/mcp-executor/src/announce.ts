import type { AgentEvent, ExecuteRequest } from '@munim/contracts';
import type { Logger } from '@munim/kit';
import type { Emit, Outcome } from './call.ts';
import { recordCount } from './result.ts';

/**
 * A read still running after this long is announced (`executing_tool`); one answered sooner is
 * announced together with its result, in one socket write: well under what a person notices, and
 * each write to NATS wakes the server on another CPU.
 */
export const ANNOUNCE_READ_AFTER_MS = 20;

/** Settings of a {@link CallAnnouncement}. */
export interface CallAnnouncementOptions {
  /** Publishes an event of the call's request. */
  emit: Emit;
  /** Publishes events of the call's request, in order, as one stream message. */
  emitAll: (events: AgentEvent[]) => Promise<unknown>;
  log: Logger;
  requestId: string;
  call: Pick<ExecuteRequest, 'tool' | 'callId' | 'args'>;
}

/**
 * The events of one call on the request's stream: `executing_tool` once a tool was found to call
 * (published once, by whichever comes first), events during the call after it, and `tool_result`
 * last. Once the call has run, its reply matters more than its events: a lost event is logged,
 * not thrown.
 */
export class CallAnnouncement {
  readonly #opts: CallAnnouncementOptions;
  #calling = false;
  #announced: Promise<unknown> | undefined;
  #readTimer: NodeJS.Timeout | undefined;

  constructor(opts: CallAnnouncementOptions) {
    this.#opts = opts;
  }

  /**
   * The call is on its way. A write is announced as soon as its request is on the way (the next
   * check phase), so the stream shows it was sent even if this process dies before the answer; a
   * read only if it is still running after ANNOUNCE_READ_AFTER_MS.
   */
  sending(isWrite: boolean): void {
    this.#calling = true;
    if (isWrite) setImmediate(() => this.#announce());
    else this.#readTimer = setTimeout(() => this.#announce(), ANNOUNCE_READ_AFTER_MS);
  }

  /** Publishes an event during the call (a retry), after the announcement. */
  readonly during: Emit = (event) => {
    this.#announce();
    return this.#emitAfter(event);
  };

  /**
   * Publishes the announcement (if due and not yet out) and `tool_result` now, as one stream message
   * when both go, without waiting for the stream's ack; resolves once the stream has them. A reply sent in the same tick leaves on
   * the same socket write, after both events.
   */
  finish(outcome: Outcome, durationMs: number): Promise<unknown> {
    const { tool, callId } = this.#opts.call;
    clearTimeout(this.#readTimer);
    const result: AgentEvent = {
      type: 'tool_result',
      payload: {
        tool,
        success: outcome.success,
        // The result itself goes to the agent in the reply, and into `complete`; the event says
        // what it held (its record count), which is all a client's SSE stream shows of a tool result.
        ...(outcome.success
          ? { recordCount: recordCount(outcome.result) }
          : { error: outcome.error?.message, ...(outcome.error ? { code: outcome.error.code } : {}) }),
        callId,
        duration_ms: durationMs,
        truncated: outcome.truncated,
      },
    };
    // A call not announced yet is announced with its result: one stream message for both.
    if (this.#calling && !this.#announced) {
      const events = [this.#announcement(), result];
      this.#announced = this.#report(events, () => this.#opts.emitAll(events));
      return this.#announced;
    }
    return Promise.all([this.#announced, this.#emitAfter(result)]);
  }

  #announcement(): AgentEvent {
    const { tool, callId, args } = this.#opts.call;
    return { type: 'executing_tool', payload: { tool, callId, args } };
  }

  #announce(): void {
    if (this.#calling) this.#announced ??= this.#emitAfter(this.#announcement());
  }

  #emitAfter(event: AgentEvent): Promise<unknown> {
    return this.#report([event], () => this.#opts.emit(event));
  }

  #report(events: AgentEvent[], send: () => Promise<unknown>): Promise<unknown> {
    return send().catch((error: unknown) =>
      this.#opts.log.error(
        {
          err: error,
          requestId: this.#opts.requestId,
          tool: this.#opts.call.tool,
          event: events.map((e) => e.type).join(','),
        },
        'could not emit event',
      ),
    );
  }
}
