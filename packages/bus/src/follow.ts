import { streamSeqOf, TERMINAL_EVENT_TYPES } from '@munim/contracts';
import {
  type Consumer,
  type ConsumerMessages,
  DeliverPolicy,
  type StoredMsg as JsStoredMsg,
  type MsgRequest,
} from '@nats-io/jetstream';
import { PULL_EXPIRES_MS } from './consumers.ts';
import type { BusCore } from './core.ts';
import { eventsOf, type SequencedEvent } from './events.ts';
import { FAILOVER_RETRY_MS, jsApi } from './js-api.ts';
import { parseJson } from './wire.ts';

/** An event and its sequence (see `eventSeq`): the SSE id, and where a resumed stream starts after. */
export type FollowedEvent = SequencedEvent;

export interface Following extends AsyncIterable<FollowedEvent> {
  stop(): Promise<void>;
}

/**
 * How long a follow may hear nothing from its consumer (no event, no heartbeat, which comes every
 * half of {@link PULL_EXPIRES_MS}, no answer to a pull) before it makes a new one: nats.js pulls
 * again after two missed heartbeats, so silence after that means the consumer is gone.
 */
const FOLLOW_SILENCE_MS = PULL_EXPIRES_MS * 1.5;

/**
 * How long a follow may hand out nothing before it asks the stream's leader whether the request
 * has newer events than its consumer delivered (one small request per idle follow this often).
 */
const FOLLOW_CHECK_MS = 5_000;

/** How old a stored event its follow's consumer has not delivered must be to count as missed. */
const FOLLOW_STALE_MS = 1_000;

/** How long one try to make a follow's consumer may take (the JetStream default is 5 s). */
export const FOLLOW_CREATE_TIMEOUT_MS = 2_000;

/** Consumer notifications that show the consumer is there (a pull answered, a heartbeat, a new consumer). */
const SIGNS_OF_LIFE = new Set([
  'heartbeat',
  'discard',
  'debug',
  'ordered_consumer_recreated',
  'flow_control',
]);

/** A follow's consumer and what its watchdog knows of it. */
interface WatchedConsumer {
  consumer: Consumer;
  messages: ConsumerMessages;
  /** Why this consumer was given up: it went silent, or it fell behind the stream. */
  replaced: 'silent' | 'behind' | undefined;
  heardAt: number;
  handedAt: number;
  checkedAt: number;
  checking: boolean;
}

/**
 * Makes a follow's ordered consumer, starting after the stream sequence `state.read()`, and
 * watches it: it is given up (its messages stopped, `replaced` saying why) when it goes silent or
 * when the stream's leader has a stale event of the request it has not delivered.
 */
async function watchConsumer(
  bus: BusCore,
  where: { stream: string; filter: string; requestId: string },
  state: { read: () => number; stopped: () => boolean },
): Promise<WatchedConsumer> {
  // Made again while unanswered: while a server is down, nats-server 2.9 places some new
  // ephemeral consumers on it (and never answers), and while a stream elects its leader
  // nothing answers. A short wait per try makes the next try, on another server, come soon.
  const consumer = await jsApi(
    `follow ${where.requestId}`,
    () =>
      bus.followJs.consumers.get(where.stream, {
        filter_subjects: where.filter,
        ...(state.read()
          ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: state.read() + 1 }
          : { deliver_policy: DeliverPolicy.All }),
      }),
    FAILOVER_RETRY_MS,
  );
  const messages = await consumer.consume({ max_messages: 256, expires: PULL_EXPIRES_MS });
  const current: WatchedConsumer = {
    consumer,
    messages,
    replaced: undefined,
    heardAt: Date.now(),
    handedAt: Date.now(),
    checkedAt: Date.now(),
    checking: false,
  };
  const replace = (why: 'silent' | 'behind') => {
    if (current.replaced || state.stopped()) return;
    current.replaced = why;
    messages.stop();
  };
  void (async () => {
    for await (const status of messages.status())
      if (SIGNS_OF_LIFE.has(status.type)) current.heardAt = Date.now();
  })().catch(() => undefined);
  const watchdog = setInterval(() => {
    const now = Date.now();
    if (now - current.heardAt >= FOLLOW_SILENCE_MS) return replace('silent');
    if (current.checking || now - Math.max(current.handedAt, current.checkedAt) < FOLLOW_CHECK_MS) return;
    current.checking = true;
    const seen = state.read();
    bus.jsm.streams
      .getMessage(where.stream, { last_by_subj: where.filter })
      .then((last) => {
        // Stored a while ago and still not delivered (a consumer delivers in milliseconds).
        const stale = last && Date.now() - last.time.getTime() >= FOLLOW_STALE_MS;
        if (last && stale && last.seq > seen && state.read() === seen) replace('behind');
      })
      .catch(() => undefined)
      .finally(() => {
        current.checking = false;
        current.checkedAt = Date.now();
      });
  }, 1_000);
  void messages.closed().finally(() => clearInterval(watchdog));
  return current;
}

