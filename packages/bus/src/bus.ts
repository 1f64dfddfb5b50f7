import { randomUUID } from 'node:crypto';
import {
  type AgentEvent,
  type BroadcastSubjectName,
  type Catalog,
  catalog,
  type ErrorCode,
  ErrorCodeSchema,
  type Message,
  messageSchema,
  type RequestScope,
  type RequestSubjectName,
  resolveSubject,
  type ServiceName,
  STREAMS,
  type StreamKey,
  type StreamSubjectName,
  SYSTEM_SCOPE,
  TERMINAL_EVENT_TYPES,
} from '@munim/contracts';
import {
  AckPolicy,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import {
  type MsgHdrs,
  type NatsConnection,
  headers as natsHeaders,
  type Subscription,
} from '@nats-io/nats-core';
import {
  type Context,
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { z } from 'zod';
import { describeIssues, HandlerError, MalformedMessageError, RequestFailedError } from './errors.ts';
import { childTraceparent, newTraceparent, traceparentOf } from './trace.ts';

type DataOf<N extends keyof Catalog> = z.infer<Catalog[N]['schema']>;
type ReplyOf<N extends RequestSubjectName> = z.infer<Catalog[N]['reply']>;

/** Minimal structured logger the bus writes to (pino fits). */
export interface BusLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What a handler learns about the message besides its data. */
export interface MessageContext {
  subject: string;
  /** W3C trace context of the message, to pass on to what it causes. */
  traceparent: string | undefined;
  /** JetStream delivery attempt (1 for request/reply). */
  deliveryCount: number;
  /** JetStream stream sequence (0 for request/reply). */
  seq: number;
}

/** What a request handler learns, and how it may answer before it returns. */
export interface ServeContext<R> extends MessageContext {
  /**
   * Answers now (parsed with the reply schema first); the handler's return value is then ignored.
   * Called in the same tick as a publish, it leaves in one socket write with it, after it.
   */
  reply(data: R): void;
}

export interface PublishOptions {
  params?: Record<string, string>;
  /** JetStream dedupe id; defaults to the envelope id. */
  msgID?: string;
  traceparent?: string | undefined;
}

export interface ConsumeOptions {
  /** Durable consumer name shared by every instance of the service. */
  durable: string;
  /** Messages handled at once by this instance. */
  concurrency?: number;
  ackWaitMs?: number;
  maxDeliver?: number;
  /** Called when a message failed its last delivery, so the request still ends. */
  onGiveUp?: (message: Message<unknown>, error: unknown) => Promise<void>;
  /**
   * Whether a malformed message that names its request ends that request with an `error` event
   * (default true). Observers of the events stream turn it off: the owner of the work reports it.
   */
  reportMalformed?: boolean;
  /** Where a durable created now starts: every stored message (default) or only new ones. */
  startAt?: 'all' | 'new';
  /** Whether each message gets a consumer span (default true); observers that skip most messages turn it off. */
  traced?: boolean;
  /** Messages delivered and not yet acked, across all instances (default 1000). */
  maxAckPending?: number;
}

export interface RunningConsumer {
  /** Stops pulling, waits for in-flight handlers. */
  stop(): Promise<void>;
}

export interface FollowedEvent {
  /** Stream sequence: the SSE id, and where a resumed stream starts after. */
  seq: number;
  message: Message<AgentEvent>;
}

export interface Following extends AsyncIterable<FollowedEvent> {
  stop(): Promise<void>;
}

const ReplyEnvelope = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({ ok: z.literal(false), error: z.object({ code: ErrorCodeSchema, message: z.string() }) }),
]);

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch {
    return undefined;
  }
}

/**
 * The typed bus: every publish, request, consume and follow goes through the catalog,
 * parses with the subject's schema on both sides and carries the envelope and trace context.
 */
export class Bus {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly prefix: string;
  readonly service: ServiceName;
  readonly log: BusLogger | undefined;
  private readonly messageSchemas = new Map<string, z.ZodType>();

