import { randomFillSync } from 'node:crypto';
import { type Span, trace } from '@opentelemetry/api';

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
