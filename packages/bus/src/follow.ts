import { streamSeqOf, TERMINAL_EVENT_TYPES } from '@munim/contracts';
import type { StoredMsg as JsStoredMsg, MsgRequest } from '@nats-io/jetstream';
import type { BusCore } from './core.ts';
import { eventsOf, type SequencedEvent } from './events.ts';
import { FAILOVER_RETRY_MS, jsApi } from './js-api.ts';
import { type LiveSignal, liveEventsOf, POLL_WITHOUT_REPUBLISH_MS } from './live.ts';
import { parseJson } from './wire.ts';

/** An event and its sequence (see `eventSeq`): the SSE id, and where a resumed stream starts after. */
export type FollowedEvent = SequencedEvent;

export interface Following extends AsyncIterable<FollowedEvent> {
  stop(): Promise<void>;
}

/**
 * How long a follow may hand out nothing before it reads the stream for what it may have missed
 * (a last message lost with nothing after it to show the gap): one small request per idle follow.
 */
const FOLLOW_CHECK_MS = 5_000;

/** Signals in arrival order, awaited one at a time by the follow's reader. */
class SignalQueue {
  readonly #items: LiveSignal[] = [];
  #wake: (() => void) | undefined;

  push(signal: LiveSignal): void {
    this.#items.push(signal);
    this.#wake?.();
    this.#wake = undefined;
  }

