import {
  type ApprovalPolicy,
  ApprovalPolicyError,
  approvalNeeded,
  type PersonRole,
  parseApprovalPolicy,
  type RequestScope,
  type WriteClass,
  writeAmount,
  writeClass,
} from '@munim/contracts';
import { ApprovalPolicies, DEFAULT_BUSINESS_CONTEXT } from '@munim/db';
import type { AgentContext } from '../run/context.ts';
import { inMajorUnits } from './call-values.ts';
import { readFacts } from './fields.ts';
import { partyRefOf } from './refs.ts';

/** Where the policy that decided came from: the org's own, the operator's file, or none (the default). */
export type ApprovalPolicySource = 'org' | 'file' | 'default';

/** A write the approval flow asks about. */
export interface WriteToApprove {
  tool: string;
  /** The tool's description: its class when the name says too little. */
  description?: string | undefined;
  args: Record<string, unknown>;
  /** The party's name as the confirmation names it (read from the books), when it does. */
  party?: string | undefined;
  /** The amount of the record the write acts on, as the confirmation read it, when the call names none (a void). */
  recordAmount?: number | undefined;
  /** Fields whose amounts the server's schema gives in the currency's smallest unit (cents, paise). */
  minorUnits?: ReadonlySet<string> | undefined;
}

/** Who else must approve a write, and why. */
export type ApprovalRequirement =
  | { needed: 0; reason: string; source: ApprovalPolicySource; amount?: number | undefined }
  | {
      needed: number;
      /** Roles any of whom may approve. */
      roles: PersonRole[];
      /** Why, in words: the rule, or the limit, that asks for it. */
      rule: string;
      /** The write's amount in the business's currency; absent when it could not be read. */
      amount?: number | undefined;
      source: ApprovalPolicySource;
    };

/** Classes whose writes move no money unless the call says so: no amount is an amount of 0. */
const NO_MONEY: ReadonlySet<WriteClass> = new Set(['party', 'send', 'edit']);

/** The policy in force for an org: its own (admin API), else the operator's file, else none. */
async function policyFor(
  ctx: AgentContext,
  orgId: string,
): Promise<{ policy?: ApprovalPolicy; source: ApprovalPolicySource; broken?: string }> {
  const own = await new ApprovalPolicies(ctx.store.db).get(orgId);
  if (own) {
    try {
      return { policy: parseApprovalPolicy(own.policy), source: 'org' };
    } catch (error) {
      if (!(error instanceof ApprovalPolicyError)) throw error;
      return { source: 'org', broken: error.message };
    }
  }
  const file = ctx.config.approvalPolicy;
  return file ? { policy: file, source: 'file' } : { source: 'default' };
}

/** The business's currency; the default one when its context cannot be read (as the rest of the request does). */
async function currencyOf(ctx: AgentContext, scope: RequestScope): Promise<string> {
  try {
    return (await ctx.store.businessContext(scope)).currency;
  } catch {
    return DEFAULT_BUSINESS_CONTEXT.currency;
  }
}

/**
 * Who else must approve a write before it runs, for the person asking (`actorRoles`, their roles
 * for the entity). The policy is the org's own (admin API) over the operator's
 * `APPROVAL_POLICY_FILE`; with neither, the person who asked confirms alone. The write's class
 * comes from its name (and description), its amount from its arguments by meaning in the
 * business's currency (minor units made whole), its party from the confirmation's name for it or
 * the call's. Fail closed: an amount that could not be read (or lives only in the books, as a
 * void's does) counts as over every minimum and limit, a party named only by an id matches every
 * party rule, and an org policy that no longer parses needs the owner.
 */
export async function approvalFor(
  ctx: AgentContext,
  scope: RequestScope,
  write: WriteToApprove,
  actorRoles: readonly PersonRole[],
): Promise<ApprovalRequirement> {
  const { policy, source, broken } = await policyFor(ctx, scope.orgId);
  if (broken)
    return {
      needed: 1,
      roles: ['owner'],
      rule: `the org’s approval policy cannot be used (${broken}): the owner approves`,
      source,
    };
  if (!policy)
    return { needed: 0, reason: 'there is no approval policy: the person who asked confirms', source };
  const cls = writeClass(write.tool, write.description);
  const currency = await currencyOf(ctx, scope);
  const args = inMajorUnits(write.args, write.minorUnits, currency);
  const read = writeAmount(args, currency);
  const amount =
    read.amount ?? (read.unread ? undefined : (write.recordAmount ?? (NO_MONEY.has(cls) ? 0 : undefined)));
  const named = write.party ?? readFacts(args).party;
  const ref = partyRefOf(args);
  const party = [named, ref?.value].filter((p): p is string => p !== undefined);
  const need = approvalNeeded(
    policy,
    { tool: write.tool, class: cls, amount, party, partyUnknown: ref !== undefined && named === undefined },
    actorRoles,
  );
  if (need.approvers === 0) return { needed: 0, reason: need.reason, source, amount };
  const unread = read.unread ? ` (the amount: ${read.unread})` : '';
  return {
    needed: need.approvers,
    roles: need.roles,
    rule: `${need.reason}${amount === undefined ? unread : ''}`,
    ...(amount === undefined ? {} : { amount }),
    source,
  };
}
