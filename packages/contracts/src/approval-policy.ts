import { z } from 'zod';
import { partyKey } from './party-key.ts';
import { WRITE_CLASSES, type WriteClass } from './write-class.ts';

/** The roles a person may hold for an entity. */
export const PERSON_ROLES = ['viewer', 'maker', 'approver', 'admin', 'owner', 'automation'] as const;
export type PersonRole = (typeof PERSON_ROLES)[number];

/** The roles that make writes and confirm them: their limits say what they confirm alone. */
const MAKING_ROLES: readonly PersonRole[] = ['maker', 'owner', 'automation'];
/** Who approves what no rule names: a write over the maker's limit. */
const DEFAULT_APPROVERS: readonly PersonRole[] = ['approver', 'owner'];

const CLASSES = [...WRITE_CLASSES, 'any'] as const;
const quoted = (input: unknown) => (typeof input === 'string' ? `"${input}"` : String(JSON.stringify(input)));
const RoleSchema = z.enum(PERSON_ROLES, {
  error: (issue) => `unknown role ${quoted(issue.input)}: one of ${PERSON_ROLES.join(', ')}`,
});
const Amount = z
  .number({ error: 'must be a number (an amount in the business’s currency)' })
  .finite()
  .nonnegative({ error: 'must not be negative' });

/** Glob of tool names: `*` any run of characters, `?` one. */
const ToolGlobSchema = z
  .string()
  .trim()
  .min(1, { error: 'must name a tool or a glob of tool names (`pay_*`)' })
  .max(200)
  .regex(/^[\w.*?:/-]+$/, {
    error: 'a tool name or glob holds letters, digits, _ . - : / and the wildcards * and ?',
  });

/** Which writes a rule is about: a class or a tool glob, optionally from an amount or for a party. */
export const ApprovalMatchSchema = z
  .object({
    class: z
      .enum(CLASSES, {
        error: (issue) => `unknown class ${quoted(issue.input)}: one of ${CLASSES.join(', ')}`,
      })
      .optional(),
    tool: ToolGlobSchema.optional(),
    /** From this amount up, in the business's currency. */
    minAmount: Amount.optional(),
    /** A party by name (or id), compared without case, punctuation or "Pvt Ltd"/"Private Limited". */
    party: z.string().trim().min(1).max(200).optional(),
  })
  .strict()
  .refine((m) => m.class !== undefined || m.tool !== undefined, {
    message: 'a rule matches a class or a tool: give `class` or `tool`',
  });
export type ApprovalMatch = z.infer<typeof ApprovalMatchSchema>;

/** One rule: the writes it matches need this many people other than the maker, of these roles. */
export const ApprovalRuleSchema = z
  .object({
    match: ApprovalMatchSchema,
    approvers: z
      .number({ error: 'must be a whole number of people from 1 to 10' })
      .int({ error: 'must be a whole number of people from 1 to 10' })
      .min(1, { error: 'must be at least 1 (a write no rule matches needs only the maker)' })
      .max(10, { error: 'must be at most 10' }),
    roles: z
      .array(RoleSchema.refine((r) => r !== 'viewer', { error: 'a viewer only reads and cannot approve' }))
      .min(1, { error: 'must name at least one role that may approve' }),
  })
  .strict();
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;

const LimitSchema = z.object({ maxAmount: Amount }).strict();
const LimitsSchema = z
  .record(z.string(), LimitSchema)
  .superRefine((limits, ctx) => {
    for (const role of Object.keys(limits))
      if (!(PERSON_ROLES as readonly string[]).includes(role))
        ctx.addIssue({
          code: 'custom',
          path: [role],
          message: `unknown role ${quoted(role)}: one of ${PERSON_ROLES.join(', ')}`,
        });
  })
  .transform((limits) => limits as Partial<Record<PersonRole, z.infer<typeof LimitSchema>>>);

