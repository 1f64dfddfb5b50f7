import { z } from 'zod';
import { defineSubject } from '../subject.ts';

/** Which intents an administrator created, changed, activated or deactivated. */
export const IntentsChangedSchema = z.object({
  /** `created`, `updated`, `activated`, `deactivated`, `approved`, … */
  reason: z.string().min(1).max(100),
  intentIds: z.array(z.string().min(1).max(200)).max(100),
});
export type IntentsChanged = z.infer<typeof IntentsChangedSchema>;

export const intentsChanged = defineSubject({
  kind: 'broadcast',
  subject: 'broadcast.intents.changed',
  schema: IntentsChangedSchema,
  description:
    'The intents table changed; every router instance reloads its intents now instead of at its next refresh. ' +
    'Published by the gateway on core NATS after an admin change.',
});
