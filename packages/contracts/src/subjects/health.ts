import { z } from 'zod';
import { ServiceNameSchema } from '../envelope.ts';
import { defineSubject } from '../subject.ts';

export const HealthReplySchema = z.object({
  service: ServiceNameSchema,
  instanceId: z.string(),
  ok: z.boolean(),
  /** Dependencies of the service and whether each is reachable. */
  checks: z.record(z.string(), z.boolean()),
});
export type HealthReply = z.infer<typeof HealthReplySchema>;

export const healthPing = defineSubject({
  kind: 'request',
  subject: 'health.{service}',
  queue: 'health',
  schema: z.object({}),
  reply: HealthReplySchema,
  description: 'Readiness probe of one service; any one instance answers.',
});
