import { setTimeout as sleep } from 'node:timers/promises';
import { type Bus, eventsOf, PULL_EXPIRES_MS, type SequencedEvent } from '@munim/bus';
import { type AgentEvent, catalog, type Message, TERMINAL_EVENT_TYPES } from '@munim/contracts';
import { type Database, pingDb } from '@munim/db';
import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { IncomingEvent } from './event-records.ts';
import { type BatchResult, storeBatch } from './store.ts';

/** How the logger batches its writes. */
export interface IngestConfig {
  /** Durable consumer name shared by every instance. */
  durable: string;
  /** Largest number of events written in one transaction. */
  batchSize: number;
  /** Batches written at once by this instance (requests are partitioned among them). */
  partitions: number;
  /**
   * How long a partition waits for more events before it writes a batch that is not full: under
   * load a request's events arrive a few at a time, and one transaction for many costs the
   * database far less than one for each few (0: write what arrived in the same tick).
   */
  lingerMs: number;
  /** Unacked events the consumer hands out, over all instances. */
  maxAckPending: number;
  ackWaitMs: number;
  /** Called after each committed batch (tests and benchmarks count them). */
  onBatch?: (result: BatchResult, size: number) => void;
}

/** The running ingest of one instance. */
export interface Ingest {
  /** Stops pulling, writes what it holds, then resolves. */
  stop(): Promise<void>;
}

/** One message of the stream and its events (several when a service sent them together): acked as one. */
interface Held {
  msg: JsMsg;
  events: IncomingEvent[];
  /** The consumer span of a request's terminal event: from its receipt to its commit. */
  span: Span | undefined;
}

function finish(held: readonly Held[], error?: unknown): void {
  for (const h of held) {
    if (error !== undefined) {
      h.span?.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
    }
    h.span?.end();
  }
}

/** A failure of one stored event that persists while the database answers: a poison event. */
const GIVE_UP_AFTER = 5;

/** The message's text (Buffer's UTF-8 decoding: faster than TextDecoder for small messages). */
const textOf = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString();

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const traceparentOf = (msg: JsMsg) => msg.headers?.get('traceparent') || undefined;

/**
 * An event as it came off the stream: a message that is one event is stored as the bytes it
 * arrived as; an event of a batch is written out again.
 */
class StreamEvent implements IncomingEvent {
  readonly seq: number;
  readonly json: Uint8Array | undefined;
  readonly message: Message<AgentEvent>;
  readonly #msg: JsMsg;
  constructor(msg: JsMsg, { seq, message }: SequencedEvent, whole: boolean) {
    this.#msg = msg;
    this.message = message;
    this.seq = seq;
    this.json = whole ? msg.data : undefined;
  }

  /** Headers are decoded only where a request's trace id is read (its first events). */
  get traceparent(): string | undefined {
    return traceparentOf(this.#msg);
  }
}

/** FNV-1a, so every event of one request lands in the same partition. */
function partitionOf(requestId: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < requestId.length; i += 1) {
    hash ^= requestId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}

/** What committing a batch needs. */
interface Committer {
  db: Kysely<Database>;
  log: Logger;
  onBatch: IngestConfig['onBatch'];
  /** Whether the logger is stopping: a batch that cannot be stored then is handed back. */
  stopping: () => boolean;
}

/** Commits one batch, retrying until it is in or known to be poison; splits a failing batch. */
async function commitBatch(deps: Committer, batch: Held[]): Promise<void> {
  const { db, log } = deps;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const result = await storeBatch(
        db,
        batch.flatMap((h) => h.events),
      );
      for (const h of batch) h.msg.ack();
      const redelivered = batch.filter((h) => h.msg.info.deliveryCount > 1).length;
      // Handed over by an instance that went away (or a batch that failed): rare, so worth a line.
      if (redelivered > 0) log.warn({ events: redelivered }, 'redelivered events stored');
      finish(batch);
      deps.onBatch?.(result, batch.length);
      return;
    } catch (error) {
      const reachable = await pingDb(db);
      if (reachable && attempt >= GIVE_UP_AFTER / 2 && batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        await commitBatch(deps, batch.slice(0, half));
        await commitBatch(deps, batch.slice(half));
        return;
      }
      if (reachable && attempt >= GIVE_UP_AFTER) {
        const { message } = batch[0]!.events[0]!;
        log.error(
          { err: error, eventId: message.id, requestId: message.requestId },
          'event given up, not stored',
        );
        batch[0]!.msg.term();
        finish(batch, error);
        return;
      }
      if (deps.stopping() && !reachable) {
        // Another instance (or the next start) takes them over at once.
        for (const h of batch) h.msg.nak();
        finish(batch, error);
        log.warn({ err: error, events: batch.length }, 'stopping with the database down; events handed back');
        return;
      }
      log.warn({ err: error, attempt, events: batch.length, reachable }, 'batch not stored, retrying');
      await sleep(Math.min(5000, 100 * 2 ** (attempt - 1)));
    }
  }
}

