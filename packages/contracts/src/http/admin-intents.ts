import { z } from 'zod';
import { changeSchema, changesSomething } from './change.ts';

/** An intent's id: 1–100 lowercase letters, digits, `_`, `.` or `-`. */
export const IntentIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]{0,99}$/, 'must be 1–100 lowercase letters, digits, _ . or -');

/** One step of an intent's resolution flow: a tool of the live registry and its arguments. */
export const FlowStepSchema = z
  .object({
    tool: z.string().min(1).max(128),
    args: z.record(z.string(), z.unknown()).default({}),
    description: z.string().max(300).optional(),
    purpose: z.string().max(300).optional(),
  })
  .strict();

/** An intent as an administrator (or the LLM) writes it; body of `POST /v1/admin/intents`. */
export const IntentInputSchema = z
  .object({
    id: IntentIdSchema.optional(),
    name: z.string().trim().min(1).max(100),
    moduleId: z.string().min(1).max(100).nullable().optional(),
    description: z.string().max(2000).nullable().optional(),
    trainingPhrases: z.array(z.string().trim().min(2).max(300)).min(1).max(100),
    entities: z
      .array(
        z
          .object({
            name: z.string().min(1).max(100),
            type: z.string().min(1).max(50),
            required: z.boolean().optional(),
          })
          .strict(),
      )
      .max(20)
      .default([]),
    resolutionFlow: z.array(FlowStepSchema).min(1).max(10),
    responseFormat: z.string().min(1).max(40).default('table'),
    isActive: z.boolean().default(false),
  })
  .strict();
export type IntentInput = z.infer<typeof IntentInputSchema>;

/** A change to an intent (`PATCH /v1/admin/intents/:id`): any field but its id, at least one. */
export const IntentUpdateSchema = changeSchema(IntentInputSchema.omit({ id: true }))
  .strict()
  .refine(changesSomething, { message: 'must change at least one field' });

/** Path of `/v1/admin/intents/:id…`. */
export const IntentParamsSchema = z.object({ id: IntentIdSchema }).strict();

/** `GET /v1/admin/intents?active=`. */
export const IntentListQuerySchema = z.object({ active: z.enum(['true', 'false']).optional() }).strict();

/** Path of `/v1/admin/suggested-intents/:id/…`. */
export const SuggestedIntentParamsSchema = z.object({ id: z.coerce.number().int().positive() }).strict();

/** `GET /v1/admin/suggested-intents?status=` (default the pending ones). */
export const SuggestedIntentListQuerySchema = z
  .object({ status: z.enum(['pending', 'approved', 'rejected']).default('pending') })
  .strict();

/** Body of an approval: refinements of the suggested intent (an active intent by default). */
export const SuggestedIntentApproveSchema = changeSchema(IntentInputSchema).strict();

/** Most intents one generation may draft. */
export const MAX_GENERATED_INTENTS = 10;

/** Body of `POST /v1/admin/intents/generate`. */
export const GenerateRequestSchema = z
  .object({
    description: z.string().trim().min(10).max(4000),
    count: z.number().int().min(1).max(MAX_GENERATED_INTENTS).default(1),
  })
  .strict();