/**
 * Follows the events of one request from the stream: the past ones first, then live,
 * ending after its `complete` or `error`. `afterSeq` resumes after an SSE `Last-Event-ID`.
 * `stop()` also deletes the ordered consumer, so a client that goes away leaves nothing behind.
 *
 * In a cluster the ordered consumer (one ephemeral copy, on one server) can fail it in two ways
 * that nats.js does not notice: its server dies (nats.js then asks after the lost consumer for
 * ever), or it lives on a server whose copy of the stream has fallen behind (it answers every
 * pull, with nothing). So a follow that hears nothing from its consumer for a while makes a new
 * one, and one that has handed nothing out for a while asks the stream's leader for the
 * request's last event: when that is newer, it reads what it missed from the leader and makes a
 * new consumer after it. Every event is handed out once, in stream order.
 */
export async function follow(
  bus: BusCore,
  requestId: string,
  opts: { afterSeq?: number | undefined } = {},
): Promise<Following> {
  const { log, jsm } = bus;
  const stream = bus.streamName('events');
  const filter = bus.subject('requestEvents', { requestId });
  /** Sequence of the last event handed out. */
  let after = opts.afterSeq ?? 0;
  /**
   * Stream sequence of the last message read: a new consumer starts after it. A resumed follow
   * reads the message holding `afterSeq` again, for the events it carries after that one.
   */
  let read = after > 0 ? streamSeqOf(after) - 1 : 0;
  let stopped = false;
  const open = () =>
    watchConsumer(bus, { stream, filter, requestId }, { read: () => read, stopped: () => stopped });
  /** The request's events after `after`, read one by one from the stream's leader. */
  async function* missed(): AsyncGenerator<JsStoredMsg> {
    for (;;) {
      // nats-server answers `next_by_subj` here since 2.9; nats.js types it for direct gets only.
      const request = { next_by_subj: filter, seq: read + 1 } as unknown as MsgRequest;
      const next = await jsApi(
        `follow ${requestId}: event after ${after}`,
        () => jsm.streams.getMessage(stream, request),
        FAILOVER_RETRY_MS,
      );
      if (!next) return;
      yield next;
    }
  }
  let current = await open();
  /** The events of one message still to hand out: none for one read already (or malformed). */
  const take = (seq: number, subject: string, data: Uint8Array): FollowedEvent[] => {
    if (seq <= read) return [];
    read = seq;
    current.handedAt = Date.now();
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
      for await (const msg of current.messages) {
        current.heardAt = Date.now();
        // A consumer made again may repeat what its predecessor (or the leader) handed out.
        for (const event of take(msg.seq, msg.subject, msg.data)) {
          yield event;
          if (isEnd(event)) return;
        }
      }
      if (stopped || !current.replaced) return;
      log?.warn(
        { requestId, after, why: current.replaced },
        current.replaced === 'silent'
          ? 'the follow consumer went silent (its server may be gone); following anew'
          : 'the follow consumer fell behind the stream; reading from its leader and following anew',
      );
      void current.consumer.delete().catch(() => undefined);
      try {
        if (current.replaced === 'behind') {
          for await (const stored of missed()) {
            for (const event of take(stored.seq, stored.subject, stored.data)) {
              yield event;
              if (isEnd(event)) return;
            }
          }
        }
        current = await open();
      } catch (error) {
        // The end of the iteration, not of the request: the reader reports it, a client resumes.
        log?.error({ err: error, requestId, after }, 'could not follow the request anew');
        return;
      }
      // Stopped meanwhile: stop() saw the old consumer.
      if (stopped) {
        current.messages.stop();
        void current.consumer.delete().catch(() => undefined);
        return;
      }
    }
  }
  const iterator = iterate();
  let stopping: Promise<void> | undefined;
  return {
    [Symbol.asyncIterator]: () => iterator,
    stop: () => {
      stopping ??= (async () => {
        stopped = true;
        current.messages.stop();
        await iterator.return(undefined);
        await current.consumer.delete().catch((error: unknown) => {
          log?.warn({ err: error, requestId }, 'could not delete the follow consumer; it expires when idle');
        });
      })();
      return stopping;
    },
  };
}

/** The last stored event of a request, or null when the request has no events. */
export async function lastEvent(bus: BusCore, requestId: string): Promise<FollowedEvent | null> {
  const stored = await jsApi(
    `last event of ${requestId}`,
    () =>
      bus.jsm.streams.getMessage(bus.streamName('events'), {
        last_by_subj: bus.subject('requestEvents', { requestId }),
      }),
    FAILOVER_RETRY_MS,
  );
  if (!stored) return null;
  const parsed = eventsOf(stored.seq, parseJson(stored.data));
  return parsed.ok ? parsed.events.at(-1)! : null;
}
