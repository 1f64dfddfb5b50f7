import { z } from 'zod';
import type { PERSON_ROLES } from '../approval-policy.ts';
import { CardDetailSchema } from '../confirmation-card.ts';
import { IdSchema } from '../envelope.ts';
import { WRITE_CLASSES } from '../write-class.ts';

// HTTP shapes of the approvals inbox, decisions and standing approvals.

const TenantFields = {
  entityId: IdSchema.optional().describe(
    'The entity; required without auth, must be the credential’s with it.',
  ),
  orgId: IdSchema.optional().describe(
    'The organisation; required without auth, must be the credential’s with it.',
  ),
};

/** `GET /v1/approvals?status=`: what waits for the caller, or what was decided. */
export const ApprovalsQuerySchema = z
  .object({
    ...TenantFields,
    status: z
      .enum(['pending', 'decided', 'all'])
      .default('pending')
      .describe(
        '`pending` (default): what the caller may decide now; `decided`: approved, rejected or expired.',
      ),
  })
  .strict();

/** One person's decision on a write. */
export const ApprovalVoteSchema = z.object({
  userId: z.string().nullable(),
  decision: z.enum(['approve', 'reject']),
  reason: z.string().nullable(),
  at: z.string(),
  /** The fields this person changed, before and after. */
  edited: z
    .object({ before: z.record(z.string(), z.unknown()), after: z.record(z.string(), z.unknown()) })
    .optional(),
});

/** A write that waits (or waited) for approval. */
export const ApprovalItemSchema = z.object({
  approvalId: z.string(),
  tool: z.string(),
  /** The change, in words. */
  summary: z.string(),
  /** What the card shows: the action, record, party, amount and date, in words. */
  details: z.array(CardDetailSchema),
  args: z.record(z.string(), z.unknown()),
  /** The user who asked; null: the tenant's owner. */
  requestedBy: z.string().nullable(),
  requestedAt: z.string().nullable(),
  expiresAt: z.string(),
  status: z.enum(['awaiting_approval', 'approved', 'executed', 'failed', 'rejected', 'expired']),
  approversNeeded: z.number().int(),
  requiredRoles: z.array(z.string()),
  /** Why it needs approval, in words. */
  reason: z.string().nullable(),
  decisions: z.array(ApprovalVoteSchema),
  conversationId: z.string(),
});
export type ApprovalItem = z.infer<typeof ApprovalItemSchema>;

export const ApprovalListSchema = z.object({ approvals: z.array(ApprovalItemSchema) });

/** Path of `/v1/approvals/:approvalId`. */
export const ApprovalParamsSchema = z.object({ approvalId: z.string().min(1).max(128) }).strict();

/** `POST /v1/approvals/:approvalId`: a decision, optionally editing fields of the call first. */
export const ApprovalDecisionBodySchema = z
  .object({
    ...TenantFields,
    decision: z.enum(['approve', 'reject']),
    reason: z.string().trim().max(1000).optional(),
    args: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'Fields of the call to change before approving; validated and checked again, both versions recorded.',
      ),
  })
  .strict();

/** What a decision came to. */
export const ApprovalOutcomeSchema = z.object({
  status: z.enum(['executed', 'failed', 'rejected', 'awaiting_approval']),
  result: z.unknown().optional(),
  error: z.string().optional(),
  /** The answer the maker's conversation shows. */
  response: z.string().optional(),
  requestId: z.string(),
});

/** `POST /v1/approvals/standing`: writes within this scope need only their maker's confirmation. */
export const StandingGrantInputSchema = z
  .object({
    ...TenantFields,
    class: z.enum(WRITE_CLASSES).or(z.literal('any')).optional().describe('The class of writes it covers.'),
    tool: z.string().min(1).max(200).optional().describe('A tool name or glob (`*`, `?`) it covers.'),
    party: z.string().trim().min(1).max(200).optional().describe('Only writes to this party.'),
    maxAmount: z
      .number()
      .positive()
      .optional()
      .describe('The most one write may move, in the business’s currency.'),
    maxTotal: z.number().positive().optional().describe('The most all its writes together may move.'),
    uses: z.number().int().min(1).max(10_000).describe('How many writes it may let through.'),
    expiresAt: z.iso.datetime({ offset: true }).describe('When it stops applying.'),
  })
  .strict()
  .refine((g) => g.class !== undefined || g.tool !== undefined, {
    error: 'name the writes it covers: a class or a tool',
    path: ['class'],
  });

export const StandingGrantSchema = z.object({
  grantId: z.string(),
  class: z.string().nullable(),
  tool: z.string().nullable(),
  party: z.string().nullable(),
  maxAmount: z.number().nullable(),
  maxTotal: z.number().nullable(),
  uses: z.number().int(),
  used: z.number().int(),
  usedTotal: z.number(),
  expiresAt: z.string(),
  grantedBy: z.string().nullable(),
  status: z.enum(['active', 'revoked', 'exhausted', 'expired']),
});
export type StandingGrant = z.infer<typeof StandingGrantSchema>;

export const StandingGrantListSchema = z.object({ grants: z.array(StandingGrantSchema) });

export const StandingGrantParamsSchema = z
  .object({ grantId: z.uuid({ error: 'must be a grant id' }) })
  .strict();

/** The roles that may decide on approvals and grant standing ones (the policy narrows who decides each write). */
export const APPROVER_ROLES = [
  'approver',
  'owner',
] as const satisfies readonly (typeof PERSON_ROLES)[number][];
