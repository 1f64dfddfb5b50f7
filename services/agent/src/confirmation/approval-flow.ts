import {
  type ApprovalDecision,
  type PersonRole,
  programWithoutAutomation,
  type ValidationResult,
  writeClass,
} from '@munim/contracts';
import type { AuditAction } from '@munim/db';
import { answer } from '../answer/answer.ts';
import { auditActor, auditDone, nameOf } from '../answer/audit.ts';
import { type Asked, complete } from '../answer/complete.ts';
import { describeTool } from '../answer/tool-words.ts';
import { ApprovalStore } from '../run/approval-store.ts';
import type { AgentContext } from '../run/context.ts';
import { AgentError } from '../run/errors.ts';
import type { Run } from '../run/run.ts';
import type { PendingAction } from '../run/store.ts';
import { execute, validate } from '../tool-step/requests.ts';
import { approvalFor } from './approval-for.ts';
import { emitStep } from './events.ts';
import { minorUnitFields } from './lookup.ts';
import { parseLoopState } from './state.ts';

/** How long a write waits for its approvers by default (a day). */
export const DEFAULT_APPROVAL_TTL_MS = 24 * 3600_000;

/** Who may approve a program's write when no rule names anyone: a person who could have confirmed it. */
const PEOPLE_WHO_CONFIRM: PersonRole[] = ['maker', 'approver', 'owner'];

/** Whether the request comes from a program that may not confirm its own writes. */
export const fromProgram = (run: Run): boolean => programWithoutAutomation(run.scope.actor);

/** Who acted, for the trail: their user id, or the tenant's owner. */
const who = (run: Run) =>
  run.scope.actor?.userId ? `user ${run.scope.actor.userId}` : "the business's owner";

async function audit(
  run: Run,
  action: AuditAction,
  pending: { tool: string; argsHash: string },
  summary: string,
) {
  await run.ctx.store.audit({
    entityId: run.scope.entityId,
    orgId: run.scope.orgId,
    actor: auditActor(run.scope.actor),
    action,
    tool: pending.tool,
    argsHash: pending.argsHash,
    summary,
  });
}

/** Who else must approve `args` of `tool`, for a maker holding `roles`. */
async function needFor(run: Run, tool: string, args: Record<string, unknown>, roles: readonly PersonRole[]) {
  const definition = (await run.ctx.tools.list(run.scope, run.traceparent)).find((t) => t.name === tool);
  const decided = await approvalFor(
    run.ctx,
    run.scope,
    {
      tool,
      description: definition?.description,
      args,
      minorUnits: minorUnitFields(definition?.inputSchema),
    },
    roles,
  );
  return { decided, writeClass: writeClass(tool, definition?.description) };
}

/**
 * After the maker's confirmation (or at once, for a program that may not confirm): whether the
 * write goes to other people. If the policy asks for approvers and no standing approval covers it,
 * the write moves to `awaiting_approval`, `approval_requested` says who may approve, and the
 * request ends `awaiting_approval`: true. False: the maker's confirmation is enough.
 */
