import { z } from 'zod';
import { IdSchema } from '../envelope.ts';
import { changeSchema, changesSomething } from './change.ts';

/** Path of `/v1/admin/entities/:entityId/suggestions`. */
export const SuggestionEntityParamsSchema = z.object({ entityId: IdSchema }).strict();

/** Path of `/v1/admin/entities/:entityId/suggestions/:id`. */
export const SuggestionParamsSchema = z
  .object({ entityId: IdSchema, id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) })
  .strict();

/** `?orgId=`: suggestions are a tenant's, entity and org together (two orgs may share an entity id). */
export const SuggestionOrgQuerySchema = z.object({ orgId: IdSchema }).strict();

/** Body of `POST /v1/admin/entities/:entityId/suggestions?orgId=`. */
export const SuggestionCreateSchema = z
  .object({
    text: z.string().trim().min(1).max(200),
    sortOrder: z.number().int().min(-1_000_000).max(1_000_000).default(0),
    isActive: z.boolean().default(true),
  })
  .strict();

/** Body of `PATCH /v1/admin/entities/:entityId/suggestions/:id?orgId=`: at least one field. */
export const SuggestionUpdateSchema = changeSchema(SuggestionCreateSchema)
  .strict()
  .refine(changesSomething, { message: 'must change at least one field' });