  async next(): Promise<LiveSignal> {
    while (this.#items.length === 0) await new Promise<void>((resolve) => (this.#wake = resolve));
    return this.#items.shift()!;
  }
}

/** The subjects of one request's events in the events stream, and its stream. */
function requestSubjects(bus: BusCore, requestId: string) {
  return {
    stream: bus.streamName('events'),
    steps: bus.subject('requestEvents', { requestId }),
    end: bus.subject('requestEnded', { requestId }),
  };
}

/** The first stored message on `subject` at or after `seq`, from the stream's leader. */
function storedFrom(bus: BusCore, stream: string, subject: string, seq: number, what: string) {
  // nats-server answers `next_by_subj` here since 2.9; nats.js types it for direct gets only.
  const request = { next_by_subj: subject, seq } as unknown as MsgRequest;
  return jsApi(what, () => bus.jsm.streams.getMessage(stream, request), FAILOVER_RETRY_MS);
}

/**
 * Follows the events of one request: the stored ones first (unless `fresh`: a request only now
 * being submitted), then live, ending after its `complete` or `error`. `afterSeq` resumes after an
 * SSE `Last-Event-ID`. Live events come through the bus's one subscription to what the stream
 * stores (see live.ts), each with its stream sequence; whenever one may have been missed (the
 * previous message on the request's subject was not seen, the stream's sequence skipped, the
 * connection came back, or nothing came for a while) the follow reads the request's messages after
 * the last it read from the stream, then goes on live. Every event is handed out once, in stream
 * order. `stop()` detaches it; nothing is left on the server.
 */
export async function follow(
  bus: BusCore,
  requestId: string,
  opts: { afterSeq?: number | undefined; fresh?: boolean } = {},
): Promise<Following> {
  const { log } = bus;
  const { stream, steps, end } = requestSubjects(bus, requestId);
  /** Sequence of the last event handed out. */
  let after = opts.afterSeq ?? 0;
  /**
   * Stream sequence of the last message read. A resumed follow reads the message holding
   * `afterSeq` again, for the events it carries after that one.
   */
  let read = after > 0 ? streamSeqOf(after) - 1 : 0;
  let handedAt = Date.now();
  const queue = new SignalQueue();
  const hub = liveEventsOf(bus);
  const quietMs = (await hub.republishes()) ? FOLLOW_CHECK_MS : POLL_WITHOUT_REPUBLISH_MS;
  const detach = hub.attach(requestId, (signal) => queue.push(signal));
  if (!opts.fresh) queue.push({ kind: 'catch-up', why: 'start' });
  const idle = setInterval(
    () => {
      if (Date.now() - handedAt < quietMs) return;
      handedAt = Date.now();
      queue.push({ kind: 'catch-up', why: 'idle' });
    },
    Math.min(1_000, quietMs),
  );

  /** The request's stored messages after `read`, in order, up to and including the one that ends it. */
  async function* stored(): AsyncGenerator<JsStoredMsg> {
    const what = `follow ${requestId}: events after ${after}`;
    const ending = await storedFrom(bus, stream, end, read + 1, what);
    for (let cursor = read; ; ) {
      const next = await storedFrom(bus, stream, steps, cursor + 1, what);
      if (!next || (ending && next.seq > ending.seq)) break;
      cursor = next.seq;
      yield next;
    }
    if (ending) yield ending;
  }

  /** The events of one message still to hand out: none for one read already (or malformed). */
  const take = (seq: number, subject: string, data: Uint8Array): FollowedEvent[] => {
    if (seq <= read) return [];
    read = seq;
    handedAt = Date.now();
    const parsed = eventsOf(seq, parseJson(data));
    if (!parsed.ok) {
      log?.warn({ subject, seq, detail: parsed.detail }, 'skipping malformed event');
      return [];
    }
    const fresh = parsed.events.filter((e) => e.seq > after);
    if (fresh.length > 0) after = fresh.at(-1)!.seq;
    return fresh;
  };
  const isEnd = (event: FollowedEvent) => TERMINAL_EVENT_TYPES.includes(event.message.data.type);

  async function* iterate(): AsyncGenerator<FollowedEvent> {
    for (;;) {
      let signal = await queue.next();
      if (signal.kind === 'closed') return;
      // The message before this one on the request's subject was never read: read from the stream.
      if (signal.kind === 'stored' && signal.seq > read && signal.lastOnSubject > read)
        signal = { kind: 'catch-up', why: 'gap' };
      if (signal.kind === 'stored') {
        for (const event of take(signal.seq, signal.subject, signal.data)) {
          yield event;
          if (isEnd(event)) return;
        }
        continue;
      }
      if (signal.why !== 'start' && signal.why !== 'idle')
        log?.info(
          { requestId, after, why: signal.why },
          'reading what the follow may have missed from the stream',
        );
      try {
        for await (const message of stored())
          for (const event of take(message.seq, message.subject, message.data)) {
            yield event;
            if (isEnd(event)) return;
          }
      } catch (error) {
        // The end of the iteration, not of the request: the reader reports it, a client resumes.
        log?.error({ err: error, requestId, after }, 'could not read the request from the stream');
        return;
      }
    }
  }
  const iterator = iterate();
  let stopping: Promise<void> | undefined;
  const release = () => {
    clearInterval(idle);
    detach();
  };
  return {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        const result = await iterator.next();
        if (result.done) release();
        return result;
      },
      return: async () => {
        release();
        return iterator.return(undefined);
      },
    }),
    stop: () => {
      stopping ??= (async () => {
        release();
        // Wakes a reader waiting for the next signal, so its iteration ends.
        queue.push({ kind: 'closed' });
        await iterator.return(undefined);
      })();
      return stopping;
    },
  };
}

/** The last stored event of a request (its end, when it has one), or null when it has no events. */
export async function lastEvent(bus: BusCore, requestId: string): Promise<FollowedEvent | null> {
  const { stream, steps, end } = requestSubjects(bus, requestId);
  const last = (subject: string) =>
    jsApi(
      `last event of ${requestId}`,
      () => bus.jsm.streams.getMessage(stream, { last_by_subj: subject }),
      FAILOVER_RETRY_MS,
    );
  const stored = (await last(end)) ?? (await last(steps));
  if (!stored) return null;
  const parsed = eventsOf(stored.seq, parseJson(stored.data));
  return parsed.ok ? parsed.events.at(-1)! : null;
}