export async function sendForApproval(
  run: Run,
  pending: PendingAction,
  asked: Asked,
  userText: string,
): Promise<boolean> {
  const program = fromProgram(run);
  const { decided, writeClass: cls } = await needFor(
    run,
    pending.tool,
    pending.args,
    run.scope.actor?.roles ?? ['owner'],
  );
  let needed = decided.needed;
  let roles: PersonRole[] = decided.needed > 0 && 'roles' in decided ? decided.roles : [];
  let reason = 'rule' in decided ? decided.rule : decided.reason;
  if (needed > 0 && !program) {
    const party = [(pending.state as { record?: unknown }).record].filter(
      (p): p is string => typeof p === 'string',
    );
    const grant = await new ApprovalStore(run.ctx.store.db).useStanding(run.scope, pending.actionId, {
      tool: pending.tool,
      writeClass: cls,
      amount: decided.amount,
      party,
    });
    if (grant) {
      await audit(
        run,
        'approved',
        pending,
        `Approved by a standing approval (${grant}): ${describeTool(pending.tool)}.`,
      );
      return false;
    }
  }
  if (program) {
    needed = Math.max(needed, 1);
    roles = roles.length > 0 ? roles : PEOPLE_WHO_CONFIRM;
    reason = `a program asked for it: a person must ${needed > 1 || decided.needed > 0 ? `approve it (${reason})` : 'approve it'}`;
  }
  if (needed === 0) return false;
  const expiresAt = new Date(Date.now() + (run.ctx.config.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS));
  if (
    !(await new ApprovalStore(run.ctx.store.db).request(pending.actionId, {
      needed,
      roles,
      reason,
      expiresAt,
    }))
  )
    throw new AgentError('CONFLICT', 'This confirmation has already been answered.');
  await audit(
    run,
    'confirmed',
    pending,
    `${program ? 'Asked by a program' : `Confirmed by ${who(run)}`}: ${describeTool(pending.tool)}; it now waits for ${needed} approver${needed > 1 ? 's' : ''} (${roles.join(' or ')}): ${reason}.`,
  );
  await emitStep(run, pending, 'awaiting_approval', reason);
  await run.emit({
    type: 'approval_requested',
    payload: {
      approvalId: pending.actionId,
      tool: pending.tool,
      summary: pending.question,
      requiredRoles: roles,
      approversNeeded: needed,
      expiresAt: expiresAt.toISOString(),
    },
  });
  const response = await answer(
    run,
    `${program ? 'This change needs a person to approve it, so nothing has been done yet.' : 'Thanks: this change needs approval before it runs, so nothing has been done yet.'} ` +
      `I've sent it to ${needed > 1 ? `${needed} people` : 'someone'} who may approve it (${roles.join(' or ')}). ` +
      `You'll see the outcome in this conversation. The request expires on ${expiresAt.toISOString().slice(0, 10)}.`,
  );
  await complete(run, asked, userText, response, 'awaiting_approval', { actionId: pending.actionId });
  return true;
}

/** The fields an edit changed, before and after, in words for the trail (bounded). */
function changedFields(before: Record<string, unknown>, fields: Record<string, unknown>): string {
  const text = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v));
  const said = Object.entries(fields)
    .filter(([k, v]) => JSON.stringify(before[k]) !== JSON.stringify(v))
    .map(([k, v]) => `${k}: ${text(before[k])} → ${text(v)}`)
    .join('; ');
  return said.length > 600 ? `${said.slice(0, 599)}…` : said || 'no field changed';
}

/** The pending call with `fields` replaced, validated again; one that does not check out is refused, nothing `done`/`approved`. */
async function validateEdit(
  run: Run,
  pending: PendingAction,
  fields: Record<string, unknown>,
  nothing: 'done' | 'approved',
) {
  const after = { ...pending.args, ...fields };
  run.attempts.set(pending.tool, 1);
  const validation = await validate(run, pending.tool, after, undefined, pending.callId);
  if (validation.status === 'blocked')
    throw new AgentError(
      'VALIDATION_ERROR',
      `The edited change does not check out, so nothing was ${nothing}: ${validation.message ?? 'it was blocked'}`,
    );
  return { validation, args: validation.args ?? after };
}

/**
 * The maker changes fields of a proposed write before confirming it: the edited call is validated
 * again and replaces the proposal (the confirmation binds to it); the trail keeps both versions.
 */
export async function editBeforeConfirm(
  run: Run,
  pending: PendingAction,
  fields: Record<string, unknown>,
): Promise<PendingAction> {
  const { validation, args } = await validateEdit(run, pending, fields, 'done');
  if (!(await new ApprovalStore(run.ctx.store.db).editPending(pending.actionId, args, validation.argsHash)))
    throw new AgentError('CONFLICT', 'This confirmation has already been answered.');
  await audit(
    run,
    'edited',
    { tool: pending.tool, argsHash: validation.argsHash },
    `Edited by ${who(run)} before confirming: ${describeTool(pending.tool)} (${changedFields(pending.args, fields)}).`,
  );
  return { ...pending, args, argsHash: validation.argsHash };
}

