import {
  catalog,
  type ErrorCode,
  ErrorCodeSchema,
  type Message,
  type RequestScope,
  type RequestSubjectName,
} from '@munim/contracts';
import { createInbox, errors, type MsgHdrs, type Subscription } from '@nats-io/nats-core';
import { context, SpanKind } from '@opentelemetry/api';
import { z } from 'zod';
import type { BusCore, DataOf, MessageContext, ReplyOf } from './core.ts';
import { describeIssues, HandlerError, RequestFailedError } from './errors.ts';
import { isNoResponders } from './js-api.ts';
import { inboxPrefix } from './nats-permissions.ts';
import { failSpan, startHop } from './tracing.ts';
import { encoder, parseJson } from './wire.ts';

/** What a request handler learns, and how it may answer before it returns. */
export interface ServeContext<R> extends MessageContext {
  /**
   * Answers now (parsed with the reply schema first); the handler's return value is then ignored.
   * Called in the same tick as a publish, it leaves in one socket write with it, after it.
   */
  reply(data: R): void;
}

/** A request handler. */
export type ServeHandler<N extends RequestSubjectName> = (
  message: Message<DataOf<N>>,
  ctx: ServeContext<ReplyOf<N>>,
) => Promise<ReplyOf<N>>;

/** A subject being served. */
export interface Served {
  /** The concrete subject. */
  readonly subject: string;
  /** Stops taking requests (drains the subscription) and waits for the handlers still running. */
  stop(): Promise<void>;
}

/** When requests still waiting go again after a server left the cluster (ms after the news). */
const RESEND_AFTER_SERVER_LOSS_MS = [1_000, 3_000, 7_000];

/** How long a reply that may have been lost waits for the connection to come back to go again. */
const RESEND_WAIT_MS = 30_000;

const ReplyEnvelope = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({ ok: z.literal(false), error: z.object({ code: ErrorCodeSchema, message: z.string() }) }),
]);

interface PendingRequest {
  subject: string;
  bytes: Uint8Array;
  inbox: string;
  headers: MsgHdrs;
}

/**
 * Request/reply over core NATS, in queue groups. Both sides parse with the subject's schemas, and
 * both ride out a connection that breaks under them (its server died): a request still waiting is
 * sent again after the reconnect, and a reply written into the dying socket goes again.
 */
export class RequestReply {
  private readonly reconnectWaiters = new Set<(reconnected: boolean) => void>();
  /** Requests waiting for their reply: sent again after a reconnect. */
  private readonly pending = new Set<PendingRequest>();
  private watching = false;

  private readonly bus: BusCore;

  constructor(bus: BusCore) {
    this.bus = bus;
  }

  /** Calls a request/reply subject; throws {@link RequestFailedError} on timeout, no responder or error reply. */
  async request<N extends RequestSubjectName>(
    name: N,
    scope: RequestScope,
    data: DataOf<N>,
    opts: { timeoutMs: number; params?: Record<string, string>; traceparent?: string | undefined },
  ): Promise<ReplyOf<N>> {
    const message = this.bus.envelope(name, scope, data);
    const subject = this.bus.subject(name, opts.params);
    const hop = startHop(`send ${catalog[name].subject}`, SpanKind.CLIENT, opts.traceparent, {
      'messaging.operation.name': 'send',
      'messaging.destination.name': subject,
      'munim.request_id': scope.requestId,
    });
    try {
      const reply = await this.send(
        name,
        subject,
        encoder.encode(JSON.stringify(message)),
        opts.timeoutMs,
        hop.headers,
      );
      return parseReply(name, subject, reply);
    } catch (error) {
      failSpan(hop.span, error);
      throw error;
    } finally {
      hop.span.end();
    }
  }

