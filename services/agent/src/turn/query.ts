import type { MessageContext } from '@munim/bus';
import { type Message, type QueryRouted, TERMINAL_EVENT_TYPES } from '@munim/contracts';
import { decide } from '../confirmation/approval-flow.ts';
import { supersede } from '../confirmation/events.ts';
import { mayApprove } from '../confirmation/plain-yes.ts';
import type { AgentContext } from '../run/context.ts';
import { AgentError, toUserError } from '../run/errors.ts';
import { Run } from '../run/run.ts';
import { ConversationForbiddenError } from '../run/store.ts';
import { runFastPath } from './fast-path.ts';
import { runLlmPath } from './llm-path.ts';
import { answerPlainYes, finishApproved, resume } from './resume.ts';
import { answerYesWithChanges } from './yes-but.ts';

/** Whether a request has ended: its last stored event is its `complete` or `error`. */
async function ended(ctx: AgentContext, requestId: string): Promise<boolean> {
  const last = await ctx.bus.lastEvent(requestId).catch((error: unknown) => {
    ctx.log.warn({ err: error, requestId }, 'could not look up how far the request got');
    return null;
  });
  return last !== null && TERMINAL_EVENT_TYPES.includes(last.message.data.type);
}

/**
 * One routed query, from where its delivery finds it: a confirmed write to finish, the answer to a
 * confirmation, a plain yes, or a new question for the fast path or the model; a failure ends it
 * with an `error` event fit for the user.
 */
export async function handleQuery(agent: AgentContext, message: Message<QueryRouted>, ctx: MessageContext) {
  const { log, store } = agent;
  const run = new Run(agent, message, ctx.traceparent, ctx.deliveryCount);
  const data = message.data;
  run.newConversation = data.newConversation === true;
  try {
    // Again, though it ended (its instance died after the end, before acknowledging it): done.
    if (ctx.deliveryCount > 1 && (await ended(agent, run.scope.requestId))) {
      log.warn({ requestId: run.scope.requestId }, 'redelivered request had ended already');
      return;
    }
    // Only a request that may approve a write can find one it approved (no read for a new question).
    const approved = mayApprove(data) ? await store.approvedBy(run.scope) : undefined;
    if (approved) {
      log.warn(
        { requestId: run.scope.requestId, actionId: approved.actionId },
        'finishing a confirmed write',
      );
      await finishApproved(run, approved);
      return;
    }
    if (data.approvalDecision) {
      const pending = await store.findPending(run.scope, data.approvalDecision.approvalId);
      if (!pending)
        throw new AgentError('NOT_FOUND', 'There is no approval with that id in this conversation.');
      await decide(run, pending, data.approvalDecision);
      return;
    }
    if (data.mcqResponse) {
      const pending = await store.findPending(run.scope, data.mcqResponse.actionId);
      if (!pending) {
        throw new AgentError(
          'NOT_FOUND',
          'There is no pending confirmation with that id in this conversation.',
        );
      }
      await resume(
        run,
        pending,
        data.mcqResponse.value,
        data.mcqResponse.typedConfirmation,
        data.mcqResponse.args,
      );
      return;
    }
    if (await answerPlainYes(run, data)) return;
    if (await answerYesWithChanges(run, data)) return;
    // A new conversation has no change awaiting an answer.
    if (!data.newConversation) await supersede(run);
    if (data.route.path === 'fast') await runFastPath(run, data);
    else await runLlmPath(run, data);
  } catch (error) {
    const { code, message: text } = toUserError(error);
    if (!(error instanceof AgentError) && !(error instanceof ConversationForbiddenError)) {
      log.error({ err: error, requestId: message.requestId }, 'request failed');
    }
    await run.emit({ type: 'error', payload: { code, message: text } });
  }
}
