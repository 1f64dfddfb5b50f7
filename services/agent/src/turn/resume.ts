import { mayProposeWrites, type QueryRouted, type ValidationResult } from '@munim/contracts';
import { answer } from '../answer/answer.ts';
import { auditDone, auditWrite } from '../answer/audit.ts';
import { complete } from '../answer/complete.ts';
import { describeTool } from '../answer/tool-words.ts';
import { editBeforeConfirm, fromProgram, sendForApproval } from '../confirmation/approval-flow.ts';
import { emitMcq, emitStep } from '../confirmation/events.ts';
import { isPlainYes } from '../confirmation/plain-yes.ts';
import { refuseReadOnly } from '../confirmation/read-only.ts';
import { type LoopState, PendingStateError, parseLoopState } from '../confirmation/state.ts';
import type { ChatCompletionMessageParam } from '../model/llm.ts';
import { AgentError } from '../run/errors.ts';
import type { Run } from '../run/run.ts';
import type { PendingAction } from '../run/store.ts';
import { execute, validate } from '../tool-step/requests.ts';
import { loop } from './loop.ts';
import { checkUnknown } from './unknown-outcome.ts';

/** Told to the LLM for the calls after the proposed one, which were not run. */
const SKIPPED_CALL =
  'Not run: another change in the same step needed the user to confirm first. Call it again if it is still needed.';

const ANSWERED = 'This confirmation has already been answered.';

/** The loop state stored with `pending`; a malformed one is logged and ends the request, nothing run. */
function loopStateOf(run: Run, pending: PendingAction): LoopState {
  try {
    return parseLoopState(pending);
  } catch (error) {
    if (error instanceof PendingStateError) {
      run.ctx.log.error(
        { err: error, requestId: run.scope.requestId, actionId: pending.actionId },
        'stored confirmation state does not parse',
      );
    }
    throw error;
  }
}

/**
 * Runs an approved write (idempotent: a second run of the same call is answered from the
 * executor's store) and goes on from where the proposal stopped.
 */
async function carryOut(
  run: Run,
  pending: PendingAction,
  state: LoopState,
  validation: ValidationResult,
  userText: string,
) {
  const { store, llm } = run.ctx;
  const asked = { query: state.query, route: state.route };
  run.toolResults = [...state.toolResults];
  run.usage = state.usage;
  run.iterations = state.iterations;
  const execution = await execute(
    run,
    { ...validation, args: pending.args },
    pending.callId,
    pending.actionId,
  );
  await store.transition(pending.actionId, 'executing', 'executed', {
    success: execution.success,
    ...(execution.outcome ? { outcome: execution.outcome } : {}),
    ...(execution.error ? { error: execution.error } : {}),
  });
  await auditDone(
    run,
    execution.success ? 'executed' : 'failed',
    pending,
    execution.outcome === 'unknown' ? 'its outcome is unknown' : execution.error?.message,
  );
  await emitStep(run, pending, 'executed');
  const content = JSON.stringify(
    execution.success ? execution.result : { success: false, error: execution.error?.message ?? 'failed' },
  );
  const messages: ChatCompletionMessageParam[] = [
    ...state.messages,
    { role: 'tool', tool_call_id: pending.toolCallId, content },
    ...state.skippedToolCallIds.map((id) => ({
      role: 'tool' as const,
      tool_call_id: id,
      content: SKIPPED_CALL,
    })),
  ];
  if (!llm) {
    const response = await answer(
      run,
      execution.success
        ? `✅ Done: I did ${describeTool(pending.tool)}.`
        : execution.outcome === 'unknown'
          ? await checkUnknown(run, { tool: pending.tool, args: validation.args ?? {} })
          : `I couldn't ${describeTool(pending.tool)}.`,
    );
    await complete(run, asked, userText, response, 'answered');
    return;
  }
  await loop(run, asked, userText, messages, {
    offered: new Set(state.offered),
    containers: new Map(state.containers.map((c) => [c.name, c])),
  });
}

/**
 * This very request again (the instance carrying its approved write died): finish the write,
 * exactly once — the executor answers a second run of the call from its store.
 */
export async function finishApproved(run: Run, approved: PendingAction) {
  const state = loopStateOf(run, approved);
  const again = await validate(run, approved.tool, approved.args, undefined, approved.callId);
  // The one that died may have approved it without saying so (said twice, it is kept once).
  await emitStep(run, approved, 'approved');
  await carryOut(run, approved, state, again, 'Confirm');
}