/**
 * An approval policy (`APPROVAL_POLICY_FILE`, or an org's through the admin API): the rules that
 * make a write wait for other people, and per role the most it may confirm alone (maker, owner,
 * automation) or approve (approver, owner).
 */
export const ApprovalPolicySchema = z
  .object({
    rules: z.array(ApprovalRuleSchema).max(200).default([]),
    limits: LimitsSchema.default({}),
  })
  .strict();
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

/** A policy that cannot be used; the message names the entry (`rules[2].match.class: unknown class "paymnet" …`). */
export class ApprovalPolicyError extends Error {
  override name = 'ApprovalPolicyError';
}

/** A path of a parsed value as people write it: `rules[2].match.class`. */
function pathText(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'the policy';
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}

/** Parses a policy already read from JSON or YAML; a bad one is refused naming its entry. */
export function parseApprovalPolicy(value: unknown): ApprovalPolicy {
  const parsed = ApprovalPolicySchema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const message =
    issue?.path.length === 0 && issue.code === 'invalid_type'
      ? 'must be an object with `rules` and `limits`'
      : (issue?.message ?? 'is not a policy');
  throw new ApprovalPolicyError(`${pathText(issue?.path ?? [])}: ${message}`);
}

/** The write a decision is about. */
export interface WriteForApproval {
  tool: string;
  class: WriteClass;
  /**
   * In the business's currency; 0 when the write moves no money; undefined when it could not be
   * read — then it is taken as over every minimum and every limit (fail closed).
   */
  amount?: number | undefined;
  /** The party, by each name or id the call or its confirmation gives for it. */
  party?: string | readonly string[] | undefined;
  /** The call names a party that could not be read (an id no read named): every party rule matches. */
  partyUnknown?: boolean | undefined;
}

/** Who else must approve a write before it runs. */
export interface ApprovalNeed {
  /** People other than the maker; 0: the maker's own confirmation is enough. */
  approvers: number;
  /** Roles any of whom may approve (those whose limit the amount is within). */
  roles: PersonRole[];
  /** Why, in words. */
  reason: string;
  /** The index of the rule that decided, when a rule did. */
  rule?: number;
}

