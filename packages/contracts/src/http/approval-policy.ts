import { z } from 'zod';
import { ApprovalPolicySchema } from '../approval-policy.ts';

/**
 * `/v1/admin/approval-policy?orgId=`: an org's approval policy. `PUT` takes the policy itself as
 * the body (`{ rules, limits }`), checked as the file is (400 naming the entry); `GET` and `PUT`
 * answer the policy in force and where it comes from.
 */

/** The body of `PUT`: a JSON object, checked against the policy schema by the handler. */
export const ApprovalPolicyInputSchema = z.record(z.string(), z.unknown());

/** The policy in force for an org. */
export const EffectiveApprovalPolicySchema = z.object({
  orgId: z.string(),
  /** `org`: its own (set here); `file`: the operator's APPROVAL_POLICY_FILE; `default`: none. */
  source: z.enum(['org', 'file', 'default']),
  /** Null for `default`: every write is confirmed by the person who asked. */
  policy: ApprovalPolicySchema.nullable(),
  /** Who set the org's own policy, and when. */
  updatedBy: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type EffectiveApprovalPolicy = z.infer<typeof EffectiveApprovalPolicySchema>;