/** The user's answer to a pending confirmation: cancel, re-ask, void, or run it exactly once. */
export async function resume(
  run: Run,
  proposed: PendingAction,
  answerValue: 'confirm' | 'cancel',
  typed: string | undefined,
  /** Fields the person changed before confirming. */
  edits?: Record<string, unknown>,
) {
  let pending = proposed;
  const { store } = run.ctx;
  const state = loopStateOf(run, pending);
  const asked = { query: state.query, route: state.route };
  const userText = answerValue === 'cancel' ? 'Cancel' : typed ? `Confirm (${typed})` : 'Confirm';
  if (pending.status !== 'pending') throw new AgentError('CONFLICT', ANSWERED);
  if (pending.expiresAt.getTime() <= Date.now()) {
    if (await store.transition(pending.actionId, 'pending', 'expired')) {
      await emitStep(run, pending, 'expired');
      await auditWrite(run, 'expired', pending);
    }
    const response = await answer(
      run,
      `That confirmation has expired, so nothing was changed. Ask again if you still want to ${describeTool(pending.tool)}.`,
    );
    await complete(run, asked, userText, response, 'cancelled');
    return;
  }
  if (answerValue === 'cancel') {
    if (!(await store.transition(pending.actionId, 'pending', 'cancelled'))) {
      throw new AgentError('CONFLICT', ANSWERED);
    }
    await emitStep(run, pending, 'cancelled');
    await auditWrite(run, 'cancelled', pending, 'the person answering cancelled it');
    const response = await answer(
      run,
      `Okay, I won't ${describeTool(pending.tool)}: cancelled. Nothing was changed.`,
    );
    await complete(run, asked, userText, response, 'cancelled');
    return;
  }
  // A viewer may not make a change, so neither may one confirm it (it stays pending for someone who may).
  if (!mayProposeWrites(run.scope.actor)) {
    await refuseReadOnly(run, asked, userText, pending.tool);
    return;
  }
  // A program's confirmation is no confirmation (its write goes to a person below), so it is never told the word.
  const program = fromProgram(run);
  if (!program && pending.confirmText && (typed ?? '').trim().toUpperCase() !== pending.confirmText) {
    await emitStep(run, pending, 'rejected', 'typed confirmation did not match');
    const question = `That didn't match, so nothing was done. ${pending.question} Or cancel.`;
    await emitMcq(run, { ...pending, question, confirmText: pending.confirmText });
    const response = await answer(run, question);
    await complete(run, asked, userText, response, 'awaiting_confirmation', { actionId: pending.actionId });
    return;
  }
  if (edits && Object.keys(edits).length > 0) pending = await editBeforeConfirm(run, pending, edits);
  // Validate again: the approval binds the exact call that was shown, and the rules may have moved on.
  run.attempts.set(pending.tool, 1);
  const validation = await validate(run, pending.tool, pending.args, undefined, pending.callId);
  if (validation.status === 'blocked' || validation.argsHash !== pending.argsHash) {
    await store.transition(pending.actionId, 'pending', 'void');
    await emitStep(
      run,
      pending,
      'void',
      validation.status === 'blocked' ? validation.message : 'arguments changed after approval',
    );
    const response = await answer(
      run,
      `The details of this change no longer check out, so nothing was done. Please ask again to ${describeTool(pending.tool)}.`,
    );
    await complete(run, asked, userText, response, 'needs_input');
    return;
  }
  // The approval policy may give the write to other people after its maker's confirmation.
  if (await sendForApproval(run, pending, asked, userText)) return;
  if (
    !(await store.transition(
      pending.actionId,
      'pending',
      'executing',
      undefined,
      run.scope.requestId,
      run.scope.actor,
    ))
  ) {
    throw new AgentError('CONFLICT', ANSWERED);
  }
  await auditWrite(run, 'confirmed', pending);
  await emitStep(run, pending, 'approved');
  await carryOut(run, pending, state, validation, userText);
}

/**
 * A free-text yes answers only what the last answer proposed, and never over MCP (an agent calling
 * munim must confirm with the explicit argument, not with text). Whether it was such an answer.
 */
export async function answerPlainYes(run: Run, data: QueryRouted): Promise<boolean> {
  if (!isPlainYes(data)) return false;
  const pending = await run.ctx.store.proposedByLastAnswer(run.scope);
  if (!pending) return false;
  if (!mayProposeWrites(run.scope.actor)) {
    await refuseReadOnly(run, data, data.query, pending.tool);
    return true;
  }
  if (pending.tier === 1 || fromProgram(run)) {
    await resume(run, pending, 'confirm', undefined);
    return true;
  }
  // Riskier changes need the explicit answer of the confirmation card.
  const question = pending.confirmText
    ? `This change needs your explicit confirmation: type ${pending.confirmText} to confirm, or cancel.\n${pending.question}`
    : `This change needs your explicit confirmation on the card: ${pending.question}`;
  await emitMcq(run, { ...pending, question });
  const response = await answer(run, question);
  await complete(run, data, data.query, response, 'awaiting_confirmation', { actionId: pending.actionId });
  return true;
}
