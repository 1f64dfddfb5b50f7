import { isRecord } from '@munim/contracts';
import { answer, answerStream, enrich, needsInputMessage, turnSources } from '../answer/answer.ts';
import { type Asked, complete } from '../answer/complete.ts';
import { propose } from '../confirmation/propose.ts';
import { refuseReadOnly } from '../confirmation/read-only.ts';
import type { ChatCompletionMessageParam } from '../model/llm.ts';
import { enrichmentPrompt } from '../render/enrichments.ts';
import { AgentError } from '../run/errors.ts';
import type { Run } from '../run/run.ts';
import { containerCall, type Offer, offeredTools } from '../tool-step/containers.ts';
import { notRun, toolContent, toolStep } from '../tool-step/tool-step.ts';
import { llmTurn } from './llm-turn.ts';
import { askToCheckFirst, checkedAnswer, refuseUnsettled } from './unknown-outcome.ts';

/** The tool-calling loop, from wherever it stands, to an answer or a confirmation. */
export async function loop(
  run: Run,
  data: Asked,
  userText: string,
  messages: ChatCompletionMessageParam[],
  offer: Offer,
): Promise<void> {
  const { config } = run.ctx;
  const { offered, containers } = offer;
  const toolDefs = await offeredTools(run, offer);
  const maxTokens = data.route.tier === 'capable' ? config.maxTokens.capable : config.maxTokens.cheap;
  while (run.iterations < config.maxIterations) {
    // Streamed through guards that hold back what the final checks of `answer` would take back.
    const stream = answerStream(run);
    const turn = await llmTurn(run, 'chat', {
      messages,
      tools: toolDefs(),
      maxTokens,
      onText: stream.onText,
      onRestart: stream.restart,
    });
    if (turn.toolCalls.length === 0) {
      // No answer while a write may or may not have run: the LLM checks with a read first, and
      // if it still answers without one, the agent checks.
      const checkFirst = await askToCheckFirst(run, turn.content, offered);
      if (checkFirst) {
        await stream.retract();
        messages.push(...checkFirst);
        continue;
      }
      const response = await answer(
        run,
        await checkedAnswer(run, turn.content),
        stream,
        turnSources(run, messages),
      );
      await complete(run, data, userText, response, 'answered');
      return;
    }
    await stream.retract();
    messages.push({
      role: 'assistant',
      content: turn.content || null,
      tool_calls: turn.toolCalls.map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: { name: c.name, arguments: c.arguments },
      })),
    });
    for (const [index, call] of turn.toolCalls.entries()) {
      if (containers.has(call.name)) {
        messages.push({
          role: 'tool',
          tool_call_id: call.id,
          content: await containerCall(run, call, offer),
        });
        continue;
      }
      if (!offered.has(call.name)) {
        messages.push(
          notRun(call.id, 'TOOL_NOT_OFFERED', `The tool ${call.name} is not available for this request.`),
        );
        continue;
      }
      const refused = await refuseUnsettled(run, call, offered);
      if (refused) {
        messages.push(refused);
        continue;
      }
      const step = await toolStep(run, call.name, call.arguments, { mayConfirm: true });
      if (step.kind === 'read_only') {
        await refuseReadOnly(run, data, userText, call.name);
        return;
      }
      if (step.kind === 'confirm') {
        await propose(run, data, userText, step, call.id, {
          messages,
          offered: [...offered],
          containers: [...containers.values()],
          skippedToolCallIds: turn.toolCalls.slice(index + 1).map((c) => c.id),
        });
        return;
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: toolContent(step, offered) });
    }
    const fresh = await enrich(
      run,
      run.toolResults
        .filter((r) => r.success)
        .map((r) => ({ tool: r.tool, args: isRecord(r.input) ? r.input : {}, result: r.result })),
    );
    if (fresh.length > 0) messages.push({ role: 'system', content: enrichmentPrompt(fresh) });
    const exhausted = [...run.blocked.values()].find(
      (v) => v.isWrite && (run.blockedInARow.get(v.tool) ?? 0) > config.maxWriteRetries,
    );
    if (exhausted) {
      const response = await answer(run, needsInputMessage(exhausted));
      await complete(run, data, userText, response, 'needs_input');
      return;
    }
  }
  throw new AgentError(
    'MAX_ITERATIONS',
    'That took more steps than I am allowed. Could you break the request into smaller parts?',
  );
}
