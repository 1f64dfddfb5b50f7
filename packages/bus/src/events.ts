import {
  type AgentEvent,
  EVENTS_PER_MESSAGE,
  eventSeq,
  type Message,
  messageSchema,
  requestEvents,
} from '@munim/contracts';
import { describeIssues } from './errors.ts';

const eventMessage = messageSchema(requestEvents.schema);

/** One event read from the events stream, with its sequence (see `eventSeq`). */
export interface SequencedEvent {
  seq: number;
  message: Message<AgentEvent>;
}

export type ParsedEvents =
  | { ok: true; events: SequencedEvent[] }
  | {
      ok: false;
      /** What the message says, for `reportMalformed` (a batch's first envelope names its request). */
      raw: unknown;
      detail: string;
    };

/**
 * The events of one message of the events stream: one envelope, or an array of up to
 * {@link EVENTS_PER_MESSAGE} envelopes of one request. Any envelope that fails its schema, or
 * an array that mixes requests, makes the whole message malformed: nothing of it is taken.
 */
export function eventsOf(streamSeq: number, raw: unknown): ParsedEvents {
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length === 0 || list.length > EVENTS_PER_MESSAGE)
    return {
      ok: false,
      raw: list[0],
      detail: `a message carries 1 to ${EVENTS_PER_MESSAGE} events, this one ${list.length}`,
    };
  const events: SequencedEvent[] = [];
  for (const [index, item] of list.entries()) {
    const parsed = eventMessage.safeParse(item);
    if (!parsed.success) {
      const where = Array.isArray(raw) ? `event ${index + 1} of ${list.length}: ` : '';
      return { ok: false, raw: list[0], detail: `${where}${describeIssues(parsed.error.issues)}` };
    }
    const message = parsed.data as Message<AgentEvent>;
    if (index > 0 && message.requestId !== events[0]!.message.requestId)
      return {
        ok: false,
        raw: list[0],
        detail: `event ${index + 1} of ${list.length} is of another request`,
      };
    events.push({ seq: eventSeq(streamSeq, index), message });
  }
  return { ok: true, events };
}
