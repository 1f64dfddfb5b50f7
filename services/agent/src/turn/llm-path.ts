import type { QueryRouted } from '@munim/contracts';
import { quickSuggestions } from '@munim/db';
import { answerStream } from '../answer/answer.ts';
import { complete } from '../answer/complete.ts';
import { withoutModel } from '../answer/examples.ts';
import { guardOutput } from '../answer/output-guard.ts';
import { ATTACHMENT_RULES } from '../model/attachments.ts';
import type { ChatCompletionMessageParam } from '../model/llm.ts';
import { generalChatPrompt, unifiedPrompt } from '../model/prompts.ts';
import { AgentError } from '../run/errors.ts';
import type { Run } from '../run/run.ts';
import { offerFor } from '../tool-step/containers.ts';
import { history } from './history.ts';
import { llmTurn } from './llm-turn.ts';
import { loop } from './loop.ts';
import { smallTalkAnswer } from './small-talk.ts';
import { userTurn } from './user-turn.ts';

/** An LLM-path query: small talk, general chat, or the tool-calling loop over the routed tools. */
export async function runLlmPath(run: Run, data: QueryRouted) {
  const { llm, config, store } = run.ctx;
  const { route } = data;
  if (
    !llm &&
    route.category === 'general_chat' &&
    run.attachments.length === 0 &&
    !data.attachmentIds?.length
  ) {
    // Greetings, thanks and "what can you do" need no model: what munim does and what to ask.
    const { texts } = await quickSuggestions(store.db, run.scope, 6);
    await complete(run, data, data.query, smallTalkAnswer(data.query, config.persona, texts), 'answered');
    return;
  }
  if (!llm) throw new AgentError('NO_MODEL_CONFIGURED', withoutModel(data.query));
  const user = await userTurn(run, data);
  const past = await history(run);
  const rules: ChatCompletionMessageParam[] =
    run.attachments.length > 0 ? [{ role: 'system', content: ATTACHMENT_RULES }] : [];
  if (route.category === 'general_chat') {
    // Streamed through the output guard: no id or card block goes out, even for a moment.
    const stream = answerStream(run);
    const turn = await llmTurn(run, 'general_chat', {
      messages: [{ role: 'system', content: generalChatPrompt(config.persona) }, ...rules, ...past, user],
      maxTokens: config.maxTokens.chat,
      onText: stream.onText,
      onRestart: stream.restart,
    });
    const response = guardOutput(turn.content);
    await stream.finish(response);
    await complete(run, data, data.query, response, 'answered');
    return;
  }
  const offer = await offerFor(run, route.tools);
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: unifiedPrompt(config.persona, await run.business()) },
    ...rules,
    ...past,
    user,
  ];
  await loop(run, data, data.query, messages, offer);
}
