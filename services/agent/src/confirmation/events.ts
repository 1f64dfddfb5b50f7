import type { EventPayload } from '@munim/contracts';
import { auditWrite } from '../answer/audit.ts';
import { describeTool } from '../answer/tool-words.ts';
import type { Run } from '../run/run.ts';
import type { PendingAction } from '../run/store.ts';
import { type LoopState, LoopStateSchema } from './state.ts';

type ConfirmationStep = EventPayload<'confirmation'>['step'];

/**
 * One step of a pending action's life, as a `confirmation` event bound to its argument hash. A step
 * happens once in a request, whichever delivery takes it: one that finishes a write its dead
 * predecessor approved says so again, and the stream keeps the first saying only.
 */
export function emitStep(run: Run, pending: PendingAction, step: ConfirmationStep, reason?: string) {
  return run.emitOnce(
    {
      type: 'confirmation',
      payload: {
        actionId: pending.actionId,
        step,
        tool: pending.tool,
        tier: pending.tier,
        args_hash: pending.argsHash,
        ...(reason ? { reason } : {}),
      },
    },
    `${pending.actionId}:${step}`,
  );
}

/** The card's facts, changes and likely duplicate kept in the stored state, when it parses as such. */
function cardOf(state: Record<string, unknown> | LoopState | undefined) {
  const card = LoopStateSchema.pick({ details: true, changes: true, duplicateOf: true }).safeParse(
    state ?? {},
  );
  if (!card.success) return {};
  const { details, changes, duplicateOf } = card.data;
  return {
    ...(details && details.length > 0 ? { details } : {}),
    ...(changes && changes.length > 0 ? { changes } : {}),
    ...(duplicateOf ? { duplicate_of: duplicateOf } : {}),
  };
}

/** The confirmation card (`mcq` event) of a write put to the user. */
export function emitMcq(
  run: Run,
  a: {
    actionId: string;
    tool: string;
    args: Record<string, unknown>;
    tier: number;
    question: string;
    confirmText: string | null;
    /** The stored loop state: whether the change was unrequested, and the record's name. */
    state?: Record<string, unknown> | LoopState;
  },
) {
  return run.emit({
    type: 'mcq',
    payload: {
      actionId: a.actionId,
      mcq_type: 'write_confirmation',
      tier: a.tier,
      question: a.question,
      ...(a.state && 'unrequested' in a.state && a.state.unrequested === true ? { unrequested: true } : {}),
      ...(a.state && typeof a.state.record === 'string' ? { record: a.state.record } : {}),
      ...cardOf(a.state),
      options: [
        { label: `✅ Yes, ${describeTool(a.tool)}`, value: 'confirm' },
        { label: '❌ Cancel', value: 'cancel' },
      ],
      pending_tool: a.tool,
      pending_args: a.args,
      ...(a.confirmText ? { confirm_text: a.confirmText } : {}),
    },
  });
}

/** A new question: every change still awaiting an answer in the conversation is cancelled. */
export async function supersede(run: Run) {
  const cancelled = await run.ctx.store.cancelPending(run.scope);
  for (const action of cancelled) {
    run.ctx.log.info(
      { requestId: run.scope.requestId, actionId: action.actionId, tool: action.tool },
      'pending action cancelled by a new question',
    );
    await run.emit({
      type: 'confirmation',
      payload: {
        actionId: action.actionId,
        step: 'cancelled',
        tool: action.tool,
        tier: action.tier,
        args_hash: action.argsHash,
        reason: 'a new question was asked',
      },
    });
    await auditWrite(run, 'cancelled', action, 'a new question was asked');
  }
}