  constructor(opts: {
    nc: NatsConnection;
    jsm: JetStreamManager;
    prefix: string;
    service: ServiceName;
    log?: BusLogger;
  }) {
    this.nc = opts.nc;
    this.jsm = opts.jsm;
    this.js = jetstream(opts.nc);
    this.prefix = opts.prefix;
    this.service = opts.service;
    this.log = opts.log;
  }

  static async create(opts: { nc: NatsConnection; prefix: string; service: ServiceName; log?: BusLogger }) {
    const jsm = await jetstreamManager(opts.nc);
    return new Bus({ ...opts, jsm });
  }

  /** The concrete subject of a catalog entry. */
  subject(name: keyof Catalog, params?: Record<string, string>): string {
    return resolveSubject(this.prefix, catalog[name].subject, params);
  }

  /** The concrete name of a stream: `<PREFIX>_<NAME>`. */
  streamName(key: StreamKey): string {
    return `${this.prefix.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}_${STREAMS[key].name}`;
  }

  /** Creates or updates the streams; safe to call from every instance at start. */
  async ensureStreams(opts: { eventsMaxAgeMs?: number } = {}): Promise<void> {
    for (const key of Object.keys(STREAMS) as StreamKey[]) {
      const def = STREAMS[key];
      const name = this.streamName(key);
      const config = {
        name,
        subjects: def.subjects.map((s) => `${this.prefix}.${s}`),
        retention: def.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
        storage: StorageType.File,
        duplicate_window: 120 * 1_000_000_000,
        max_age: key === 'events' ? (opts.eventsMaxAgeMs ?? 7 * 24 * 3600 * 1000) * 1_000_000 : 0,
      };
      try {
        await this.jsm.streams.info(name);
        await this.jsm.streams.update(name, {
          subjects: config.subjects,
          max_age: config.max_age,
          duplicate_window: config.duplicate_window,
        });
      } catch (error) {
        if (!isNotFound(error)) throw error;
        try {
          await this.jsm.streams.add(config);
        } catch (addError) {
          // Another instance created it first.
          if (!/already in use|exists/i.test(String(addError))) throw addError;
        }
      }
    }
  }

  private schemaFor(name: keyof Catalog): z.ZodType {
    let schema = this.messageSchemas.get(name);
    if (!schema) {
      schema = messageSchema(catalog[name].schema);
      this.messageSchemas.set(name, schema);
    }
    return schema;
  }

  private envelope<N extends keyof Catalog>(
    name: N,
    scope: RequestScope,
    data: DataOf<N>,
  ): Message<DataOf<N>> {
    const message = {
      id: randomUUID(),
      requestId: scope.requestId,
      conversationId: scope.conversationId,
      entityId: scope.entityId,
      orgId: scope.orgId,
      service: this.service,
      ts: new Date().toISOString(),
      data,
    };
    const parsed = this.schemaFor(name).safeParse(message);
    if (!parsed.success) {
      throw new MalformedMessageError(catalog[name].subject, describeIssues(parsed.error.issues), {
        cause: parsed.error,
      });
    }
    return parsed.data as Message<DataOf<N>>;
  }

  /**
   * Starts a span for one hop (consumers that bypass `consume` use it too). Its parent is the given
   * `traceparent` (the message being handled)
   * or the active context; its own `traceparent` travels in the NATS headers. With telemetry off
   * the span is a no-op and a child `traceparent` is derived by hand, so one query is still one trace.
   */
  startSpan(
    name: string,
    kind: SpanKind,
    parent: string | undefined,
    attributes: Record<string, string>,
  ): { span: Span; ctx: Context; traceparent: string; headers: MsgHdrs } {
    const parentCtx = parent ? propagation.extract(ROOT_CONTEXT, { traceparent: parent }) : context.active();
    const span = tracer.startSpan(
      name,
      { kind, attributes: { 'messaging.system': 'nats', ...attributes } },
      parentCtx,
    );
    const ctx = trace.setSpan(parentCtx, span);
    const traceparent = traceparentOf(span) ?? childTraceparent(parent);
    const headers = natsHeaders();
    headers.set('traceparent', traceparent);
    return { span, ctx, traceparent, headers };
  }

