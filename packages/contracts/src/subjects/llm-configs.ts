import { z } from 'zod';
import { defineSubject } from '../subject.ts';

/** Which model configuration an administrator created, changed or made the default. */
export const LlmConfigChangedSchema = z.object({
  /** `created`, `updated`, `default`, … */
  reason: z.string().min(1).max(100),
  configId: z.number().int().positive(),
});
export type LlmConfigChanged = z.infer<typeof LlmConfigChangedSchema>;

export const llmConfigChanged = defineSubject({
  kind: 'broadcast',
  subject: 'broadcast.llm-configs.changed',
  schema: LlmConfigChangedSchema,
  description:
    'The llm_configs table changed; every agent instance reloads its default model now, without a restart. ' +
    'Published by the gateway on core NATS after an admin change; it never carries a key.',
});
