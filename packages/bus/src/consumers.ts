import { catalog, type Message, type StreamSubjectName } from '@munim/contracts';
import type { JsMsg } from '@nats-io/jetstream';
import { context, SpanKind } from '@opentelemetry/api';
import { z } from 'zod';
import type { BusCore, DataOf, MessageContext } from './core.ts';
import { describeIssues } from './errors.ts';
import { eventsOf } from './events.ts';
import { type DurableOptions, ensureDurable } from './streams.ts';
import { failSpan, startHop, untracedHop } from './tracing.ts';
import { parseJson } from './wire.ts';

/**
 * How long a pull request lasts. The server keeps pulls in the memory of the consumer's leader: when
 * that server dies, the client learns it only from missed heartbeats (two, at half this) and then
 * pulls from the new leader. The client's default, 30 s, would stall a consumer that long.
 */
export const PULL_EXPIRES_MS = 5_000;

export interface ConsumeOptions extends DurableOptions {
  /** Messages handled at once by this instance. */
  concurrency?: number;
  /** Called when a message failed its last delivery, so the request still ends. */
  onGiveUp?: (message: Message<unknown>, error: unknown) => Promise<void>;
  /**
   * Whether a malformed message that names its request ends that request with an `error` event
   * (default true). Observers of the events stream turn it off: the owner of the work reports it.
   */
  reportMalformed?: boolean;
  /** Whether each message gets a consumer span (default true); observers that skip most messages turn it off. */
  traced?: boolean;
}

type ParsedMessages<T> =
  | { ok: true; list: { seq: number; message: Message<T> }[] }
  | { ok: false; raw: unknown; detail: string };

export interface RunningConsumer {
  /** Stops pulling, waits for in-flight handlers. */
  stop(): Promise<void>;
}

/**
 * Consumes a JetStream subject through a durable consumer shared by all instances. Malformed
 * messages are terminated (with an `error` event for their request); a handler that throws gets
 * the message redelivered with backoff, up to `maxDeliver`.
 */
export async function consume<N extends StreamSubjectName>(
  bus: BusCore,
  name: N,
  handler: (message: Message<DataOf<N>>, ctx: MessageContext) => Promise<void>,
  opts: ConsumeOptions,
): Promise<RunningConsumer> {
  const { log } = bus;
  const stream = await ensureDurable(bus, name, opts);
  const consumer = await bus.js.consumers.get(stream, opts.durable);
  const concurrency = opts.concurrency ?? 8;
  const maxDeliver = opts.maxDeliver ?? 5;
  const messages = await consumer.consume({ max_messages: concurrency, expires: PULL_EXPIRES_MS });
  const inFlight = new Set<Promise<void>>();

  /** The messages one JetStream message carries (several for a batch of events), each with its sequence. */
  const parse = (msg: JsMsg): ParsedMessages<DataOf<N>> => {
    const raw = parseJson(msg.data);
    if (name === 'requestEvents' || name === 'requestEnded') {
      const parsed = eventsOf(msg.seq, raw);
      return parsed.ok
        ? { ok: true, list: parsed.events as { seq: number; message: Message<DataOf<N>> }[] }
        : parsed;
    }
    const parsed = bus.schemaFor(name).safeParse(raw);
    return parsed.success
      ? { ok: true, list: [{ seq: msg.seq, message: parsed.data as Message<DataOf<N>> }] }
      : { ok: false, raw, detail: describeIssues(parsed.error.issues) };
  };

  const handle = async (msg: JsMsg) => {
    const parsed = parse(msg);
    if (!parsed.ok) {
      const { detail } = parsed;
      log?.warn({ subject: msg.subject, detail }, 'malformed message terminated');
      // nats-server 2.9 ignores a TERM that carries a reason; the reason is logged above instead.
      msg.term();
      if (opts.reportMalformed !== false)
        await reportMalformed(bus, parsed.raw, `${catalog[name].subject}: ${detail}`);
      return;
    }
    const message = parsed.list[0]!.message;
    if (msg.info.deliveryCount > 1 && opts.traced !== false) {
      // Another instance died holding it (or a handler failed): worth a line, it is rare.
      log?.warn(
        { subject: msg.subject, requestId: message.requestId, attempt: msg.info.deliveryCount },
        'message redelivered',
      );
    }
    const keepAlive = setInterval(() => msg.working(), Math.max(1000, (opts.ackWaitMs ?? 30_000) / 3));
    const incoming = msg.headers?.get('traceparent') || undefined;
    const hop =
      opts.traced === false
        ? untracedHop(incoming)
        : startHop(`process ${catalog[name].subject}`, SpanKind.CONSUMER, incoming, {
            'messaging.operation.name': 'process',
            'messaging.destination.name': msg.subject,
            'messaging.consumer.group.name': opts.durable,
            'munim.request_id': message.requestId,
          });
    try {
      // A batch's messages in order; a failure hands the whole batch back (handlers allow a repeat).
      for (const { seq, message: each } of parsed.list)
        await context.with(hop.ctx, () =>
          handler(each, {
            subject: msg.subject,
            traceparent: hop.traceparent,
            deliveryCount: msg.info.deliveryCount,
            seq,
          }),
        );
      msg.ack();
    } catch (error) {
      failSpan(hop.span, error);
      const last = msg.info.deliveryCount >= maxDeliver;
      log?.error(
        {
          err: error,
          subject: msg.subject,
          requestId: message.requestId,
          attempt: msg.info.deliveryCount,
          last,
        },
        'handler failed',
      );
      if (last) {
        try {
          await opts.onGiveUp?.(message as Message<unknown>, error);
        } finally {
          msg.term();
        }
      } else {
        msg.nak(Math.min(30_000, 500 * 2 ** (msg.info.deliveryCount - 1)));
      }
    } finally {
      clearInterval(keepAlive);
      hop.span.end();
    }
  };

  const loop = (async () => {
    for await (const msg of messages) {
      const task = handle(msg).catch((error) => log?.error({ err: error }, 'message handling crashed'));
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
  })();

  return {
    stop: async () => {
      messages.stop();
      await loop.catch(() => undefined);
      await Promise.allSettled([...inFlight]);
    },
  };
}

const ScopeOf = z.object({
  requestId: z.string(),
  conversationId: z.string(),
  entityId: z.string(),
  orgId: z.string(),
});

/** A malformed message that still names its request ends that request with an `error` event. */
export async function reportMalformed(bus: BusCore, raw: unknown, detail: string): Promise<void> {
  const scope = ScopeOf.safeParse(raw);
  if (!scope.success) return;
  try {
    await bus.emit(scope.data, {
      type: 'error',
      payload: { code: 'MALFORMED_MESSAGE', message: `The request could not be processed: ${detail}` },
    });
  } catch (error) {
    bus.log?.warn({ err: error }, 'could not report malformed message');
  }
}
