import { z } from 'zod';
import { PERSON_ROLES, type PersonRole } from './approval-policy.ts';

/** Names of the services that emit messages. */
export const ServiceNameSchema = z.enum([
  'gateway',
  'router',
  'agent',
  'validator',
  'mcp-executor',
  'logger',
  'messaging',
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

/** How a person reached munim: the HTTP API, the `/mcp` tool, or a messaging channel. */
export const ActorViaSchema = z.enum(['api', 'mcp', 'messaging']);
export type ActorVia = z.infer<typeof ActorViaSchema>;

/**
 * The person a request acts as, carried by every message of the request so each step (routing,
 * the agent's proposal, validation, execution, the stored events) knows who asked.
 */
export const ActorSchema = z.object({
  /** The user (`users.id`, a JWT's `sub`, a `GATEWAY_API_KEYS` entry's user); null: the tenant's owner, no user named. */
  userId: IdSchema.nullable(),
  /** The user's roles for the request's entity; a person with none of these may only read. */
  roles: z.array(z.enum(PERSON_ROLES)).max(PERSON_ROLES.length),
  via: ActorViaSchema,
  /**
   * The credential is a program's (an API key issued as `program`): like every `/mcp` caller, it
   * never confirms or approves its own writes unless it holds the `automation` role.
   */
  program: z.literal(true).optional(),
});
export type Actor = z.infer<typeof ActorSchema>;

/** Whether the actor is a program that may not confirm or approve its own writes: its writes wait for a person. */
export const programWithoutAutomation = (actor: Actor | undefined): boolean =>
  actor !== undefined &&
  (actor.via === 'mcp' || actor.program === true) &&
  !actor.roles.includes('automation');

/** The roles that may propose a write: a viewer only reads, an approver approves, an admin administers. */
export const WRITE_ROLES = ['maker', 'owner', 'automation'] as const satisfies readonly PersonRole[];

/** Whether an actor may propose a write; a request that carries no actor is its tenant's owner's. */
export const mayProposeWrites = (actor: Actor | undefined): boolean =>
  actor === undefined || actor.roles.some((r) => (WRITE_ROLES as readonly string[]).includes(r));

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
  /** Who asked; absent on messages of no request, and on messages sent before actors were carried. */
  actor: ActorSchema.optional(),
});
export type Envelope = z.infer<typeof EnvelopeSchema>;

/**
 * The envelope fields a publisher supplies; `id`, `service` and `ts` are filled by the bus, which
 * copies the scope's `actor` into every message it publishes for it.
 */
export type RequestScope = Pick<Envelope, 'requestId' | 'conversationId' | 'entityId' | 'orgId' | 'actor'>;

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
