import type { z } from 'zod';
import { type AgentEvent, AgentEventSchema } from '../events.ts';
import { defineSubject } from '../subject.ts';

// The union built from the payload map is typed wider than AgentEvent; this is the same schema, typed exactly.
const eventSchema = AgentEventSchema as unknown as z.ZodType<AgentEvent>;

export const requestEvents = defineSubject({
  kind: 'stream',
  stream: 'events',
  subject: 'events.{requestId}',
  schema: eventSchema,
  description: 'Every event of one request, in causal order; followed by the gateway, stored by the logger.',
});

/**
 * The message that ends a request: the one holding its `complete` or `error` (with any events sent
 * together before it). It is on a subject of its own within the same stream, so a consumer that
 * needs only how requests end (the router's outcomes) reads one message per request; followers and
 * the logger read both subjects.
 */
export const requestEnded = defineSubject({
  kind: 'stream',
  stream: 'events',
  subject: 'events.{requestId}.end',
  schema: eventSchema,
  description: "The message holding a request's `complete` or `error` (the end of its events).",
});

/**
 * Events one message on {@link requestEvents} may carry. A message is one event's envelope or an
 * array of up to this many, of one request, in order: a service that has several events at once
 * (the router's routing steps, the agent's finished answer) sends them together, so the stream,
 * its consumers and the database handle one message instead of many.
 */
export const EVENTS_PER_MESSAGE = 100;

/**
 * An event's sequence (the SSE `id`, `request_events.seq`): its message's stream sequence times
 * {@link EVENTS_PER_MESSAGE}, plus its place in the message. It increases along a request's events.
 */
export const eventSeq = (streamSeq: number, index: number): number => streamSeq * EVENTS_PER_MESSAGE + index;

/** The stream sequence of the message that carried the event with sequence `seq`. */
export const streamSeqOf = (seq: number): number => Math.floor(seq / EVENTS_PER_MESSAGE);
