import { randomUUID } from 'node:crypto';
import type { ValidationResult } from '@munim/contracts';
import { auditWrite } from '../answer/audit.ts';
import { type Asked, complete } from '../answer/complete.ts';
import { confirmWord } from '../answer/tool-words.ts';
import { withoutImages } from '../model/attachments.ts';
import type { Run } from '../run/run.ts';
import { fromProgram, sendForApproval } from './approval-flow.ts';
import { confirmationCard } from './card.ts';
import { findDuplicate } from './duplicates.ts';
import { emitMcq } from './events.ts';
import { impactOf, withImpact } from './impact.ts';
import { lookUp, minorUnitFields } from './lookup.ts';
import { asksForChange } from './requested.ts';
import type { LoopState } from './state.ts';
import { untrustedRead } from './untrusted.ts';

/** Puts a validated write to the user (docs/security.md, approvals) and ends the request awaiting the answer. */
export async function propose(
  run: Run,
  data: Asked,
  userText: string,
  step: { validation: ValidationResult; callId: string },
  toolCallId: string,
  loopState: Pick<LoopState, 'messages' | 'offered' | 'containers' | 'skippedToolCallIds'>,
  /** Said before the card's question (what a reply changed). */
  lead?: string,
) {
  const { validation } = step;
  const args = validation.args ?? {};
  // A change the user's message did not ask for came from something read (a tool's result, a
  // file): flagged, named in words, and confirmed by typing, whatever its own tier.
  const unrequested = !asksForChange(data.query, validation.tool);
  if (unrequested) run.guardrails.add('unrequested_write');
  // After a file or a tool result that gives orders, even an asked-for write may carry its words.
  const untrusted = untrustedRead(loopState.messages) !== undefined;
  if (untrusted) run.guardrails.add('untrusted_read_write');
  const lookups = await lookUp(run, validation.tool, args);
  // A likely duplicate of a record of the books is named on the card and confirmed by typing.
  const duplicate = await findDuplicate(run, validation.tool, args, lookups);
  const tier = unrequested || untrusted || duplicate ? 3 : validation.tier;
  const definition = (await run.ctx.tools.list(run.scope, run.traceparent)).find(
    (t) => t.name === validation.tool,
  );
  const card = confirmationCard(validation.tool, args, tier, {
    lookups,
    unrequested,
    duplicate: duplicate?.warning,
    formats: await run.formats(),
    minorUnits: minorUnitFields(definition?.inputSchema),
  });
  // What else an irreversible action touches, read from the books before the card is shown.
  const impact = await impactOf(run, validation.tool, args, definition?.description, lookups);
  const { record, changes } = card;
  const details = impact ? [...card.details, ...impact.details] : card.details;
  const asked = withImpact(card.question, impact);
  const question = lead ? `${lead}\n${asked}` : asked;
  const actionId = randomUUID();
  const confirmText = tier === 3 ? confirmWord(validation.tool) : null;
  const state: LoopState = {
    ...loopState,
    messages: withoutImages(loopState.messages),
    iterations: run.iterations,
    usage: run.usage,
    toolResults: run.toolResults,
    query: data.query,
    route: data.route,
    ...(unrequested ? { unrequested } : {}),
    ...(record ? { record } : {}),
    details,
    changes,
    ...(duplicate ? { duplicateOf: { summary: duplicate.summary } } : {}),
  };
  const proposal = {
    actionId,
    tool: validation.tool,
    args,
    argsHash: validation.argsHash,
    tier,
    confirmText,
    question,
    callId: step.callId,
    toolCallId,
    state,
    expiresAt: new Date(Date.now() + run.ctx.config.confirmTtlMs),
  };
  await run.ctx.store.createPending(run.scope, proposal);
  await auditWrite(run, 'proposed', { tool: validation.tool, argsHash: validation.argsHash, record });
  await run.emit({
    type: 'confirmation',
    payload: { actionId, step: 'proposed', tool: validation.tool, tier, args_hash: validation.argsHash },
  });
  // A program that may not confirm its own writes gets no card and no word to type: the write waits for a person.
  if (fromProgram(run)) {
    await sendForApproval(
      run,
      {
        ...proposal,
        requestId: run.scope.requestId,
        status: 'pending',
        approvedByRequest: null,
        requestedBy: run.scope.actor?.userId ?? null,
      },
      data,
      userText,
    );
    return;
  }
  await emitMcq(run, { actionId, tool: validation.tool, args, tier, question, confirmText, state });
  await complete(run, data, userText, question, 'awaiting_confirmation', { actionId });
}
