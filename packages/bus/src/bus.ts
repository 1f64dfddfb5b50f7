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
  DiscardPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type StoredMsg as JsStoredMsg,
  jetstream,
  jetstreamManager,
  type MsgRequest,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import {
  createInbox,
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
import { inboxPrefix } from './nats-permissions.ts';
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

/**
 * How munim's streams are stored (DESIGN §3.1): every instance of every service reads the same
 * settings from its environment and applies them at start. Unset fields keep the defaults below.
 */
export interface StreamSettings {
  /** Copies of each stream (and of each durable consumer) in a JetStream cluster: 1 to 5 (default 1). */
  replicas?: number;
  /** `file` (default) or `memory`. */
  storage?: 'file' | 'memory';
  /** Longest a message is kept, in ms, for WORK and EVENTS alike; 0 means no limit (default: EVENTS 7 days, WORK none). */
  maxAgeMs?: number;
  /** Most bytes each stream keeps (default: no limit); WORK then refuses new work, EVENTS drops its oldest. */
  maxBytes?: number;
}

/** Age limit of the EVENTS stream when none is configured: a week of replay. */
export const DEFAULT_EVENTS_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

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
  /** The stream settings `ensureStreams` applies by default; durable consumers get the same replicas. */
  readonly streams: StreamSettings;
  private readonly messageSchemas = new Map<string, z.ZodType>();
  private readonly reconnectWaiters = new Set<(reconnected: boolean) => void>();
  /** Requests waiting for their reply: sent again after a reconnect. */
  private readonly pendingRequests = new Set<{
    subject: string;
    bytes: Uint8Array;
    inbox: string;
    headers: MsgHdrs;
  }>();
  private watchingStatus = false;
  /** JetStream for follows: making an ordered consumer takes milliseconds, or never happens. */
  private readonly followJs: JetStreamClient;

  constructor(opts: {
    nc: NatsConnection;
    jsm: JetStreamManager;
    prefix: string;
    service: ServiceName;
    log?: BusLogger;
    streams?: StreamSettings;
  }) {
    this.nc = opts.nc;
    this.jsm = opts.jsm;
    this.js = jetstream(opts.nc);
    this.followJs = jetstream(opts.nc, { timeout: FOLLOW_CREATE_TIMEOUT_MS });
    this.prefix = opts.prefix;
    this.service = opts.service;
    this.log = opts.log;
    this.streams = opts.streams ?? {};
  }

  static async create(opts: {
    nc: NatsConnection;
    prefix: string;
    service: ServiceName;
    log?: BusLogger;
    streams?: StreamSettings;
  }) {
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

  /**
   * Creates or updates the streams with `settings` (by default the bus's own); safe to call from
   * every instance at start. An existing stream is updated in place, its messages kept: replicas
   * and limits change, storage cannot (JetStream refuses), so a different storage is only reported.
   * In a cluster a stream whose replicas change elects a new leader: this waits for it, and a call
   * that went unanswered meanwhile is made again (bounded), so the next instance finds it settled.
   */
  async ensureStreams(settings: StreamSettings = this.streams): Promise<void> {
    const replicas = settings.replicas ?? 1;
    const storage = settings.storage === 'memory' ? StorageType.Memory : StorageType.File;
    for (const key of Object.keys(STREAMS) as StreamKey[]) {
      const def = STREAMS[key];
      const name = this.streamName(key);
      const maxAgeMs = settings.maxAgeMs ?? (key === 'events' ? DEFAULT_EVENTS_MAX_AGE_MS : 0);
      const limits = {
        subjects: def.subjects.map((s) => `${this.prefix}.${s}`),
        // Two minutes of deduplication, or the whole age limit when that is shorter (JetStream refuses more).
        duplicate_window: Math.min(DUPLICATE_WINDOW_MS, maxAgeMs || DUPLICATE_WINDOW_MS) * 1_000_000,
        max_age: maxAgeMs * 1_000_000,
        max_bytes: settings.maxBytes ?? -1,
        // Full WORK refuses a new query (its client gets an error); full EVENTS forgets the oldest.
        discard: def.retention === 'workqueue' ? DiscardPolicy.New : DiscardPolicy.Old,
        num_replicas: replicas,
      };
      const existing = await jsApi(`stream info ${name}`, async () => {
        try {
          return await this.jsm.streams.info(name);
        } catch (error) {
          if (isNotFound(error)) return undefined;
          throw error;
        }
      });
      if (!existing) {
        const added = await jsApi(`stream create ${name}`, async () => {
          try {
            await this.jsm.streams.add({
              name,
              retention: def.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
              storage,
              ...limits,
            });
            return true;
          } catch (error) {
            // Another instance created it first: it may have done so with other settings.
            if (/already in use|exists/i.test(String(error))) return false;
            throw error;
          }
        });
        if (added) continue;
      }
      const current = existing ?? (await jsApi(`stream info ${name}`, () => this.jsm.streams.info(name)));
      if (current.config.storage !== storage) {
        this.log?.warn(
          { stream: name, storage: current.config.storage, wanted: storage },
          'stream keeps its storage: JetStream cannot change it in place (delete the stream to change it)',
        );
      }
      if (!differs(current.config, limits)) continue;
      // Read again before each try: another instance (or a try that went unanswered) may have
      // made the change already. While a stream's replicas change, nats-server 2.9 can refuse an
      // update of it as "subjects overlap with an existing stream" (the stream itself): a pause.
      await jsApi(
        `stream update ${name}`,
        async () => {
          const now = await this.jsm.streams.info(name);
          if (differs(now.config, limits)) await this.jsm.streams.update(name, limits);
        },
        STREAM_SETTLE_MS,
        /subjects overlap/i,
      );
      if (current.config.num_replicas !== replicas) {
        this.log?.info(
          { stream: name, from: current.config.num_replicas, to: replicas },
          'stream replicas changed',
        );
        await this.awaitStreamLeader(name);
      }
    }
  }

  /** Waits (bounded) until a clustered stream has a leader again, e.g. after its replicas changed. */
  private async awaitStreamLeader(name: string, timeoutMs = STREAM_SETTLE_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const info = await this.jsm.streams.info(name).catch(() => undefined);
      if (info && (!info.cluster || info.cluster.leader)) return;
      if (Date.now() > deadline) throw new Error(`stream ${name} has no leader after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 250));
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
      const ack = await this.jsPublish(subject, encoder.encode(JSON.stringify(message)), {
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
   * A JetStream publish that rides out a cluster's failover: while the stream has no leader (its
   * server died and the others are electing one) a publish finds no responder or goes unanswered,
   * so it is sent again, with the same `msgID`, until {@link FAILOVER_RETRY_MS} have passed. The
   * stream's duplicate window makes a retry of a publish that did land a no-op.
   */
  private async jsPublish(subject: string, data: Uint8Array, opts: { msgID: string; headers: MsgHdrs }) {
    const deadline = Date.now() + FAILOVER_RETRY_MS;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.js.publish(subject, data, opts);
      } catch (error) {
        if (!isTransient(error) || Date.now() >= deadline) throw error;
        if (attempt === 1)
          this.log?.warn({ err: error, subject }, 'JetStream publish not acknowledged; trying again');
        await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 100 * 2 ** attempt)));
      }
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
      // An inbox of its own (not the shared one), so that a request that may have been lost with
      // a dying connection can go again to the same inbox (see watchConnection): the first answer wins.
      const inbox = createInbox(inboxPrefix(this.prefix, this.service));
      const bytes = encoder.encode(JSON.stringify(message));
      const pending = { subject, bytes, inbox, headers };
      this.watchConnection();
      this.pendingRequests.add(pending);
      try {
        const msg = await this.nc.request(subject, bytes, {
          timeout: timeoutMs,
          headers,
          noMux: true,
          reply: inbox,
        });
        reply = msg.data;
      } finally {
        this.pendingRequests.delete(pending);
      }
    } catch (error) {
      const text = String(error);
      if (/503|no responders/i.test(text)) {
        throw new RequestFailedError('SERVICE_UNAVAILABLE', `no ${catalog[name].queue} instance is running`, {
          cause: error,
          unanswered: true,
        });
      }
      if (/timeout/i.test(text)) {
        throw new RequestFailedError(
          'TIMEOUT',
          `${catalog[name].queue} did not answer within ${opts.timeoutMs} ms`,
          { cause: error, unanswered: true },
        );
      }
      throw new RequestFailedError('SERVICE_UNAVAILABLE', `request to ${subject} failed: ${text}`, {
        cause: error,
        unanswered: true,
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

  /**
   * A reply written just before the connection broke (its server died) is lost with the socket,
   * and its caller would wait out its whole timeout. A flush after it tells: when the flush fails
   * the connection broke first, so the reply goes again once the client has reconnected. A caller
   * that had it already ignores the second.
   */
  private resendIfLost(subject: string, bytes: Uint8Array): void {
    this.watchConnection();
    this.nc.flush().catch(async () => {
      if (this.nc.isClosed()) return;
      if (!(await this.reconnected(RESEND_WAIT_MS))) return;
      try {
        this.nc.publish(subject, bytes);
        this.log?.warn({ subject }, 'reply sent again after a reconnect');
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
    if (this.watchingStatus) return;
    this.watchingStatus = true;
    void (async () => {
      for await (const status of this.nc.status()) {
        if (status.type !== 'reconnect') continue;
        for (const waiter of [...this.reconnectWaiters]) waiter(true);
        if (this.pendingRequests.size === 0) continue;
        this.log?.warn({ requests: this.pendingRequests.size }, 'requests sent again after a reconnect');
        for (const r of this.pendingRequests) {
          try {
            this.nc.publish(r.subject, r.bytes, { reply: r.inbox, headers: r.headers });
          } catch {
            // Closed meanwhile: the request times out.
          }
        }
      }
    })()
      .catch(() => undefined)
      .finally(() => {
        for (const waiter of [...this.reconnectWaiters]) waiter(false);
      });
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
            if (!msg.reply) return;
            const bytes = encoder.encode(JSON.stringify(body));
            msg.respond(bytes);
            this.resendIfLost(msg.reply, bytes);
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
      // As many copies as the stream, so a durable survives the servers its stream survives.
      num_replicas: this.streams.replicas ?? 1,
    };
    const update = {
      ack_wait: config.ack_wait,
      max_deliver: config.max_deliver,
      max_ack_pending: config.max_ack_pending,
      num_replicas: config.num_replicas,
    };
    const what = `consumer ${opts.durable} of ${stream}`;
    const existing = await jsApi(`${what}: info`, async () => {
      try {
        return await this.jsm.consumers.info(stream, opts.durable);
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    });
    if (!existing) {
      const added = await jsApi(`${what}: create`, async () => {
        try {
          await this.jsm.consumers.add(stream, config);
          return true;
        } catch (error) {
          if (/already in use|exists/i.test(String(error))) return false;
          throw error;
        }
      });
      if (added) return stream;
    }
    const current =
      existing ?? (await jsApi(`${what}: info`, () => this.jsm.consumers.info(stream, opts.durable)));
    if (differs(current.config, update))
      await jsApi(`${what}: update`, async () => {
        // Read again before each try: another instance (or an unanswered try) may have done it.
        const now = await this.jsm.consumers.info(stream, opts.durable);
        if (differs(now.config, update)) await this.jsm.consumers.update(stream, opts.durable, update);
      });
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
    const messages = await consumer.consume({ max_messages: concurrency, expires: PULL_EXPIRES_MS });
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
      if (msg.info.deliveryCount > 1 && opts.traced !== false) {
        // Another instance died holding it (or a handler failed): worth a line, it is rare.
        this.log?.warn(
          { subject: msg.subject, requestId: message.requestId, attempt: msg.info.deliveryCount },
          'message redelivered',
        );
      }
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
   *
   * In a cluster the ordered consumer (one ephemeral copy, on one server) can fail it in two ways
   * that nats.js does not notice: its server dies (nats.js then asks after the lost consumer for
   * ever), or it lives on a server whose copy of the stream has fallen behind (it answers every
   * pull, with nothing). So a follow that hears nothing from its consumer for a while makes a new
   * one, and one that has handed nothing out for a while asks the stream's leader for the
   * request's last event: when that is newer, it reads what it missed from the leader and makes a
   * new consumer after it. Every event is handed out once, in stream order.
   */
  async follow(requestId: string, opts: { afterSeq?: number } = {}): Promise<Following> {
    const log = this.log;
    const stream = this.streamName('events');
    const filter = this.subject('requestEvents', { requestId });
    /** Stream sequence of the last event handed out: a new consumer starts after it. */
    let after = opts.afterSeq ?? 0;
    let stopped = false;
    const open = async () => {
      // Made again while unanswered: while a server is down, nats-server 2.9 places some new
      // ephemeral consumers on it (and never answers), and while a stream elects its leader
      // nothing answers. A short wait per try makes the next try, on another server, come soon.
      const consumer = await jsApi(
        `follow ${requestId}`,
        () =>
          this.followJs.consumers.get(stream, {
            filter_subjects: filter,
            ...(after
              ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: after + 1 }
              : { deliver_policy: DeliverPolicy.All }),
          }),
        FAILOVER_RETRY_MS,
      );
      const messages = await consumer.consume({ max_messages: 256, expires: PULL_EXPIRES_MS });
      const current = {
        consumer,
        messages,
        /** Why this consumer was given up: it went silent, or it fell behind the stream. */
        replaced: undefined as 'silent' | 'behind' | undefined,
        heardAt: Date.now(),
        handedAt: Date.now(),
        checkedAt: Date.now(),
        checking: false,
      };
      const replace = (why: 'silent' | 'behind') => {
        if (current.replaced || stopped) return;
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
        const seen = after;
        this.jsm.streams
          .getMessage(stream, { last_by_subj: filter })
          .then((last) => {
            // Stored a while ago and still not delivered (a consumer delivers in milliseconds).
            const stale = last && Date.now() - last.time.getTime() >= FOLLOW_STALE_MS;
            if (last && stale && last.seq > seen && after === seen) replace('behind');
          })
          .catch(() => undefined)
          .finally(() => {
            current.checking = false;
            current.checkedAt = Date.now();
          });
      }, 1_000);
      void messages.closed().finally(() => clearInterval(watchdog));
      return current;
    };
    const jsm = this.jsm;
    /** The request's events after `after`, read one by one from the stream's leader. */
    async function* missed(): AsyncGenerator<JsStoredMsg> {
      for (;;) {
        // nats-server answers `next_by_subj` here since 2.9; nats.js types it for direct gets only.
        const request = { next_by_subj: filter, seq: after + 1 } as unknown as MsgRequest;
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
    const parse = (bytes: Uint8Array) => this.parseEvent(bytes);
    /** The event to hand out, or 'skip' for one handed out already (or malformed). */
    const take = (seq: number, subject: string, data: Uint8Array): FollowedEvent | 'skip' => {
      if (seq <= after) return 'skip';
      after = seq;
      current.handedAt = Date.now();
      const message = parse(data);
      if (!message) {
        log?.warn({ subject, seq }, 'skipping malformed event');
        return 'skip';
      }
      return { seq, message };
    };
    async function* iterate(): AsyncGenerator<FollowedEvent> {
      for (;;) {
        for await (const msg of current.messages) {
          current.heardAt = Date.now();
          // A consumer made again may repeat what its predecessor (or the leader) handed out.
          const event = take(msg.seq, msg.subject, msg.data);
          if (event === 'skip') continue;
          yield event;
          if (TERMINAL_EVENT_TYPES.includes(event.message.data.type)) return;
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
              const event = take(stored.seq, stored.subject, stored.data);
              if (event === 'skip') continue;
              yield event;
              if (TERMINAL_EVENT_TYPES.includes(event.message.data.type)) return;
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
    const stored = await jsApi(
      `last event of ${requestId}`,
      () =>
        this.jsm.streams.getMessage(this.streamName('events'), {
          last_by_subj: this.subject('requestEvents', { requestId }),
        }),
      FAILOVER_RETRY_MS,
    );
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

/**
 * How long a pull request lasts. The server keeps pulls in the memory of the consumer's leader: when
 * that server dies, the client learns it only from missed heartbeats (two, at half this) and then
 * pulls from the new leader. The client's default, 30 s, would stall a consumer that long.
 */
export const PULL_EXPIRES_MS = 5_000;

/**
 * How long a follow may hear nothing from its consumer (no event, no heartbeat, which comes every
 * half of {@link PULL_EXPIRES_MS}, no answer to a pull) before it makes a new one: nats.js pulls
 * again after two missed heartbeats, so silence after that means the consumer is gone.
 */
const FOLLOW_SILENCE_MS = PULL_EXPIRES_MS * 1.5;

/** How long a reply that may have been lost waits for the connection to come back to go again. */
const RESEND_WAIT_MS = 30_000;

/**
 * How long a follow may hand out nothing before it asks the stream's leader whether the request
 * has newer events than its consumer delivered (one small request per idle follow this often).
 */
const FOLLOW_CHECK_MS = 5_000;

/** How old a stored event its follow's consumer has not delivered must be to count as missed. */
const FOLLOW_STALE_MS = 1_000;

/** How long one try to make a follow's consumer may take (the JetStream default is 5 s). */
const FOLLOW_CREATE_TIMEOUT_MS = 2_000;

/** Consumer notifications that show the consumer is there (a pull answered, a heartbeat, a new consumer). */
const SIGNS_OF_LIFE = new Set([
  'heartbeat',
  'discard',
  'debug',
  'ordered_consumer_recreated',
  'flow_control',
]);

/**
 * How long a JetStream call made while serving a request (a publish, a follow, a lookup) is made
 * again while no leader answers: a cluster elects a new stream leader within seconds.
 */
const FAILOVER_RETRY_MS = 20_000;

/** How long a stream remembers message ids, so that a publish sent again is stored once. */
const DUPLICATE_WINDOW_MS = 120_000;

/** How long stream and consumer management may wait out a cluster's elections at start. */
const STREAM_SETTLE_MS = 30_000;

/** Whether a stored config has some value other than `wanted`'s (only `wanted`'s keys count). */
function differs(config: object, wanted: Record<string, unknown>): boolean {
  const current = config as Record<string, unknown>;
  return Object.entries(wanted).some(
    ([key, value]) => JSON.stringify(current[key]) !== JSON.stringify(value),
  );
}

/**
 * A JetStream API call, made again while it goes unanswered or JetStream is briefly unavailable
 * (a cluster electing a stream, consumer or meta leader does not answer), or fails with an error
 * matching `alsoTransient`, up to a bound.
 */
async function jsApi<T>(
  what: string,
  call: () => Promise<T>,
  timeoutMs = STREAM_SETTLE_MS,
  alsoTransient?: RegExp,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      const transient = isTransient(error) || Boolean(alsoTransient?.test(String(error)));
      if (!transient || Date.now() > deadline) {
        if (attempt > 1 && error instanceof Error)
          error.message = `${what}: ${error.message} (after ${attempt} tries)`;
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 250 * attempt)));
    }
  }
}

/**
 * A JetStream error worth another try: no answer, no responder (nats.js reports that as "jetstream
 * is not enabled", the cause says why), or JetStream temporarily unavailable.
 */
function isTransient(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth += 1) {
    const code = (e as { api_error?: { err_code?: number } })?.api_error?.err_code;
    if (code === 10008 || /timeout|no responders|503|temporarily unavailable/i.test(String(e))) return true;
  }
  return false;
}

function isNotFound(error: unknown): boolean {
  return /not found|404|10014|10059|10037/i.test(
    `${String(error)} ${(error as { code?: unknown })?.code ?? ''} ${(error as { api_error?: { err_code?: number } })?.api_error?.err_code ?? ''}`,
  );
}