/** Whether a tool glob (`*` any run, `?` one character; no case) names `tool`. */
export function globMatches(glob: string, tool: string): boolean {
  const pattern = glob
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/-]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`, 'i').test(tool);
}

/** Whether a rule matches; an amount or party that could not be read matches (fail closed). */
function matches(match: ApprovalMatch, write: WriteForApproval): boolean {
  if (match.class !== undefined && match.class !== 'any' && match.class !== write.class) return false;
  if (match.tool !== undefined && !globMatches(match.tool, write.tool)) return false;
  if (match.minAmount !== undefined && write.amount !== undefined && write.amount < match.minAmount)
    return false;
  if (match.party !== undefined && !write.partyUnknown) {
    const names = typeof write.party === 'string' ? [write.party] : (write.party ?? []);
    const want = partyKey(match.party);
    if (!names.some((name) => partyKey(name) === want)) return false;
  }
  return true;
}

/**
 * How specific a rule is, to break a tie between rules asking as many people: a party named, then
 * an exact tool, then a tool glob (fewer wildcards first), then a class other than `any`, then a
 * higher minimum amount.
 */
function specificity(match: ApprovalMatch): number[] {
  const wildcards = match.tool ? (match.tool.match(/[*?]/g) ?? []).length : 0;
  return [
    match.party ? 1 : 0,
    match.tool === undefined ? 0 : wildcards === 0 ? 2 : 1,
    match.tool === undefined ? 0 : -wildcards,
    match.class !== undefined && match.class !== 'any' ? 1 : 0,
    match.minAmount ?? -1,
  ];
}

function moreSpecific(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return false;
}

/** Whether a role may approve (or confirm alone) this amount: within its limit, or it has none. */
function withinLimit(policy: ApprovalPolicy, role: PersonRole, amount: number | undefined): boolean {
  const limit = policy.limits[role]?.maxAmount;
  return limit === undefined || (amount !== undefined && amount <= limit);
}

/** The roles of `roles` that may approve this amount; when none may, the owner. */
function eligible(policy: ApprovalPolicy, roles: readonly PersonRole[], amount: number | undefined) {
  const within = roles.filter((r) => withinLimit(policy, r, amount));
  return within.length > 0 ? within : (['owner'] as PersonRole[]);
}

/** A rule in words, for the person waiting on it: `rule 1 (payment from 100000, party Acme)`. */
export function ruleWords(rule: ApprovalRule, index: number): string {
  const { match } = rule;
  const what = [
    match.class && match.class !== 'any' ? match.class : undefined,
    match.tool ? `tool ${match.tool}` : undefined,
    match.class === 'any' && !match.tool ? 'any write' : undefined,
    match.minAmount !== undefined ? `from ${match.minAmount}` : undefined,
    match.party ? `for ${match.party}` : undefined,
  ].filter(Boolean);
  return `rule ${index + 1} of the approval policy (${what.join(' ')})`;
}

/**
 * Who else must approve `write` when a person with `makerRoles` confirms it.
 * - Without a policy, the maker's confirmation is enough.
 * - Rules: every rule whose match holds applies (class, tool glob, minimum amount, party; an amount
 *   or party that could not be read holds for any minimum or party). The strictest decides: the
 *   one asking the most people; among those asking as many, the most specific (a party, then an
 *   exact tool, a tool glob, a class, a higher minimum), then the first written. A maker's own
 *   roles never lower what a rule asks.
 * - Limits: a role's `maxAmount` is the most it may confirm alone (maker, owner, automation) and
 *   the most it may approve (approver, owner). Of a rule's roles, those whose limit the amount is
 *   within may approve; when none may, the owner approves. Where no rule applies, the maker
 *   confirms alone up to the highest limit among its making roles (one without a limit: any
 *   amount); past it — or with an amount that could not be read, or no making role — one person of
 *   the approver or owner roles within their limits approves.
 * More money never needs fewer people, nor does an amount that could not be read.
 */
export function approvalNeeded(
  policy: ApprovalPolicy | undefined,
  write: WriteForApproval,
  makerRoles: readonly PersonRole[],
): ApprovalNeed {
  if (!policy)
    return { approvers: 0, roles: [], reason: 'there is no approval policy: the person who asked confirms' };
  let decided: { rule: ApprovalRule; index: number; rank: number[] } | undefined;
  for (const [index, rule] of policy.rules.entries()) {
    if (!matches(rule.match, write)) continue;
    const rank = specificity(rule.match);
    if (
      !decided ||
      rule.approvers > decided.rule.approvers ||
      (rule.approvers === decided.rule.approvers && moreSpecific(rank, decided.rank))
    )
      decided = { rule, index, rank };
  }
  if (decided)
    return {
      approvers: decided.rule.approvers,
      roles: eligible(policy, decided.rule.roles, write.amount),
      reason: ruleWords(decided.rule, decided.index),
      rule: decided.index,
    };
  const making = makerRoles.filter((r) => MAKING_ROLES.includes(r));
  const alone = making.some((r) => withinLimit(policy, r, write.amount));
  if (alone) return { approvers: 0, roles: [], reason: 'no rule matches and it is within the maker’s limit' };
  const limits = making.map((r) => policy.limits[r]?.maxAmount).filter((l) => l !== undefined);
  const reason =
    making.length === 0
      ? 'the person who asked holds no role that confirms writes'
      : write.amount === undefined
        ? 'its amount could not be read, and the maker may confirm alone only up to a limit'
        : `it is over what the maker may confirm alone (${Math.max(...limits)})`;
  return { approvers: 1, roles: eligible(policy, DEFAULT_APPROVERS, write.amount), reason };
}
