import type { ConversationMessage } from '@munim/db';
import { ATTACHMENT_RULES, type AttachmentRef, earlierFiles } from './attachments.ts';
import type { ChatCompletionMessageParam } from './llm.ts';
import { llmTurn } from './llm-turn.ts';
import { SUMMARY_PROMPT } from './prompts.ts';
import type { Run } from './run/run.ts';
import { isRecord } from './util.ts';

/** Seed 003 §6.7: summarize above 20 messages, keeping the last 10 verbatim. */
const SUMMARIZE_ABOVE = 20;
const KEEP_RECENT = 10;

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

/** The summary of `messages`, carrying on from the `previous` one. */
async function summarize(run: Run, previous: string | null, messages: ConversationMessage[]) {
  const transcript = messages.map((m) => `${m.role}: ${m.content}`).join('\n');
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
  return turn.content.trim() || previous;
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
 * What the LLM is told of the conversation so far: the summary of its older part (made once more
 * than 20 messages exist, keeping the last 10 verbatim, seed 003 §6.7), the documents created in
 * it (for "show that invoice", "send it"), and the recent messages.
 */
export async function history(run: Run): Promise<ChatCompletionMessageParam[]> {
  const { store, llm, log, config } = run.ctx;
  const conversation = await store.conversation(run.scope);
  if (!conversation) return [];
  const { messages } = conversation;
  let summary = conversation.summary;
  let recent = messages.slice(-config.historyMessages);
  if (messages.length > SUMMARIZE_ABOVE) {
    const older = messages.slice(0, -KEEP_RECENT);
    recent = messages.slice(-KEEP_RECENT);
    if (llm && conversation.summarizedCount < older.length) {
      summary = await summarize(run, summary, older.slice(conversation.summarizedCount)).catch(
        (error: unknown) => {
          log.warn(
            { err: error, requestId: run.scope.requestId },
            'summarization failed; keeping the old summary',
          );
          return summary;
        },
      );
      if (summary) {
        void store
          .saveSummary(run.scope, summary, older.length)
          .catch((error: unknown) => log.warn({ err: error }, 'could not save the summary'));
      }
    }
  }
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
