import type { z } from 'zod';

/** JetStream streams; names and subjects are relative to the deployment's subject prefix. */
export const STREAMS = {
  /** Work that must not be lost: each message is consumed once by one instance of its service. */
  work: { name: 'WORK', subjects: ['work.>'], retention: 'workqueue' },
  /**
   * Every event of every request, kept for replay and for the logger. Each message is also
   * republished, once stored, on `live.<its subject>` with its stream sequence in the headers:
   * followers subscribe to that instead of making a consumer each.
   */
  events: {
    name: 'EVENTS',
    subjects: ['events.>'],
    retention: 'limits',
    republish: { src: 'events.>', dest: 'live.events.>' },
  },
} as const;
export type StreamKey = keyof typeof STREAMS;

interface SubjectBase<S extends z.ZodType> {
  /** Subject relative to the prefix; `{name}` segments are filled from parameters. */
  subject: string;
  /** Schema of the message's `data`. */
  schema: S;
  /** What the subject carries, for readers of the catalog. */
  description: string;
}

/** A subject whose messages are persisted in a JetStream stream. */
export interface StreamSubject<S extends z.ZodType = z.ZodType> extends SubjectBase<S> {
  kind: 'stream';
  stream: StreamKey;
}

/** A request/reply subject served by a queue group. */
export interface RequestSubject<S extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType>
  extends SubjectBase<S> {
  kind: 'request';
  reply: R;
  /** Queue group of the serving instances. */
  queue: string;
}

/**
 * A core NATS subject every instance of every listening service receives (no queue group, not
 * persisted): notices whose loss only delays a refresh that also happens on a timer.
 */
export interface BroadcastSubject<S extends z.ZodType = z.ZodType> extends SubjectBase<S> {
  kind: 'broadcast';
}

export type SubjectDefinition = StreamSubject | RequestSubject | BroadcastSubject;

/** A subject and its schema, as one value (the only way subjects come into being). */
export function defineSubject<const D extends SubjectDefinition>(definition: D): D {
  return definition;
}

/** Fills `{name}` segments of a subject template and prefixes it. */
export function resolveSubject(
  prefix: string,
  template: string,
  params: Record<string, string> = {},
): string {
  const filled = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`subject ${template}: missing parameter ${name}`);
    if (!/^[A-Za-z0-9_-]+$/.test(value)) throw new Error(`subject ${template}: unsafe value for ${name}`);
    return value;
  });
  return `${prefix}.${filled}`;
}