  private async send(
    name: RequestSubjectName,
    subject: string,
    bytes: Uint8Array,
    timeoutMs: number,
    headers: MsgHdrs,
  ): Promise<Uint8Array> {
    const { nc } = this.bus;
    // An inbox of its own (not the shared one), so that a request that may have been lost with a
    // dying connection can go again to the same inbox (see watchConnection): the first answer wins.
    const inbox = createInbox(inboxPrefix(this.bus.prefix, this.bus.service));
    const pending = { subject, bytes, inbox, headers };
    this.watchConnection();
    this.pending.add(pending);
    try {
      const msg = await nc.request(subject, bytes, {
        timeout: timeoutMs,
        headers,
        noMux: true,
        reply: inbox,
      });
      return msg.data;
    } catch (error) {
      const queue = catalog[name].queue;
      if (isNoResponders(error))
        throw new RequestFailedError('SERVICE_UNAVAILABLE', `no ${queue} instance is running`, {
          cause: error,
          unanswered: true,
        });
      if (error instanceof errors.TimeoutError)
        throw new RequestFailedError('TIMEOUT', `${queue} did not answer within ${timeoutMs} ms`, {
          cause: error,
          unanswered: true,
        });
      throw new RequestFailedError('SERVICE_UNAVAILABLE', `request to ${subject} failed: ${String(error)}`, {
        cause: error,
        unanswered: true,
      });
    } finally {
      this.pending.delete(pending);
    }
  }

  /** Serves a request/reply subject in its queue group; a malformed request gets a MALFORMED_MESSAGE reply. */
  serve<N extends RequestSubjectName>(
    name: N,
    handler: ServeHandler<N>,
    opts: { params?: Record<string, string>; queue?: string } = {},
  ): Served {
    const def = catalog[name];
    const subject = this.bus.subject(name, opts.params);
    const running = new Set<Promise<void>>();
    const sub: Subscription = this.bus.nc.subscribe(subject, {
      queue: opts.queue ?? def.queue,
      callback: (err, msg) => {
        if (err) {
          this.bus.log?.error({ err, subject }, 'subscription error');
          return;
        }
        const task = this.handle(name, handler, msg);
        running.add(task);
        void task.finally(() => running.delete(task));
      },
    });
    let stopping: Promise<void> | undefined;
    return {
      subject,
      stop: () => {
        stopping ??= (async () => {
          await sub.drain().catch(() => undefined);
          await Promise.allSettled([...running]);
        })();
        return stopping;
      },
    };
  }

  private async handle<N extends RequestSubjectName>(
    name: N,
    handler: ServeHandler<N>,
    msg: {
      subject: string;
      data: Uint8Array;
      reply?: string;
      headers?: MsgHdrs;
      respond(data: Uint8Array): boolean;
    },
  ): Promise<void> {
    const { bus } = this;
    const def = catalog[name];
    let replied = false;
    const respond = (body: unknown) => {
      if (replied) return;
      replied = true;
      if (!msg.reply) return;
      const bytes = encoder.encode(JSON.stringify(body));
      msg.respond(bytes);
      this.resendIfLost(msg.reply, bytes);
    };
    const reply = (data: ReplyOf<N>) => {
      if (replied) return;
      respond({ ok: true, data: (def.reply as z.ZodType).parse(data) });
    };
    const parsed = bus.schemaFor(name).safeParse(parseJson(msg.data));
    if (!parsed.success) {
      const detail = describeIssues(parsed.error.issues);
      bus.log?.warn({ subject: msg.subject, detail }, 'malformed request rejected');
      respond({
        ok: false,
        error: { code: 'MALFORMED_MESSAGE', message: `malformed ${def.subject}: ${detail}` },
      });
      return;
    }
    const request = parsed.data as Message<DataOf<N>>;
    const hop = startHop(
      `process ${def.subject}`,
      SpanKind.SERVER,
      msg.headers?.get('traceparent') || undefined,
      {
        'messaging.operation.name': 'process',
        'messaging.destination.name': msg.subject,
        'munim.request_id': request.requestId,
      },
    );
    try {
      const data = await context.with(hop.ctx, () =>
        handler(request, {
          subject: msg.subject,
          traceparent: hop.traceparent,
          deliveryCount: 1,
          seq: 0,
          reply,
        }),
      );
      reply(data);
    } catch (error) {
      const code: ErrorCode = error instanceof HandlerError ? error.code : 'INTERNAL';
      if (!(error instanceof HandlerError))
        bus.log?.error({ err: error, subject: msg.subject }, 'request handler failed');
      failSpan(hop.span, error);
      respond({
        ok: false,
        error: { code, message: error instanceof Error ? error.message : String(error) },
      });
    } finally {
      hop.span.end();
    }
  }