  /** Publishes to a JetStream subject after parsing the message; resolves when the stream has it. */
  async publish<N extends StreamSubjectName>(
    name: N,
    scope: RequestScope,
    data: DataOf<N>,
    opts: PublishOptions = {},
  ): Promise<{ seq: number; duplicate: boolean; message: Message<DataOf<N>> }> {
    const message = this.envelope(name, scope, data);
    const subject = this.subject(name, opts.params);
    // An event is recorded on the span of the work that emits it, not as a span of its own: a
    // request emits dozens, and its readers (the logger) join the trace through this parent.
    const hop =
      name === 'requestEvents'
        ? eventHop(opts.traceparent, (data as AgentEvent).type)
        : this.startSpan(`publish ${catalog[name].subject}`, SpanKind.PRODUCER, opts.traceparent, {
            'messaging.operation.name': 'publish',
            'messaging.destination.name': subject,
            'messaging.message.id': message.id,
            'munim.request_id': scope.requestId,
          });
    try {
      const ack = await this.js.publish(subject, encoder.encode(JSON.stringify(message)), {
        msgID: opts.msgID ?? message.id,
        headers: hop.headers,
      });
      return { seq: ack.seq, duplicate: ack.duplicate, message };
    } catch (error) {
      failSpan(hop.span, error);
      throw error;
    } finally {
      hop.span.end();
    }
  }

  /**
   * Emits one event of a request, on the request's own subject. A deterministic `msgID`
   * (e.g. `<requestId>:router:route_classified`) makes a redelivered handler's re-emit a no-op.
   */
  emit(scope: RequestScope, event: AgentEvent, traceparent?: string, msgID?: string) {
    return this.publish('requestEvents', scope, event, {
      params: { requestId: scope.requestId },
      traceparent,
      ...(msgID ? { msgID } : {}),
    });
  }

  /** Calls a request/reply subject; throws {@link RequestFailedError} on timeout, no responder or error reply. */
  async request<N extends RequestSubjectName>(
    name: N,
    scope: RequestScope,
    data: DataOf<N>,
    opts: { timeoutMs: number; params?: Record<string, string>; traceparent?: string | undefined },
  ): Promise<ReplyOf<N>> {
    const message = this.envelope(name, scope, data);
    const subject = this.subject(name, opts.params);
    const hop = this.startSpan(`send ${catalog[name].subject}`, SpanKind.CLIENT, opts.traceparent, {
      'messaging.operation.name': 'send',
      'messaging.destination.name': subject,
      'munim.request_id': scope.requestId,
    });
    try {
      return await this.awaitReply(name, subject, message, opts.timeoutMs, hop.headers);
    } catch (error) {
      failSpan(hop.span, error);
      throw error;
    } finally {
      hop.span.end();
    }
  }

  private async awaitReply<N extends RequestSubjectName>(
    name: N,
    subject: string,
    message: Message<DataOf<N>>,
    timeoutMs: number,
    headers: MsgHdrs,
  ): Promise<ReplyOf<N>> {
    const opts = { timeoutMs };
    let reply: Uint8Array;
    try {
      const msg = await this.nc.request(subject, encoder.encode(JSON.stringify(message)), {
        timeout: timeoutMs,
        headers,
      });
      reply = msg.data;
    } catch (error) {
      const text = String(error);
      if (/503|no responders/i.test(text)) {
        throw new RequestFailedError('SERVICE_UNAVAILABLE', `no ${catalog[name].queue} instance is running`, {
          cause: error,
        });
      }
      if (/timeout/i.test(text)) {
        throw new RequestFailedError(
          'TIMEOUT',
          `${catalog[name].queue} did not answer within ${opts.timeoutMs} ms`,
          {
            cause: error,
          },
        );
      }
      throw new RequestFailedError('SERVICE_UNAVAILABLE', `request to ${subject} failed: ${text}`, {
        cause: error,
      });
    }
    const envelope = ReplyEnvelope.safeParse(parseJson(reply));
    if (!envelope.success) throw new RequestFailedError('MALFORMED_MESSAGE', `malformed reply on ${subject}`);
    if (!envelope.data.ok)
      throw new RequestFailedError(envelope.data.error.code, envelope.data.error.message);
    const parsed = (catalog[name].reply as z.ZodType).safeParse(envelope.data.data);
    if (!parsed.success) {
      throw new RequestFailedError(
        'MALFORMED_MESSAGE',
        `malformed reply on ${subject}: ${describeIssues(parsed.error.issues)}`,
      );
    }
    return parsed.data as ReplyOf<N>;
  }

