import { mayProposeWrites, type QueryRouted } from '@munim/contracts';
import { answer } from '../answer/answer.ts';
import { auditWrite } from '../answer/audit.ts';
import { type Asked, complete } from '../answer/complete.ts';
import { editBeforeConfirm } from '../confirmation/approval-flow.ts';
import { changeFields, dateIn, fieldWords } from '../confirmation/change-fields.ts';
import { readChange } from '../confirmation/change-words.ts';
import { emitMcq, emitStep } from '../confirmation/events.ts';
import { minorUnitFields } from '../confirmation/lookup.ts';
import { propose } from '../confirmation/propose.ts';
import { refuseReadOnly } from '../confirmation/read-only.ts';
import { type LoopState, parseLoopState } from '../confirmation/state.ts';
import type { ChatCompletionMessageParam } from '../model/llm.ts';
import { AgentError } from '../run/errors.ts';
import type { Run } from '../run/run.ts';
import type { PendingAction } from '../run/store.ts';
import { validate } from '../tool-step/requests.ts';
import { changeByModel } from './change-by-model.ts';

/**
 * A "yes" that changes what was proposed ("yes but make it ₹4,500", "haan, 1 December ki date daal
 * do"): the change is put onto the pending call's date or amount fields, the changed call is
 * validated and checked again, and it is put to the person again on a new card — it never runs on
 * this reply. The card shown before answers no more. A change that cannot be read, or that does not
 * check out, is said so in words and the card stands as it was.
 */
export async function answerYesWithChanges(run: Run, data: QueryRouted): Promise<boolean> {
  if (data.channel === 'mcp') return false;
  if (readChange(data.query).kind === 'none') return false;
  const pending = await run.ctx.store.proposedByLastAnswer(run.scope);
  if (!pending) return false;
  const state = parseLoopState(pending);
  const asked: Asked = { query: state.query, route: state.route };
  const definition = (await run.ctx.tools.list(run.scope, run.traceparent)).find(
    (t) => t.name === pending.tool,
  );
  // Read again with the call's own date (a day without a year is the one nearest to it) and the
  // words of its fields (a reply that names another field is a change not understood).
  const reference = dateIn(pending.args);
  const fields = fieldWords(pending.args, definition?.inputSchema);
  const reading = readChange(data.query, { fields, ...(reference ? { reference } : {}) });
  if (reading.kind === 'none') return false;
  if (!mayProposeWrites(run.scope.actor)) {
    await refuseReadOnly(run, data, data.query, pending.tool);
    return true;
  }
  // Values in words the reading does not know may be read by a model, when there is one.
  const change =
    reading.kind === 'change'
      ? reading.change
      : reading.about === 'value'
        ? await changeByModel(run, data.query)
        : undefined;
  if (!change) {
    await keepCard(
      run,
      pending,
      asked,
      data.query,
      reading.kind === 'unclear' ? reading.reason : 'no change',
    );
    return true;
  }
  const mapped = changeFields(pending.args, change, {
    schema: definition?.inputSchema,
    minorUnits: minorUnitFields(definition?.inputSchema),
    currency: (await run.formats()).business.currency,
  });
  if ('reason' in mapped) {
    await keepCard(run, pending, asked, data.query, mapped.reason);
    return true;
  }
  let edited: PendingAction;
  try {
    edited = await editBeforeConfirm(run, pending, mapped.fields);
  } catch (error) {
    if (!(error instanceof AgentError) || error.code !== 'VALIDATION_ERROR') throw error;
    await keepCard(
      run,
      pending,
      asked,
      data.query,
      `the changed details do not check out (${error.message.replace(/^[^:]*nothing was done: /, '')})`,
    );
    return true;
  }
  // The changed call gets a card of its own: the one shown before answers no more.
  if (!(await run.ctx.store.transition(edited.actionId, 'pending', 'cancelled')))
    throw new AgentError('CONFLICT', 'This confirmation has already been answered.');
  await emitStep(run, edited, 'cancelled', 'changed before it was confirmed: asked again on a new card');
  await auditWrite(run, 'cancelled', edited, 'changed before it was confirmed: asked again on a new card');
  const validation = await validate(run, edited.tool, edited.args, undefined, edited.callId);
  if (validation.status === 'blocked') {
    const response = await answer(
      run,
      `The changed details do not check out, so nothing was done: ${validation.message ?? 'it was blocked'}. Please ask again.`,
    );
    await complete(run, asked, data.query, response, 'needs_input');
    return true;
  }
  run.toolResults = [...state.toolResults];
  run.usage = state.usage;
  run.iterations = state.iterations;
  const fmt = await run.formats();
  const values = mapped.said.map(
    (s) =>
      `the ${s.field} to ${s.field === 'amount' ? fmt.money(Number(s.value)) : (fmt.date(s.value) ?? s.value)}`,
  );
  const lead = `I've changed ${values.join(' and ')} as you asked; nothing is done yet.`;
  await propose(
    run,
    asked,
    data.query,
    { validation, callId: edited.callId },
    edited.toolCallId,
    { ...state, messages: withArgs(state, edited) },
    lead,
  );
  return true;
}

/** The model's own call, as it will run: its arguments are the changed ones. */
function withArgs(state: LoopState, edited: PendingAction): ChatCompletionMessageParam[] {
  return state.messages.map((m) =>
    m.role === 'assistant' && m.tool_calls?.some((c) => c.id === edited.toolCallId)
      ? {
          ...m,
          tool_calls: m.tool_calls.map((c) =>
            c.id === edited.toolCallId && c.type === 'function'
              ? { ...c, function: { ...c.function, arguments: JSON.stringify(edited.args) } }
              : c,
          ),
        }
      : m,
  );
}

/** The change could not be made: said in words, and the same card put again. */
async function keepCard(run: Run, pending: PendingAction, asked: Asked, userText: string, reason: string) {
  const question = `I couldn't make that change: ${reason}. Nothing was changed or done, and the card stands as it was: ${pending.question}`;
  await emitMcq(run, { ...pending, question });
  const response = await answer(run, question);
  await complete(run, asked, userText, response, 'awaiting_confirmation', { actionId: pending.actionId });
}
