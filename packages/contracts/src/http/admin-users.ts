import { z } from 'zod';
import { PERSON_ROLES } from '../approval-policy.ts';
import { IdSchema } from '../envelope.ts';

/** A role a user holds for one entity of its org. */
export const EntityRoleSchema = z
  .object({
    entityId: IdSchema.describe('the entity the role is for'),
    role: z.enum(PERSON_ROLES).describe('viewer, maker, approver, admin, owner or automation (for programs)'),
  })
  .strict();

/** The org an admin request is about (`?orgId=`). */
export const OrgQuerySchema = z
  .object({ orgId: IdSchema.describe('the organisation whose users these are') })
  .strict();

/** A new user of an org, with its roles. */
export const UserInputSchema = z
  .object({
    orgId: IdSchema,
    name: z.string().trim().min(1).max(200),
    email: z.email().max(320).optional(),
    phone: z
      .string()
      .regex(/^\+[1-9][0-9]{6,14}$/, {
        error: 'must be an international number in E.164 form, e.g. +919812345678',
      })
      .optional()
      .describe('E.164; the number messaging reaches the user on'),
    roles: z.array(EntityRoleSchema).max(200).default([]),
  })
  .strict();

/** A user's roles, replaced as a whole. */
export const UserRolesInputSchema = z
  .object({ orgId: IdSchema, roles: z.array(EntityRoleSchema).max(200) })
  .strict();

/** What a key is for: a person's own use (the default), or a program's (its writes wait for a person). */
export const KeyKindSchema = z.enum(['person', 'program']);

/** A new API key of a user; its label helps the person tell keys apart. */
export const ApiKeyInputSchema = z
  .object({
    orgId: IdSchema,
    label: z.string().trim().min(1).max(100).optional(),
    /**
     * `program`: a program holds it, and it never confirms or approves its own writes unless the
     * user holds the `automation` role; they wait for a person. Default `person`.
     */
    kind: KeyKindSchema.default('person'),
  })
  .strict();

/** Path of `/v1/admin/users/:userId…`. */
export const UserParamsSchema = z
  .object({ userId: z.uuid({ error: 'must be a user id (a UUID)' }) })
  .strict();

/** Path of `/v1/admin/users/:userId/keys/:keyId`. */
export const UserKeyParamsSchema = UserParamsSchema.extend({
  keyId: z.uuid({ error: 'must be a key id (a UUID)' }),
}).strict();