  /**
   * Resolves once the server has processed everything sent so far, subscriptions included: a
   * service's `start()` awaits it, so a caller on another connection never finds no responder.
   */
  flush(): Promise<void> {
    return this.nc.flush();
  }

  /** Serves a request/reply subject in its queue group; a malformed request gets a MALFORMED_MESSAGE reply. */
  serve<N extends RequestSubjectName>(
    name: N,
    handler: (message: Message<DataOf<N>>, ctx: ServeContext<ReplyOf<N>>) => Promise<ReplyOf<N>>,
    opts: { params?: Record<string, string>; queue?: string } = {},
  ): Subscription {
    const def = catalog[name];
    const subject = this.subject(name, opts.params);
    const inFlight = new Set<Promise<void>>();
    const sub = this.nc.subscribe(subject, {
      queue: opts.queue ?? def.queue,
      callback: (err, msg) => {
        if (err) {
          this.log?.error({ err, subject }, 'subscription error');
          return;
        }
        const task = (async () => {
          let replied = false;
          const respond = (body: unknown) => {
            if (replied) return;
            replied = true;
            if (msg.reply) msg.respond(encoder.encode(JSON.stringify(body)));
          };
          const reply = (data: ReplyOf<N>) => {
            if (replied) return;
            respond({ ok: true, data: (def.reply as z.ZodType).parse(data) });
          };
          const parsed = this.schemaFor(name).safeParse(parseJson(msg.data));
          if (!parsed.success) {
            const detail = describeIssues(parsed.error.issues);
            this.log?.warn({ subject, detail }, 'malformed request rejected');
            respond({
              ok: false,
              error: { code: 'MALFORMED_MESSAGE', message: `malformed ${def.subject}: ${detail}` },
            });
            return;
          }
          const request = parsed.data as Message<DataOf<N>>;
          const hop = this.startSpan(
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
              this.log?.error({ err: error, subject }, 'request handler failed');
            failSpan(hop.span, error);
            respond({
              ok: false,
              error: { code, message: error instanceof Error ? error.message : String(error) },
            });
          } finally {
            hop.span.end();
          }
        })();
        inFlight.add(task);
        void task.finally(() => inFlight.delete(task));
      },
    });
    return sub;
  }

  /** Publishes a notice to every listening instance (core NATS, fire and forget), after parsing it. */
  broadcast<N extends BroadcastSubjectName>(
    name: N,
    data: DataOf<N>,
    scope: RequestScope = SYSTEM_SCOPE,
  ): void {
    const message = this.envelope(name, scope, data);
    this.nc.publish(this.subject(name), encoder.encode(JSON.stringify(message)));
  }

