import { randomFillSync } from 'node:crypto';
import { type MsgHdrs, headers as natsHeaders } from '@nats-io/nats-core';
import {
  type Context,
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

// Ids are made on every hop: one system call per 4 KiB of randomness, not one per id.
const pool = Buffer.alloc(4096);
let offset = pool.length;

function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  offset += bytes;
  return pool.toString('hex', offset - bytes, offset);
}

/** A new W3C `traceparent` starting a trace (the gateway does this once per query). */
export function newTraceparent(): string {
  return `00-${randomHex(16)}-${randomHex(8)}-01`;
}

/** The same trace with a new parent span id, for the next hop. */
export function childTraceparent(parent: string | undefined): string {
  const match = parent ? TRACEPARENT.exec(parent) : null;
  if (!match) return newTraceparent();
  return `00-${match[1]}-${randomHex(8)}-${match[3]}`;
}

/** The trace id of a `traceparent`, if it is well formed. */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  return traceparent ? TRACEPARENT.exec(traceparent)?.[1] : undefined;
}

/** The W3C `traceparent` of a span, or undefined for a no-op span (telemetry off). */
export function traceparentOf(span: Span | undefined): string | undefined {
  const sc = span?.spanContext();
  if (!sc || !trace.isSpanContextValid(sc)) return undefined;
  return `00-${sc.traceId}-${sc.spanId}-0${sc.traceFlags.toString(16)}`;
}

const tracer = trace.getTracer('@munim/bus');

/** One hop's span, its context, and the `traceparent` it passes on in the NATS headers. */
export interface Hop {
  span: Span;
  ctx: Context;
  traceparent: string;
  headers: MsgHdrs;
}

/**
 * Starts a span for one hop. Its parent is the given `traceparent` (the message being handled) or
 * the active context; its own `traceparent` travels in the NATS headers. With telemetry off the
 * span is a no-op and a child `traceparent` is derived by hand, so one query is still one trace.
 */
export function startHop(
  name: string,
  kind: SpanKind,
  parent: string | undefined,
  attributes: Record<string, string>,
): Hop {
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

/** An event's publish: a span event on the active span, and the caller's trace in the headers. */
export function eventHop(traceparent: string | undefined, type: string): Pick<Hop, 'span' | 'headers'> {
  const active = trace.getActiveSpan();
  active?.addEvent('munim.event', { 'munim.event_type': type });
  const parent = traceparentOf(active) ?? traceparent;
  const headers = natsHeaders();
  headers.set('traceparent', parent ?? newTraceparent());
  return { span: trace.wrapSpanContext(INVALID_SPAN_CONTEXT), headers };
}

/** A hop without a span of its own: the handler still passes the message's trace on. */
export function untracedHop(traceparent: string | undefined): Omit<Hop, 'headers'> {
  const span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
  return { span, ctx: context.active(), traceparent: traceparent ?? newTraceparent() };
}

/** Marks a span failed with the error. */
export function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}
