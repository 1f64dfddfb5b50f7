import { randomUUID } from 'node:crypto';
import {
  type AgentEvent,
  type BroadcastSubjectName,
  type Catalog,
  catalog,
  EVENTS_PER_MESSAGE,
  eventSeq,
  type Message,
  messageSchema,
  type RequestScope,
  type RequestSubjectName,
  resolveSubject,
  type ServiceName,
  type StreamKey,
  type StreamSubjectName,
  SYSTEM_SCOPE,
  TERMINAL_EVENT_TYPES,
} from '@munim/contracts';
import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { SpanKind, type SpanKind as SpanKindT } from '@opentelemetry/api';
import type { z } from 'zod';
import { type ConsumeOptions, consume, type RunningConsumer, reportMalformed } from './consumers.ts';
import {
  type BusCore,
  type BusLogger,
  type DataOf,
  type MessageContext,
  type PublishOptions,
  type ReplyOf,
  type StreamSettings,
  streamNameOf,
} from './core.ts';
import { describeIssues, MalformedMessageError } from './errors.ts';
import { type FollowedEvent, type Following, follow, lastEvent } from './follow.ts';
import { isWrongLastSequence, type JsPublishOptions, publishRetrying } from './js-api.ts';
import { liveEventsOf } from './live.ts';
import { RequestReply, type Served, type ServeHandler } from './request-reply.ts';
import { type DurableOptions, ensureDurable, ensureStreams } from './streams.ts';
import { eventHop, failSpan, type Hop, startHop } from './tracing.ts';
import { encoder, parseJson } from './wire.ts';

/**
 * The typed bus: every publish, request, consume and follow goes through the catalog, parses with
 * the subject's schema on both sides and carries the envelope and trace context. It owns its
 * connection: `close()` drains it. It is the facade over its parts, which know it only as the
 * `BusCore` of `core.ts`: streams and durable consumers live in `streams.ts`, request/reply in
 * `request-reply.ts`, consuming in `consumers.ts`, following a request in `follow.ts`, spans in
 * `tracing.ts`.
 */
