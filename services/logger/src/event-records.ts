import { isUtf8 } from 'node:buffer';
import type { AgentEvent, Message } from '@munim/contracts';

/** Where an event came from on the stream. */
export interface EventOrigin {
  /** JetStream stream sequence. */
  seq: number;
  traceparent: string | undefined;
}

/** One event to store, with where it came from. */
export interface IncomingEvent extends EventOrigin {
  message: Message<AgentEvent>;
  /**
   * The message's bytes as they came off the stream (it passed the schema, which has no
   * transforms): stored as published without writing it out again. `message` is what gets folded.
   */
  json?: Uint8Array | undefined;
}

/** How JSON.stringify writes a NUL or a lone surrogate; any other text is stored as it is. */
const UNSTORABLE = /\\u0000|\\ud[89a-f]/i;

/**
 * PostgreSQL refuses NUL in text and jsonb, and lone surrogates in jsonb: a tool result carrying
 * either would otherwise fail on every redelivery and never be stored. The copy is cleaned.
 */
function scrubbed<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) =>
      typeof v === 'string' ? v.toWellFormed().replaceAll('\u0000', '\uFFFD') : v,
    ),
  ) as T;
}

/** The UTF-8 JSON of one event's message: the bytes it arrived as where they are valid UTF-8. */
function messageBytes(e: IncomingEvent): Buffer {
  const { json } = e;
  if (json && isUtf8(json)) return Buffer.from(json.buffer, json.byteOffset, json.byteLength);
  return Buffer.from(JSON.stringify(e.message));
}

/** jsonb's binary input: a version byte (1), then the JSON text. */
const JSONB_BINARY_VERSION = 1;

/** `\u`: JSON.stringify writes it only for control characters and lone surrogates. */
const ESCAPE = Buffer.from('\\u');

/** Whether a message's JSON holds text PostgreSQL refuses (a NUL or a lone surrogate). */
function unstorable(bytes: Buffer): boolean {
  // The escapes are ASCII: a byte-wise (latin1) view of UTF-8 shows them as they are.
  return bytes.includes(ESCAPE) && UNSTORABLE.test(bytes.toString('latin1'));
}

/**
 * The events as one jsonb array of `{ seq, m }` (m: the message), as PostgreSQL reads it with
 * `jsonb_to_recordset`, in jsonb's binary form: the messages' bytes are copied in as they arrived,
 * never decoded and encoded again. An event whose text PostgreSQL would refuse is scrubbed first.
 */
export function eventRecords(events: IncomingEvent[]): Buffer {
  const heads: string[] = [];
  const bodies: Buffer[] = [];
  let length = 3; // the version byte, '[' and ']'
  for (const [i, e] of events.entries()) {
    let body = messageBytes(e);
    if (unstorable(body)) {
      events[i] = { seq: e.seq, traceparent: e.traceparent, message: scrubbed(e.message) };
      body = messageBytes(events[i]!);
    }
    const head = `${i === 0 ? '' : ','}{"seq":${e.seq},"m":`;
    heads.push(head);
    bodies.push(body);
    length += head.length + body.length + 1;
  }
  const out = Buffer.allocUnsafe(length);
  out[0] = JSONB_BINARY_VERSION;
  out[1] = 0x5b; // [
  let at = 2;
  for (const [i, head] of heads.entries()) {
    at += out.write(head, at, 'latin1');
    const body = bodies[i]!;
    out.set(body, at);
    at += body.length;
    out[at++] = 0x7d; // }
  }
  out[at] = 0x5d; // ]
  return out;
}