  /** Listens to a broadcast subject on every instance; a malformed notice is logged and ignored. */
  listen<N extends BroadcastSubjectName>(
    name: N,
    handler: (message: Message<DataOf<N>>) => void,
  ): Subscription {
    const subject = this.subject(name);
    return this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) {
          this.log?.error({ err, subject }, 'subscription error');
          return;
        }
        const parsed = this.schemaFor(name).safeParse(parseJson(msg.data));
        if (!parsed.success) {
          this.log?.warn(
            { subject, detail: describeIssues(parsed.error.issues) },
            'malformed notice ignored',
          );
          return;
        }
        handler(parsed.data as Message<DataOf<N>>);
      },
    });
  }

  /**
   * Makes sure the durable consumer of a stream subject exists with these settings (creating or
   * updating it; safe from every instance at once). `consume` calls it; consumers that pull in
   * their own way (the logger's batches) call it too. `maxDeliver: -1` means never give up.
   */
  async ensureConsumer(
    name: StreamSubjectName,
    opts: Pick<ConsumeOptions, 'durable' | 'ackWaitMs' | 'maxDeliver' | 'maxAckPending' | 'startAt'>,
  ): Promise<string> {
    const def = catalog[name];
    const stream = this.streamName(def.stream);
    const config = {
      durable_name: opts.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: opts.startAt === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
      filter_subject: `${this.prefix}.${def.subject.replace(/\{\w+\}/g, '*').replace(/\.\*$/, '.>')}`,
      ack_wait: (opts.ackWaitMs ?? 30_000) * 1_000_000,
      max_deliver: opts.maxDeliver ?? 5,
      max_ack_pending: opts.maxAckPending ?? 1000,
    };
    try {
      await this.jsm.consumers.info(stream, opts.durable);
      await this.jsm.consumers.update(stream, opts.durable, {
        ack_wait: config.ack_wait,
        max_deliver: config.max_deliver,
        max_ack_pending: config.max_ack_pending,
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      try {
        await this.jsm.consumers.add(stream, config);
      } catch (addError) {
        if (!/already in use|exists/i.test(String(addError))) throw addError;
      }
    }
    return stream;
  }

  /**
   * Consumes a JetStream subject through a durable consumer shared by all instances.
   * Malformed messages are terminated (with an `error` event for their request); a handler
   * that throws gets the message redelivered with backoff, up to `maxDeliver`.
   */
  async consume<N extends StreamSubjectName>(
    name: N,
    handler: (message: Message<DataOf<N>>, ctx: MessageContext) => Promise<void>,
    opts: ConsumeOptions,
  ): Promise<RunningConsumer> {
    const stream = await this.ensureConsumer(name, opts);
    const consumer = await this.js.consumers.get(stream, opts.durable);
    const concurrency = opts.concurrency ?? 8;
    const maxDeliver = opts.maxDeliver ?? 5;
    const messages = await consumer.consume({ max_messages: concurrency });
    const inFlight = new Set<Promise<void>>();

    const handle = async (msg: JsMsg) => {
      const raw = parseJson(msg.data);
      const parsed = this.schemaFor(name).safeParse(raw);
      if (!parsed.success) {
        const detail = describeIssues(parsed.error.issues);
        this.log?.warn({ subject: msg.subject, detail }, 'malformed message terminated');
        // nats-server 2.9 ignores a TERM that carries a reason; the reason is logged above instead.
        msg.term();
        if (opts.reportMalformed !== false)
          await this.reportMalformed(raw, `${catalog[name].subject}: ${detail}`);
        return;
      }
      const message = parsed.data as Message<DataOf<N>>;
      const keepAlive = setInterval(() => msg.working(), Math.max(1000, (opts.ackWaitMs ?? 30_000) / 3));
      const incoming = msg.headers?.get('traceparent') || undefined;
      const hop =
        opts.traced === false
          ? untracedHop(incoming)
          : this.startSpan(`process ${catalog[name].subject}`, SpanKind.CONSUMER, incoming, {
              'messaging.operation.name': 'process',
              'messaging.destination.name': msg.subject,
              'messaging.consumer.group.name': opts.durable,
              'munim.request_id': message.requestId,
            });
      try {
        await context.with(hop.ctx, () =>
          handler(message, {
            subject: msg.subject,
            traceparent: hop.traceparent,
            deliveryCount: msg.info.deliveryCount,
            seq: msg.seq,
          }),
        );
        msg.ack();
      } catch (error) {
        failSpan(hop.span, error);
        const last = msg.info.deliveryCount >= maxDeliver;
        this.log?.error(
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
        const task = handle(msg).catch((error) =>
          this.log?.error({ err: error }, 'message handling crashed'),
        );
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

  /** A malformed message that still names its request ends that request with an `error` event. */
  async reportMalformed(raw: unknown, detail: string): Promise<void> {
    const scope = z
      .object({ requestId: z.string(), conversationId: z.string(), entityId: z.string(), orgId: z.string() })
      .safeParse(raw);
    if (!scope.success) return;
    try {
      await this.emit(scope.data, {
        type: 'error',
        payload: { code: 'MALFORMED_MESSAGE', message: `The request could not be processed: ${detail}` },
      });
    } catch (error) {
      this.log?.warn({ err: error }, 'could not report malformed message');
    }
  }

  /**
   * Follows the events of one request from the stream: the past ones first, then live,
   * ending after its `complete` or `error`. `afterSeq` resumes after an SSE `Last-Event-ID`.
   * `stop()` also deletes the ordered consumer, so a client that goes away leaves nothing behind.
   */
  async follow(requestId: string, opts: { afterSeq?: number } = {}): Promise<Following> {
    const consumer = await this.js.consumers.get(this.streamName('events'), {
      filter_subjects: this.subject('requestEvents', { requestId }),
      ...(opts.afterSeq
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: opts.afterSeq + 1 }
        : { deliver_policy: DeliverPolicy.All }),
    });
    const messages = await consumer.consume({ max_messages: 256 });
    const log = this.log;
    const parse = (bytes: Uint8Array) => this.parseEvent(bytes);
    async function* iterate(): AsyncGenerator<FollowedEvent> {
      for await (const msg of messages) {
        const message = parse(msg.data);
        if (!message) {
          log?.warn({ subject: msg.subject, seq: msg.seq }, 'skipping malformed event');
          continue;
        }
        yield { seq: msg.seq, message };
        if (TERMINAL_EVENT_TYPES.includes(message.data.type)) return;
      }
    }
    const iterator = iterate();
    let stopping: Promise<void> | undefined;
    return {
      [Symbol.asyncIterator]: () => iterator,
      stop: () => {
        stopping ??= (async () => {
          messages.stop();
          await iterator.return(undefined);
          await consumer.delete().catch((error: unknown) => {
            log?.warn(
              { err: error, requestId },
              'could not delete the follow consumer; it expires when idle',
            );
          });
        })();
        return stopping;
      },
    };
  }

  /** The last stored event of a request, or null when the request has no events. */
  async lastEvent(requestId: string): Promise<FollowedEvent | null> {
    const stored = await this.jsm.streams.getMessage(this.streamName('events'), {
      last_by_subj: this.subject('requestEvents', { requestId }),
    });
    if (!stored) return null;
    const message = this.parseEvent(stored.data);
    return message ? { seq: stored.seq, message } : null;
  }

  private parseEvent(bytes: Uint8Array): Message<AgentEvent> | null {
    const parsed = this.schemaFor('requestEvents').safeParse(parseJson(bytes));
    return parsed.success ? (parsed.data as Message<AgentEvent>) : null;
  }
}

const tracer = trace.getTracer('@munim/bus');

/** An event's publish: a span event on the active span, and the caller's trace in the headers. */
function eventHop(traceparent: string | undefined, type: string) {
  const active = trace.getActiveSpan();
  active?.addEvent('munim.event', { 'munim.event_type': type });
  const parent = traceparentOf(active) ?? traceparent;
  const headers = natsHeaders();
  headers.set('traceparent', parent ?? newTraceparent());
  return { span: trace.wrapSpanContext(INVALID_SPAN_CONTEXT), headers };
}

/** A hop without a span of its own: the handler still passes the message's trace on. */
function untracedHop(traceparent: string | undefined) {
  const span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
  return { span, ctx: context.active(), traceparent: traceparent ?? newTraceparent() };
}

function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

function isNotFound(error: unknown): boolean {
  return /not found|404|10014|10059|10037/i.test(
    `${String(error)} ${(error as { code?: unknown })?.code ?? ''} ${(error as { api_error?: { err_code?: number } })?.api_error?.err_code ?? ''}`,
  );
}
