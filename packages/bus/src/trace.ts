import { randomBytes } from 'node:crypto';
import { type Span, trace } from '@opentelemetry/api';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A new W3C `traceparent` starting a trace (the gateway does this once per query). */
export function newTraceparent(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}

/** The same trace with a new parent span id, for the next hop. */
export function childTraceparent(parent: string | undefined): string {
  const match = parent ? TRACEPARENT.exec(parent) : null;
  if (!match) return newTraceparent();
  return `00-${match[1]}-${randomBytes(8).toString('hex')}-${match[3]}`;
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
