import { answer } from '../answer/answer.ts';
import { type Asked, complete } from '../answer/complete.ts';
import { describeTool } from '../answer/tool-words.ts';
import type { Run } from '../run/run.ts';

/** What a person who may only read is told when they ask for a change. */
export function readOnlyText(tool: string): string {
  return (
    `You can only read these books (your role here is viewer), so I can't ${describeTool(tool)} for you, ` +
    'and nothing was changed. Someone who may make changes here (a maker or the owner) can do it.'
  );
}

/**
 * A viewer asked for a change: answered in words, before any card is shown. No confirmation is
 * asked for and no pending action is stored, so there is nothing to confirm or approve.
 */
export async function refuseReadOnly(run: Run, data: Asked, userText: string, tool: string): Promise<void> {
  const response = await answer(run, readOnlyText(tool));
  await complete(run, data, userText, response, 'answered');
}