/** The changed call of an edit: the pending call with the given fields replaced, validated again. */
async function edit(
  run: Run,
  pending: PendingAction,
  fields: Record<string, unknown>,
  makerRoles: readonly PersonRole[],
) {
  const { validation, args } = await validateEdit(run, pending, fields, 'approved');
  // What the edited call needs is judged for its maker, as the original was.
  const { decided } = await needFor(run, pending.tool, args, makerRoles);
  return { validation, decided, after: args };
}

/**
 * A person's decision on a write waiting for approval, as a request in the maker's conversation:
 * reject it, approve it (the last approval needed runs it once, through the executor's
 * proof-checked protocol), or edit it first (validated again, both versions on the trail).
 */
export async function decide(run: Run, pending: PendingAction, decision: ApprovalDecision) {
  const approvals = new ApprovalStore(run.ctx.store.db);
  const awaiting = await approvals.get(run.scope, pending.actionId);
  if (!awaiting) throw new AgentError('NOT_FOUND', 'There is no approval with that id.');
  const state = parseLoopState(pending);
  const asked = { query: state.query, route: state.route };
  const actor = run.scope.actor;
  if (awaiting.status !== 'awaiting_approval')
    throw new AgentError(
      'CONFLICT',
      `This approval has already been decided (it is ${awaiting.status.replace('_', ' ')}).`,
    );
  if (awaiting.expiresAt.getTime() <= Date.now())
    throw new AgentError('CONFLICT', 'This approval has expired, so nothing was changed.');
  if ((actor?.userId ?? null) === awaiting.requestedBy)
    throw new AgentError('SELF_APPROVAL', 'You asked for this change, so someone else must approve it.');
  const roles = actor?.roles ?? ['owner'];
  if (!roles.some((r) => awaiting.approverRoles.includes(r)))
    throw new AgentError(
      'ROLE_REQUIRED',
      `Only a person with the role ${awaiting.approverRoles.join(' or ')} may decide on this change.`,
    );

  let validation: ValidationResult | undefined;
  let edited: Parameters<ApprovalStore['decide']>[0]['edited'];
  if (decision.decision === 'approve' && decision.args && Object.keys(decision.args).length > 0) {
    const changed = await edit(run, pending, decision.args, awaiting.requestedRoles);
    validation = changed.validation;
    const needed = Math.max(changed.decided.needed, awaiting.approvalsNeeded > 0 ? 1 : 0);
    edited = {
      before: pending.args,
      after: changed.after,
      argsHash: changed.validation.argsHash,
      needed,
      roles: 'roles' in changed.decided ? changed.decided.roles : awaiting.approverRoles,
      rule:
        'rule' in changed.decided
          ? changed.decided.rule
          : (awaiting.approvalReason ?? changed.decided.reason),
    };
  }
  const outcome = await approvals.decide({
    scope: run.scope,
    // An edit that now needs other roles (a larger amount) is kept, but does not count as their approval.
    counts: !edited || roles.some((r) => edited.roles.includes(r)),
    actionId: pending.actionId,
    actor,
    decision: decision.decision,
    reason: decision.reason,
    edited,
  });
  const what = describeTool(pending.tool);
  const userText = `${decision.decision === 'approve' ? 'Approved' : 'Rejected'} by ${await nameOf(run)}${decision.reason ? `: ${decision.reason}` : ''}`;
  if (outcome.kind === 'closed')
    throw new AgentError('CONFLICT', 'This approval has already been decided, or it expired.');
  if (outcome.kind === 'repeated') throw new AgentError('CONFLICT', 'You have already approved this change.');
  if (edited) {
    await audit(
      run,
      'edited',
      { tool: pending.tool, argsHash: edited.argsHash },
      `Edited by ${who(run)} before approving: ${what} (${changedFields(pending.args, decision.args ?? {})}).`,
    );
  }
  const current = {
    ...pending,
    args: edited?.after ?? pending.args,
    argsHash: edited?.argsHash ?? pending.argsHash,
  };
  if (outcome.kind === 'rejected') {
    await audit(
      run,
      'rejected',
      current,
      `Rejected by ${who(run)}${decision.reason ? ` (${decision.reason})` : ''}: ${what}; nothing was changed.`,
    );
    await emitStep(run, current, 'rejected', decision.reason ?? 'rejected by an approver');
    const response = await answer(run, `${userText}. I won't ${what}; nothing was changed.`);
    await complete(run, asked, userText, response, 'cancelled', {
      approval: { approvalId: pending.actionId, status: 'rejected' },
    });
    return;
  }
  await audit(run, 'approved', current, `Approved by ${who(run)}: ${what}.`);
  if (outcome.kind === 'recorded') {
    const left = outcome.needed - outcome.approvals;
    const response = await answer(
      run,
      `${userText}. It still needs ${left} more approval${left > 1 ? 's' : ''} before it runs.`,
    );
    await complete(run, asked, userText, response, 'awaiting_approval', {
      actionId: pending.actionId,
      approval: { approvalId: pending.actionId, status: 'awaiting_approval' },
    });
    return;
  }
  await runApproved(run, current, asked, userText, validation);
}

