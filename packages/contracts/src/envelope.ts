import { z } from 'zod';

/** Names of the services that emit messages. */
export const ServiceNameSchema = z.enum([
  'gateway',
  'router',
  'agent',
  'validator',
  'mcp-executor',
  'logger',
]);
export type ServiceName = z.infer<typeof ServiceNameSchema>;

/** Identifiers are opaque, bounded, printable strings (they travel in subjects and SQL). */
export const IdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.:@-]+$/, 'only letters, digits and _ . : @ - are allowed');

/** Request ids appear inside NATS subjects, so they are restricted to subject-safe characters without dots. */
export const RequestIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'only letters, digits, _ and - are allowed');

/** The tenant and request a message belongs to: carried by every message on the bus. */
export const EnvelopeSchema = z.object({
  /** Unique id of this message; JetStream dedupes on it (`msgID`) and the logger keys events on it. */
  id: z.string().min(1).max(128),
  requestId: RequestIdSchema,
  conversationId: IdSchema,
  entityId: IdSchema,
  orgId: IdSchema,
  service: ServiceNameSchema,
  /** ISO-8601 time the message was created. */
  ts: z.iso.datetime(),
});
export type Envelope = z.infer<typeof EnvelopeSchema>;

/** The envelope fields a publisher supplies; `id`, `service` and `ts` are filled by the bus. */
export type RequestScope = Pick<Envelope, 'requestId' | 'conversationId' | 'entityId' | 'orgId'>;

/** The message schema for a payload: the envelope plus `data`. */
export function messageSchema<T extends z.ZodType>(data: T) {
  return EnvelopeSchema.extend({ data });
}
export type Message<T> = Envelope & { data: T };

/** The scope of messages that belong to no request (registry and intent notices, health pings). */
export const SYSTEM_SCOPE: RequestScope = {
  requestId: 'system',
  conversationId: 'system',
  entityId: 'system',
  orgId: 'system',
};
