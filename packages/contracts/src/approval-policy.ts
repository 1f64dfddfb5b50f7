import { z } from 'zod';
import { WRITE_CLASSES, type WriteClass } from './write-class.ts';

/** The roles a person may hold for an entity. */
export const PERSON_ROLES = ['viewer', 'maker', 'approver', 'admin', 'owner', 'automation'] as const;
export type PersonRole = (typeof PERSON_ROLES)[number];

const RoleSchema = z.enum(PERSON_ROLES);
const Amount = z.number().finite().nonnegative();

/** Which writes a rule is about: a class or a tool glob, optionally from an amount or for a party. */
export const ApprovalMatchSchema = z
  .object({
    class: z.enum([...WRITE_CLASSES, 'any']).optional(),
    tool: z.string().min(1).optional(),
    minAmount: Amount.optional(),
    party: z.string().min(1).optional(),
  })
  .strict()
  .refine((m) => m.class !== undefined || m.tool !== undefined, {
    message: 'a rule matches a class or a tool: give `class` or `tool`',
  });

/** One rule: the writes it matches need this many people other than the maker, of these roles. */
export const ApprovalRuleSchema = z
  .object({
    match: ApprovalMatchSchema,
    approvers: z.number().int().min(1).max(10),
    roles: z.array(RoleSchema).min(1),
  })
  .strict();

/**
 * An approval policy (`APPROVAL_POLICY_FILE`, or an org's through the admin API): the rules that
 * make a write wait for other people, and what each role may confirm alone.
 */
export const ApprovalPolicySchema = z
  .object({
    rules: z.array(ApprovalRuleSchema).default([]),
    limits: z.partialRecord(RoleSchema, z.object({ maxAmount: Amount }).strict()).default({}),
  })
  .strict();
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

/** A policy that cannot be used; the message names the entry. */
export class ApprovalPolicyError extends Error {
  override name = 'ApprovalPolicyError';
}

/** Parses a policy already read from JSON or YAML; a bad one is refused naming its entry. */
export function parseApprovalPolicy(value: unknown): ApprovalPolicy {
  const parsed = ApprovalPolicySchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue?.path.length
    ? issue.path
        .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
        .join('')
        .replace(/^\./, '')
    : 'the policy';
  throw new ApprovalPolicyError(`${at}: ${issue?.message ?? 'is not a policy'}`);
}

/** The write a decision is about. */
export interface WriteForApproval {
  tool: string;
  class: WriteClass;
  /** In the business's currency; undefined when the call names none that could be read. */
  amount?: number | undefined;
  /** The party, as the call names it. */
  party?: string | undefined;
}

/** Who else must approve a write before it runs. */
export interface ApprovalNeed {
  /** People other than the maker; 0: the maker's own confirmation is enough. */
  approvers: number;
  /** Roles any of whom may approve. */
  roles: PersonRole[];
  /** Why, in words. */
  reason: string;
}

const APPROVERS: PersonRole[] = ['approver', 'owner'];

const normal = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

function globMatches(glob: string, tool: string): boolean {
  const pattern = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 'i').test(tool);
}

/** Whether a rule matches; an amount that could not be read matches any minimum (fail closed). */
function matches(match: z.infer<typeof ApprovalMatchSchema>, write: WriteForApproval): boolean {
  if (match.class !== undefined && match.class !== 'any' && match.class !== write.class) return false;
  if (match.tool !== undefined && !globMatches(match.tool, write.tool)) return false;
  if (match.minAmount !== undefined && write.amount !== undefined && write.amount < match.minAmount)
    return false;
  if (match.party !== undefined && (write.party === undefined || normal(match.party) !== normal(write.party)))
    return false;
  return true;
}

/**
 * Who else must approve `write` when a person with `makerRoles` confirms it. The strictest rule
 * that matches decides; past what the maker's roles may confirm alone (the highest limit among
 * them; a role without a limit has none), one approver is needed at least. Without a policy, the
 * maker's confirmation is enough.
 */
export function approvalNeeded(
  policy: ApprovalPolicy | undefined,
  write: WriteForApproval,
  makerRoles: readonly PersonRole[],
): ApprovalNeed {
  if (!policy)
    return { approvers: 0, roles: [], reason: 'no approval policy: the person who asked confirms' };
  let need: ApprovalNeed = {
    approvers: 0,
    roles: [],
    reason: 'no rule matches and it is within the maker’s limit',
  };
  for (const [i, rule] of policy.rules.entries()) {
    if (!matches(rule.match, write)) continue;
    if (rule.approvers > need.approvers)
      need = {
        approvers: rule.approvers,
        roles: [...rule.roles],
        reason: `rule ${i + 1} of the approval policy`,
      };
  }
  const limited = makerRoles.filter((r) => r !== 'viewer');
  const limits = limited.map((r) => policy.limits[r]?.maxAmount);
  // A role without a limit confirms any amount alone; otherwise the highest limit counts.
  const limit =
    limits.length === 0 || limits.some((l) => l === undefined)
      ? undefined
      : Math.max(...(limits as number[]));
  if (limit !== undefined && need.approvers === 0 && (write.amount === undefined || write.amount > limit)) {
    need = {
      approvers: 1,
      roles: APPROVERS,
      reason:
        write.amount === undefined
          ? 'its amount could not be read, and the maker may confirm alone only up to a limit'
          : `it is over what the maker may confirm alone (${limit})`,
    };
  }
  return need;
}