/** Runs a write its approvers approved, once, and tells the maker's conversation how it went. */
async function runApproved(
  run: Run,
  pending: PendingAction,
  asked: Asked,
  userText: string,
  checked: ValidationResult | undefined,
) {
  const validation = checked ?? (await validate(run, pending.tool, pending.args, undefined, pending.callId));
  await emitStep(run, pending, 'approved');
  // The books may have closed over its date while it waited: then it is not sent.
  if (validation.status === 'blocked') {
    const error = { code: 'VALIDATION_ERROR' as const, message: validation.message };
    await run.ctx.store.transition(pending.actionId, 'executing', 'executed', { success: false, error });
    await auditDone(run, 'failed', pending, validation.message);
    await emitStep(run, pending, 'void', validation.message);
    const response = await answer(
      run,
      `${userText}. I couldn't ${describeTool(pending.tool)}: ${validation.message}`,
    );
    await complete(run, asked, userText, response, 'answered', {
      approval: { approvalId: pending.actionId, status: 'failed', error: validation.message },
    });
    return;
  }
  const execution = await execute(
    run,
    { ...validation, args: pending.args },
    pending.callId,
    pending.actionId,
  );
  await run.ctx.store.transition(pending.actionId, 'executing', 'executed', {
    success: execution.success,
    ...(execution.outcome ? { outcome: execution.outcome } : {}),
    ...(execution.error ? { error: execution.error } : {}),
  });
  await auditDone(run, execution.success ? 'executed' : 'failed', pending, execution.error?.message);
  await emitStep(run, pending, 'executed');
  const what = describeTool(pending.tool);
  const response = await answer(
    run,
    execution.success
      ? `${userText}. ✅ Done: I did ${what}.`
      : execution.outcome === 'unknown'
        ? `${userText}. I sent the change to ${what}, but can't tell whether it was applied; please check your books before asking again.`
        : `${userText}. I couldn't ${what}: ${execution.error?.message ?? 'it failed'}.`,
  );
  await complete(run, asked, userText, response, 'answered', {
    approval: {
      approvalId: pending.actionId,
      status: execution.success ? 'executed' : 'failed',
      ...(execution.success ? {} : { error: execution.error?.message ?? 'failed' }),
    },
  });
}

/** Approvals whose window passed unanswered: expired, and recorded as such. How many. */
export async function expireApprovals(agent: AgentContext): Promise<number> {
  const expired = await new ApprovalStore(agent.store.db).expire();
  for (const write of expired)
    await agent.store.audit({
      entityId: write.entityId,
      orgId: write.orgId,
      actor: 'munim',
      action: 'expired',
      tool: write.tool,
      argsHash: write.argsHash,
      summary: `No one approved it in time, so it expired: ${describeTool(write.tool)}; nothing was changed.`,
    });
  return expired.length;
}
