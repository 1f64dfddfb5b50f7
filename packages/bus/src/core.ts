import {
  type AgentEvent,
  type Catalog,
  type Message,
  type RequestScope,
  type RequestSubjectName,
  type ServiceName,
  STREAMS,
  type StreamKey,
} from '@munim/contracts';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';

// The bus's leaf: what its parts (streams, consumers, request/reply, follow) need of the facade.
// It imports no module of the package, so the facade imports the parts and never the reverse.

/** The data of a catalog subject's messages. */
export type DataOf<N extends keyof Catalog> = z.infer<Catalog[N]['schema']>;
/** The data of a request subject's replies. */
export type ReplyOf<N extends RequestSubjectName> = z.infer<Catalog[N]['reply']>;

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
  /** JetStream stream sequence (0 for request/reply); for an event, its sequence (see `eventSeq`). */
  seq: number;
}

export interface PublishOptions {
  params?: Record<string, string>;
  /** JetStream dedupe id; defaults to the envelope id. */
  msgID?: string;
  traceparent?: string | undefined;
}

/**
 * How munim's streams are stored: every instance of every service reads the same settings from
 * its environment and applies them at start. Unset fields keep the defaults of `streams.ts`.
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

/** The concrete name of a stream: `<PREFIX>_<NAME>`. */
export function streamNameOf(prefix: string, key: StreamKey): string {
  return `${prefix.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}_${STREAMS[key].name}`;
}

/** The bus as its parts use it: its connection, names, schemas and envelopes (the `Bus` class is one). */
export interface BusCore {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly prefix: string;
  readonly service: ServiceName;
  readonly log: BusLogger | undefined;
  /** The stream settings applied by default; durable consumers get the same replicas. */
  readonly streams: StreamSettings;
  /** The concrete subject of a catalog entry. */
  subject(name: keyof Catalog, params?: Record<string, string>): string;
  /** The concrete name of a stream. */
  streamName(key: StreamKey): string;
  /** The envelope schema of a subject. */
  schemaFor(name: keyof Catalog): z.ZodType;
  /** A message in its envelope, parsed with the subject's schema. */
  envelope<N extends keyof Catalog>(name: N, scope: RequestScope, data: DataOf<N>): Message<DataOf<N>>;
  /** Emits one event of a request (see `Bus.emit`). */
  emit(
    scope: RequestScope,
    event: AgentEvent,
    traceparent?: string,
    msgID?: string,
  ): Promise<{ seq: number; duplicate: boolean; message: Message<AgentEvent> }>;
}