export class Bus implements BusCore {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly prefix: string;
  readonly service: ServiceName;
  readonly log: BusLogger | undefined;
  /** The stream settings `ensureStreams` applies by default; durable consumers get the same replicas. */
  readonly streams: StreamSettings;
  private readonly messageSchemas = new Map<string, z.ZodType>();
  private readonly rpc = new RequestReply(this);
  private closing: Promise<void> | undefined;

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
    return streamNameOf(this.prefix, key);
  }

  /**
   * Checks the streams against `settings` (by default the bus's own), creating or updating them
   * where this user may (see `ensureStreams` in streams.ts); safe to call from every instance at start.
   */
  ensureStreams(settings: StreamSettings = this.streams): Promise<void> {
    return ensureStreams({ jsm: this.jsm, prefix: this.prefix, who: this.service, log: this.log }, settings);
  }

  /** @internal The envelope schema of a subject (made once). */
  schemaFor(name: keyof Catalog): z.ZodType {
    let schema = this.messageSchemas.get(name);
    if (!schema) {
      schema = messageSchema(catalog[name].schema);
      this.messageSchemas.set(name, schema);
    }
    return schema;
  }

  /** @internal A message in its envelope, parsed with the subject's schema. */
  envelope<N extends keyof Catalog>(name: N, scope: RequestScope, data: DataOf<N>): Message<DataOf<N>> {
    const message = {
      id: randomUUID(),
      requestId: scope.requestId,
      conversationId: scope.conversationId,
      entityId: scope.entityId,
      orgId: scope.orgId,
      service: this.service,
      ts: new Date().toISOString(),
      ...(scope.actor ? { actor: scope.actor } : {}),
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
   * Starts a span for one hop (consumers that bypass `consume` use it too); its `traceparent`
   * travels in the NATS headers. See `startHop` in tracing.ts.
   */
  startSpan(
    name: string,
    kind: SpanKindT,
    parent: string | undefined,
    attributes: Record<string, string>,
  ): Hop {
    return startHop(name, kind, parent, attributes);
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
    const hop = startHop(`publish ${catalog[name].subject}`, SpanKind.PRODUCER, opts.traceparent, {
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

  /** A JetStream publish that rides out a cluster's failover (see `publishRetrying`). */
  private jsPublish(subject: string, data: Uint8Array, opts: JsPublishOptions) {
    return publishRetrying(this.js, this.log, subject, data, opts);
  }

  /**
   * Emits one event of a request, on the request's own subject. A deterministic `msgID`
   * (e.g. `<requestId>:router:route_classified`) makes a redelivered handler's re-emit a no-op.
   */
  async emit(
    scope: RequestScope,
    event: AgentEvent,
    traceparent?: string,
    msgID?: string,
  ): Promise<{ seq: number; duplicate: boolean; message: Message<AgentEvent> }> {
    const { seq, duplicate, messages } = await this.emitAll(scope, [event], traceparent, msgID);
    return { seq, duplicate, message: messages[0]! };
  }

  /**
   * Opens a request: its `connected` event, once, whoever sends it and however late. The gateway
   * sends it once the query is submitted and the router before its first event, so a gateway
   * that dies in between still leaves a request that opens, runs and ends, with one `connected`.
   * One message id dedupes the two within the stream's duplicate window; past it (a router
   * redelivery minutes later) the stream stores it only while the request's subject is empty.
   * `duplicate` is true when the request was open already.
   */
  async open(scope: RequestScope, traceparent?: string): Promise<{ duplicate: boolean }> {
    const message = this.envelope('requestEvents', scope, {
      type: 'connected',
      payload: { requestId: scope.requestId, conversationId: scope.conversationId },
    });
    const hop = eventHop(traceparent, 'connected');
    try {
      const ack = await this.jsPublish(
        this.subject('requestEvents', { requestId: scope.requestId }),
        encoder.encode(JSON.stringify(message)),
        { msgID: `${scope.requestId}:connected`, headers: hop.headers, expect: { lastSubjectSequence: 0 } },
      );
      return { duplicate: ack.duplicate };
    } catch (error) {
      if (isWrongLastSequence(error)) return { duplicate: true };
      throw error;
    } finally {
      hop.span.end();
    }
  }

  /**
   * Emits several events of a request, in order, as one message (or as few as
   * `EVENTS_PER_MESSAGE` allows): what a service has at once costs the stream and every consumer
   * one message. `msgID` (deterministic, as for `emit`) is the first message's; further ones
   * add `#2`, `#3`, …. Resolves to the last event's sequence (see `eventSeq`), whether the stream
   * had every message already (a repeat under the same `msgID`), and the envelopes.
   */
  async emitAll(
    scope: RequestScope,
    events: readonly AgentEvent[],
    traceparent?: string,
    msgID?: string,
  ): Promise<{ seq: number; duplicate: boolean; messages: Message<AgentEvent>[] }> {
    if (events.length === 0) throw new Error('emitAll: no events');
    const messages = events.map(
      (event) => this.envelope('requestEvents', scope, event) as Message<AgentEvent>,
    );
    const params = { requestId: scope.requestId };
    let seq = 0;
    let duplicate = true;
    for (let start = 0, part = 1; start < messages.length; start += EVENTS_PER_MESSAGE, part += 1) {
      const slice = messages.slice(start, start + EVENTS_PER_MESSAGE);
      // The message that ends the request goes on its own subject (see `requestEnded`).
      const ends = slice.some((m) => TERMINAL_EVENT_TYPES.includes(m.data.type));
      const subject = this.subject(ends ? 'requestEnded' : 'requestEvents', params);
      // Recorded on the span of the work that emits them, not as spans of their own: a request
      // emits dozens, and its readers (the logger) join the trace through this parent.
      const hop = eventHop(traceparent, slice.map((m) => m.data.type).join(','));
      const id = msgID ? (part === 1 ? msgID : `${msgID}#${part}`) : slice[0]!.id;
      try {
        // One event goes as the envelope itself, as `emit` sends it.
        const body = JSON.stringify(slice.length === 1 ? slice[0] : slice);
        const ack = await this.jsPublish(subject, encoder.encode(body), {
          msgID: id,
          headers: hop.headers,
        });
        seq = eventSeq(ack.seq, slice.length - 1);
        duplicate &&= ack.duplicate;
      } finally {
        hop.span.end();
      }
    }
    return { seq, duplicate, messages };
  }

  /** Calls a request/reply subject; throws {@link RequestFailedError} on timeout, no responder or error reply. */
  request<N extends RequestSubjectName>(
    name: N,
    scope: RequestScope,
    data: DataOf<N>,
    opts: { timeoutMs: number; params?: Record<string, string>; traceparent?: string | undefined },
  ): Promise<ReplyOf<N>> {
    return this.rpc.request(name, scope, data, opts);
  }

  /**
   * Serves a request/reply subject in its queue group; a malformed request gets a MALFORMED_MESSAGE
   * reply. The handle's `stop()` drains the subscription and waits for the running handlers.
   */
  serve<N extends RequestSubjectName>(
    name: N,
    handler: ServeHandler<N>,
    opts: { params?: Record<string, string>; queue?: string } = {},
  ): Served {
    return this.rpc.serve(name, handler, opts);
  }

  /**
   * Resolves once the server has processed everything sent so far, subscriptions included: a
   * service's `start()` awaits it, so a caller on another connection never finds no responder.
   */
  flush(): Promise<void> {
    return this.nc.flush();
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
  ensureConsumer(name: StreamSubjectName, opts: DurableOptions): Promise<string> {
    return ensureDurable(this, name, opts);
  }

  /**
   * Consumes a JetStream subject through a durable consumer shared by all instances.
   * Malformed messages are terminated (with an `error` event for their request); a handler
   * that throws gets the message redelivered with backoff, up to `maxDeliver`.
   */
  consume<N extends StreamSubjectName>(
    name: N,
    handler: (message: Message<DataOf<N>>, ctx: MessageContext) => Promise<void>,
    opts: ConsumeOptions,
  ): Promise<RunningConsumer> {
    return consume(this, name, handler, opts);
  }

  /** A malformed message that still names its request ends that request with an `error` event. */
  reportMalformed(raw: unknown, detail: string): Promise<void> {
    return reportMalformed(this, raw, detail);
  }

  /**
   * Follows the events of one request: the stored ones first (unless `fresh`: a request being
   * submitted now), then live through the bus's one subscription, ending after its `complete` or
   * `error`; `afterSeq` resumes after an SSE `Last-Event-ID`. Every event is handed out once, in
   * stream order, across reconnects and a cluster's failovers (see follow.ts).
   */
  follow(
    requestId: string,
    opts: { afterSeq?: number | undefined; fresh?: boolean } = {},
  ): Promise<Following> {
    return follow(this, requestId, opts);
  }

  /** How many follows of this bus are running (each a client waiting on a request's events). */
  followCount(): number {
    return liveEventsOf(this).size;
  }

  /** The last stored event of a request, or null when the request has no events. */
  lastEvent(requestId: string): Promise<FollowedEvent | null> {
    return lastEvent(this, requestId);
  }

  /**
   * Drains the connection: subscriptions stop taking messages, what they took is handled, what
   * was published is flushed, then it closes. Safe to call more than once.
   */
  close(): Promise<void> {
    this.closing ??= this.nc.isClosed() ? Promise.resolve() : this.nc.drain();
    return this.closing;
  }
}