  /**
   * A reply written just before the connection broke (its server died) is lost with the socket,
   * and its caller would wait out its whole timeout. A flush after it tells: when the flush fails
   * the connection broke first, so the reply goes again once the client has reconnected. A caller
   * that had it already ignores the second.
   */
  private resendIfLost(subject: string, bytes: Uint8Array): void {
    const { nc } = this.bus;
    this.watchConnection();
    nc.flush().catch(async () => {
      if (nc.isClosed()) return;
      if (!(await this.reconnected(RESEND_WAIT_MS))) return;
      try {
        nc.publish(subject, bytes);
        this.bus.log?.warn({ subject }, 'reply sent again after a reconnect');
      } catch {
        // Closed meanwhile: the caller times out and may ask again.
      }
    });
  }

  /**
   * Follows the connection's status: at each reconnect every request still waiting for its reply
   * is sent again, to the same inbox (the first answer wins), because the request or its reply may
   * have been lost with the old connection: written into the dying socket, or answered while this
   * client had no subscription anywhere. A request that did arrive is then handled twice, which
   * every request handler allows (validation is a pure function; the executor answers a repeated
   * call with the first one's outcome).
   */
  private watchConnection(): void {
    if (this.watching) return;
    this.watching = true;
    const { nc } = this.bus;
    void (async () => {
      for await (const status of nc.status()) {
        // A server that left the cluster may have held a request, or its reply, on its way between
        // two connections that both live on: sent again a few times while the responders that
        // were connected to it come back (every handler allows a repeat; the first answer wins).
        if (status.type === 'update' && status.deleted?.length) {
          for (const delayMs of RESEND_AFTER_SERVER_LOSS_MS)
            setTimeout(() => this.resendPending('a server left the cluster'), delayMs).unref();
          continue;
        }
        if (status.type !== 'reconnect') continue;
        for (const waiter of [...this.reconnectWaiters]) waiter(true);
        this.resendPending('reconnected');
      }
    })()
      .catch(() => undefined)
      .finally(() => {
        for (const waiter of [...this.reconnectWaiters]) waiter(false);
      });
  }

  /** Sends every request still waiting for its reply again, to the same inbox. */
  private resendPending(why: string): void {
    if (this.pending.size === 0 || this.bus.nc.isClosed()) return;
    this.bus.log?.warn({ requests: this.pending.size, why }, 'requests sent again');
    for (const r of this.pending) {
      try {
        this.bus.nc.publish(r.subject, r.bytes, { reply: r.inbox, headers: r.headers });
      } catch {
        // Closed meanwhile: the request times out.
      }
    }
  }

  /** Resolves true at the connection's next reconnect, false after `timeoutMs` or when it closes. */
  private reconnected(timeoutMs: number): Promise<boolean> {
    const { promise, resolve } = Promise.withResolvers<boolean>();
    const timer = setTimeout(() => done(false), timeoutMs);
    const done = (value: boolean) => {
      clearTimeout(timer);
      this.reconnectWaiters.delete(done);
      resolve(value);
    };
    this.reconnectWaiters.add(done);
    return promise;
  }
}

/** The reply's data, parsed with the subject's reply schema; an error reply is thrown. */
function parseReply<N extends RequestSubjectName>(name: N, subject: string, bytes: Uint8Array): ReplyOf<N> {
  const envelope = ReplyEnvelope.safeParse(parseJson(bytes));
  if (!envelope.success) throw new RequestFailedError('MALFORMED_MESSAGE', `malformed reply on ${subject}`);
  if (!envelope.data.ok) throw new RequestFailedError(envelope.data.error.code, envelope.data.error.message);
  const parsed = (catalog[name].reply as z.ZodType).safeParse(envelope.data.data);
  if (!parsed.success)
    throw new RequestFailedError(
      'MALFORMED_MESSAGE',
      `malformed reply on ${subject}: ${describeIssues(parsed.error.issues)}`,
    );
  return parsed.data as ReplyOf<N>;
}
