import type { QueryRouted } from '@munim/contracts';
import { refOf, userMessage, visionCapable } from '../model/attachments.ts';
import type { ChatCompletionMessageParam } from '../model/llm.ts';
import { AgentError } from '../run/errors.ts';
import type { Run } from '../run/run.ts';

/** The user's message of this request, with its files read from storage. */
export async function userTurn(run: Run, data: QueryRouted): Promise<ChatCompletionMessageParam> {
  const ids = data.attachmentIds ?? [];
  if (ids.length === 0) return { role: 'user', content: data.query };
  const { attachments: source, config, llm, attachmentMaxChars } = run.ctx;
  if (!source) throw new AgentError('SERVICE_UNAVAILABLE', 'Attached files cannot be read right now.');
  const rows = await source.findMany(ids, run.scope);
  if (rows.length !== ids.length) {
    throw new AgentError('NOT_FOUND', 'An attached file is no longer available; please attach it again.');
  }
  run.attachments = rows.map(refOf);
  return userMessage(data.query, rows, {
    vision: visionCapable(config.vision ?? 'auto', llm?.model ?? ''),
    maxChars: attachmentMaxChars,
    bytes: (row) => source.content(row),
  });
}
