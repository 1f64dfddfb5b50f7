import { isRecord } from '@munim/contracts';
import type { ConversationMessage } from '@munim/db';
import { ATTACHMENT_RULES, type AttachmentRef, earlierFiles } from '../model/attachments.ts';
import type { ChatCompletionMessageParam } from '../model/llm.ts';
import { SUMMARY_PROMPT } from '../model/prompts.ts';
import type { Run } from '../run/run.ts';
import { llmTurn } from './llm-turn.ts';

/** The attachments a stored message carries in its metadata. */
function attachmentRefs(message: ConversationMessage): AttachmentRef[] {
  const list = message.metadata?.attachments;
  return Array.isArray(list)
    ? (list.filter((a) => isRecord(a) && typeof a.id === 'string') as AttachmentRef[])
    : [];
}

/** A past message as the model sees it: its text, plus the names of the files it came with. */
function withFileNames(message: ConversationMessage): string {
  const files = attachmentRefs(message);
  if (files.length === 0) return message.content;
  return `${message.content}\n[attached: ${files.map((f) => `${f.filename} (${f.category})`).join(', ')}]`;
}

/** The summary of `messages`, carrying on from the `previous` one; undefined when the model gave none. */
async function summarize(run: Run, previous: string | null, messages: ConversationMessage[]) {
  const transcript = messages.map((m) => `${m.role}: ${withFileNames(m)}`).join('\n');
  // The summary is no step of the tool loop: its model call must not use up one of its iterations.
  const iterations = run.iterations;
  try {
    const turn = await llmTurn(run, 'summarization', {
      messages: [
        { role: 'system', content: SUMMARY_PROMPT },
        {
          role: 'user',
          content: `${previous ? `Summary so far:\n${previous}\n\n` : ''}Summarize the conversation:\n${transcript}`,
        },
      ],
      maxTokens: 512,
    });
    return turn.content.trim() || undefined;
  } finally {
    run.iterations = iterations;
  }
}

/** The files of earlier turns (newest three), so "record them" can follow "what is in this file?". */
async function earlierAttachments(run: Run, messages: ConversationMessage[]): Promise<string | null> {
  const ids = [...new Set(messages.flatMap((m) => attachmentRefs(m).map((a) => a.id)))]
    .filter((id) => !run.attachments.some((a) => a.id === id))
    .slice(-3);
  const source = run.ctx.attachments;
  if (ids.length === 0 || !source) return null;
  const rows = await source.findMany(ids, run.scope).catch((error: unknown) => {
    run.ctx.log.warn({ err: error, requestId: run.scope.requestId }, 'earlier attachments unavailable');
    return [];
  });
  if (rows.length === 0) return null;
  // The rules are said once: this turn's files bring them in the instructions already.
  const rules = run.attachments.length === 0 ? `${ATTACHMENT_RULES}\n\n` : '';
  return `${rules}${earlierFiles(rows, run.ctx.attachmentMaxChars)}`;
}

/**
 * The conversation's summary and the messages it does not hold. The last messages go verbatim
 * (`HISTORY_MESSAGES`, 10) and the older ones as a summary; every message that falls out of that
 * window goes into the summary first, so none is dropped unsaid. Where no
 * summary could be made, the messages it would have held are sent as they are.
 */
async function summarized(
  run: Run,
  conversation: { messages: ConversationMessage[]; summary: string | null; summarizedCount: number },
) {
  const { store, llm, log, config } = run.ctx;
  const { messages } = conversation;
  // How many of the first messages fall out of the verbatim window.
  const outside = Math.max(0, messages.length - config.historyMessages);
  let { summary } = conversation;
  let held = Math.min(conversation.summarizedCount, messages.length);
  if (llm && held < outside) {
    const next = await summarize(run, summary, messages.slice(held, outside)).catch((error: unknown) => {
      log.warn({ err: error, requestId: run.scope.requestId }, 'summarization failed; sending the messages');
      return undefined;
    });
    if (next) {
      summary = next;
      held = outside;
      void store
        .saveSummary(run.scope, next, outside)
        .catch((error: unknown) => log.warn({ err: error }, 'could not save the summary'));
    }
  }
  return { summary, recent: messages.slice(Math.min(held, outside)) };
}

/**
 * What the LLM is told of the conversation so far: the summary of its older part, the documents
 * created in it (for "show that invoice", "send it"), and the recent messages.
 */
export async function history(run: Run): Promise<ChatCompletionMessageParam[]> {
  if (run.newConversation) return [];
  const conversation = await run.ctx.store.conversation(run.scope);
  if (!conversation) return [];
  const { messages } = conversation;
  const { summary, recent } = await summarized(run, conversation);
  const created = messages
    .flatMap((m) => (Array.isArray(m.metadata?.createdDocuments) ? m.metadata.createdDocuments : []))
    .slice(-5) as { tool: string; number?: string; id?: string }[];
  const context: ChatCompletionMessageParam[] = [];
  if (summary) context.push({ role: 'system', content: `[Previous conversation summary]\n${summary}` });
  if (created.length > 0) {
    context.push({
      role: 'system',
      content: `Documents created earlier in this conversation, newest last (ids are for tool calls only, never show them):\n${created
        .map((d) => `- ${d.tool.replace(/^create_/, '')} ${d.number ?? ''} (id ${d.id ?? 'unknown'})`)
        .join('\n')}`,
    });
  }
  const list = [...messages].reverse().find((m) => isRecord(m.metadata?.lastList))?.metadata?.lastList as
    | { tool: string; args: Record<string, unknown> }
    | undefined;
  if (list) {
    context.push({
      role: 'system',
      content: `The last list shown was ${list.tool} with ${JSON.stringify(list.args)}; for "show more", "next" or "aur dikhao" call it again with the next Page.`,
    });
  }
  const earlier = await earlierAttachments(run, messages);
  if (earlier) context.push({ role: 'system', content: earlier });
  const past: ChatCompletionMessageParam[] = recent
    .filter((m) => m.role === 'user' || m.role === 'assistant')
    .map((m) => ({ role: m.role as 'user' | 'assistant', content: withFileNames(m) }));
  return [...context, ...past];
}
