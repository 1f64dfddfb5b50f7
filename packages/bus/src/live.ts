import type { Msg, Subscription } from '@nats-io/nats-core';
import type { BusCore } from './core.ts';

/** What a follow is told: a stored message of its request, that it may have missed some, or the end. */
export type LiveSignal =
  | {
      kind: 'stored';
      /** Stream sequence of the message. */
      seq: number;
      /** Stream sequence of the previous message on the same subject (0: none). */
      lastOnSubject: number;
      /** The subject it was stored on. */
      subject: string;
      data: Uint8Array;
    }
  | { kind: 'catch-up'; why: 'start' | 'gap' | 'reconnected' | 'idle' }
  | { kind: 'closed' };

type Tap = (signal: LiveSignal) => void;

/** How often a follow reads the stream when the events stream has no republish setting. */
export const POLL_WITHOUT_REPUBLISH_MS = 250;

/** How long what the events stream's settings say is trusted before they are read again. */
const SETTINGS_TTL_MS = 60_000;

/**
 * One subscription per bus to every stored event, as the events stream republishes it (see
 * `STREAMS.events.republish`), handed to the follows of this process by request id. A follow costs
 * the server nothing: no consumer, no pull, no heartbeat. Core NATS may drop messages while a
 * connection is down or a route between servers is cut; the stream's sequence shows it, since
 * every stored message is republished: a sequence that skips ahead, or a reconnect, asks every
 * follow to read what it may have missed from the stream itself.
 */
export class LiveEvents {
  readonly #bus: BusCore;
  readonly #taps = new Map<string, Set<Tap>>();
  /** `<prefix>.live.`: what the republished subject adds to the stored one. */
  readonly #live: string;
  /** `<prefix>.live.events.`: what comes before the request id. */
  readonly #liveEvents: string;
  #sub: Subscription | undefined;
  /** Highest stream sequence seen. */
  #highest = 0;
  #republishes: { at: number; value: Promise<boolean> } | undefined;

  constructor(bus: BusCore) {
    this.#bus = bus;
    this.#live = `${bus.prefix}.live.`;
    this.#liveEvents = `${this.#live}events.`;
  }

  /** Follows attached now, across requests. */
  get size(): number {
    let count = 0;
    for (const taps of this.#taps.values()) count += taps.size;
    return count;
  }

  /** Hands the request's stored events, and catch-up requests, to `tap` until the returned detach. */
  attach(requestId: string, tap: Tap): () => void {
    this.#ensure();
    let taps = this.#taps.get(requestId);
    if (!taps) {
      taps = new Set();
      this.#taps.set(requestId, taps);
    }
    taps.add(tap);
    return () => {
      const current = this.#taps.get(requestId);
      current?.delete(tap);
      if (current?.size === 0) this.#taps.delete(requestId);
    };
  }

  /**
   * Whether the events stream republishes what it stores (read at most once a minute). Without it
   * (a nats-server too old to add it to an existing stream) nothing comes live, and a follow
   * reads the stream every {@link POLL_WITHOUT_REPUBLISH_MS} instead.
   */
  republishes(): Promise<boolean> {
    const now = Date.now();
    if (!this.#republishes || now - this.#republishes.at > SETTINGS_TTL_MS) {
      const dest = `${this.#liveEvents}>`;
      this.#republishes = {
        at: now,
        value: this.#bus.jsm.streams.info(this.#bus.streamName('events')).then(
          (info) => info.config.republish?.dest === dest,
          // Unknown: a follow still reads the stream whenever it has been quiet a while.
          () => true,
        ),
      };
    }
    return this.#republishes.value;
  }

  #ensure(): void {
    if (this.#sub) return;
    const { nc, log } = this.#bus;
    const subject = `${this.#liveEvents}>`;
    const sub = nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) log?.error({ err, subject }, 'live events subscription failed');
        else this.#deliver(msg);
      },
    });
    this.#sub = sub;
    void sub.closed.then(() => {
      if (this.#sub === sub) this.#sub = undefined;
      this.#broadcast({ kind: 'closed' });
    });
    void (async () => {
      for await (const status of nc.status())
        if (status.type === 'reconnect')
          // After the server has the resent subscriptions (the live one, the reply inbox).
          void nc
            .flush()
            .catch(() => undefined)
            .then(() => this.#broadcast({ kind: 'catch-up', why: 'reconnected' }));
    })().catch(() => undefined);
  }

  #deliver(msg: Msg): void {
    const seq = Number(msg.headers?.get('Nats-Sequence'));
    if (!Number.isSafeInteger(seq) || seq < 1) {
      this.#bus.log?.warn({ subject: msg.subject }, 'live event without a stream sequence ignored');
      return;
    }
    // Checked before this message is handed out, so a follow reads what it missed first.
    if (this.#highest > 0 && seq > this.#highest + 1) this.#broadcast({ kind: 'catch-up', why: 'gap' });
    if (seq > this.#highest) this.#highest = seq;
    const rest = msg.subject.slice(this.#liveEvents.length);
    const dot = rest.indexOf('.');
    const taps = this.#taps.get(dot < 0 ? rest : rest.slice(0, dot));
    if (!taps) return;
    const signal: LiveSignal = {
      kind: 'stored',
      seq,
      lastOnSubject: Number(msg.headers?.get('Nats-Last-Sequence') ?? 0) || 0,
      subject: `${this.#bus.prefix}.${msg.subject.slice(this.#live.length)}`,
      data: msg.data,
    };
    for (const tap of taps) tap(signal);
  }

  #broadcast(signal: LiveSignal): void {
    for (const taps of this.#taps.values()) for (const tap of taps) tap(signal);
  }
}

const hubs = new WeakMap<BusCore, LiveEvents>();

/** The bus's one live subscription to stored events (made on its first follow). */
export function liveEventsOf(bus: BusCore): LiveEvents {
  let hub = hubs.get(bus);
  if (!hub) {
    hub = new LiveEvents(bus);
    hubs.set(bus, hub);
  }
  return hub;
}