/**
 * Consumes every request event with explicit acks and writes them in batches: each partition of
 * this instance takes what arrived while its previous batch was committing (up to `batchSize`),
 * writes it in one transaction and only then acks it. While the database is unreachable a
 * partition retries its batch with backoff and holds everything it received, extending the ack
 * deadline, so nothing is acked or lost; when the database is back the events go in.
 * A message that fails its schema is terminated (and its request ended with an `error` event).
 */
export async function startIngest(
  bus: Bus,
  db: Kysely<Database>,
  log: Logger,
  config: IngestConfig,
): Promise<Ingest> {
  const stream = await bus.ensureConsumer('requestEvents', {
    durable: config.durable,
    ackWaitMs: config.ackWaitMs,
    // Unlimited: an event given up is an event missing from the database; a database outage is
    // ridden out by holding the events (and telling the server we are working on them).
    maxDeliver: -1,
    maxAckPending: config.maxAckPending,
  });
  const consumer = await bus.js.consumers.get(stream, config.durable);
  const queues: Held[][] = Array.from({ length: config.partitions }, () => []);
  const inFlight: Held[][] = Array.from({ length: config.partitions }, () => []);
  const running: (Promise<void> | undefined)[] = Array.from({ length: config.partitions });
  let stopping = false;

  const keepAlive = setInterval(
    () => {
      for (const list of [...queues, ...inFlight]) for (const h of list) h.msg.working();
    },
    Math.max(500, config.ackWaitMs / 3),
  );

  const committer: Committer = { db, log, onBatch: config.onBatch, stopping: () => stopping };
  const commit = (batch: Held[]) => commitBatch(committer, batch);

  const drain = async (p: number) => {
    const queue = queues[p]!;
    while (queue.length > 0) {
      // Let messages delivered in the same tick, or within the linger, join the batch.
      if (config.lingerMs > 0 && queued[p]! < config.batchSize && !stopping) await linger(p);
      else await new Promise((resolve) => setImmediate(resolve));
      const batch = takeBatch(p);
      inFlight[p] = batch;
      try {
        await commit(batch);
      } finally {
        inFlight[p] = [];
      }
    }
  };

  /** Events waiting in each partition's queue (a message may carry several). */
  const queued: number[] = Array.from({ length: config.partitions }, () => 0);
  /** The queue's first messages holding up to `batchSize` events (at least one message). */
  const takeBatch = (p: number): Held[] => {
    const queue = queues[p]!;
    let count = 0;
    let n = 0;
    while (n < queue.length && (n === 0 || count + queue[n]!.events.length <= config.batchSize)) {
      count += queue[n]!.events.length;
      n += 1;
    }
    queued[p] = queued[p]! - count;
    return queue.splice(0, n);
  };

  /** Ends a partition's linger early: its batch is full, or the logger is stopping. */
  const wakers: ((() => void) | undefined)[] = Array.from({ length: config.partitions });
  const linger = (p: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakers[p] = undefined;
        resolve();
      };
      const timer = setTimeout(done, config.lingerMs);
      wakers[p] = done;
    });

  const kick = (p: number) => {
    if (running[p]) return;
    running[p] = drain(p)
      .catch((error: unknown) => log.error({ err: error, partition: p }, 'ingest partition crashed'))
      .finally(() => {
        running[p] = undefined;
        if (queues[p]!.length > 0 && !stopping) kick(p);
      });
  };

  const receive = (msg: JsMsg) => {
    const raw = parseJson(textOf(msg.data));
    const parsed = eventsOf(msg.seq, raw);
    if (!parsed.ok) {
      log.warn({ subject: msg.subject, detail: parsed.detail }, 'malformed message terminated');
      msg.term();
      void bus.reportMalformed(parsed.raw, `${catalog.requestEvents.subject}: ${parsed.detail}`);
      return;
    }
    const whole = !Array.isArray(raw);
    const events = parsed.events.map((e) => new StreamEvent(msg, e, whole));
    const last = events.at(-1)!.message;
    const p = partitionOf(last.requestId, config.partitions);
    // One span per request (at its complete/error), not per event: the trace shows where each
    // request's record was committed without a span for every stored event.
    const span = !TERMINAL_EVENT_TYPES.includes(last.data.type)
      ? undefined
      : bus.startSpan(`process ${catalog.requestEvents.subject}`, SpanKind.CONSUMER, traceparentOf(msg), {
          'messaging.operation.name': 'process',
          'messaging.destination.name': msg.subject,
          'messaging.consumer.group.name': config.durable,
          'munim.request_id': last.requestId,
          'munim.event_type': last.data.type,
        }).span;
    queues[p]!.push({ msg, events, span });
    queued[p] = queued[p]! + events.length;
    if (queued[p]! >= config.batchSize) wakers[p]?.();
    kick(p);
  };

  const messages: ConsumerMessages = await consumer.consume({
    max_messages: Math.min(config.maxAckPending, config.batchSize * config.partitions * 2),
    expires: PULL_EXPIRES_MS,
    callback: receive,
  });

  return {
    async stop() {
      messages.stop();
      await messages.closed().catch(() => undefined);
      stopping = true;
      for (const wake of wakers) wake?.();
      for (let p = 0; p < config.partitions; p += 1) if (queues[p]!.length > 0) kick(p);
      await Promise.allSettled(running.filter(Boolean));
      clearInterval(keepAlive);
    },
  };
}
