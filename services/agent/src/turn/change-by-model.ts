import type { Change } from '../confirmation/change-words.ts';
import type { Run } from '../run/run.ts';
import { llmTurn } from './llm-turn.ts';

/**
 * With a model configured, the new date, due date or amount of a reply the words alone could not
 * read ("yes but make it four thousand five hundred", "date it the last day of this month"). The
 * model is asked for those three values only, as JSON; whatever else the reply says (or the model
 * answers) is dropped, so a reply can never widen what the pending call does. No model, an error,
 * or an answer that is not such JSON: undefined.
 */
export async function changeByModel(
  run: Run,
  reply: string,
  today = new Date(),
): Promise<Change | undefined> {
  if (!run.ctx.llm) return undefined;
  const day = today.toISOString().slice(0, 10);
  try {
    const turn = await llmTurn(run, 'confirmation_change', {
      messages: [
        {
          role: 'system',
          content:
            `Today is ${day}. The user is answering a confirmation of an accounting entry and may ask ` +
            'to change its date, its due date or its amount. Reply with JSON only, like ' +
            '{"date":"YYYY-MM-DD","due":"YYYY-MM-DD","amount":4500}, leaving out what the user does not ' +
            'change. If the user asks to change anything else, or you are not sure, reply {}.',
        },
        { role: 'user', content: reply },
      ],
      maxTokens: 60,
      temperature: 0,
    });
    return parseChange(turn.content);
  } catch (error) {
    run.ctx.log.warn({ err: error, requestId: run.scope.requestId }, 'the model could not read a change');
    return undefined;
  }
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (v: unknown): v is string =>
  typeof v === 'string' && ISO_DAY.test(v) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);

/** The change in a model's answer: its JSON's date, due date and amount, each only when well formed. */
export function parseChange(content: string): Change | undefined {
  const json = /\{[\s\S]*\}/.exec(content)?.[0];
  if (!json) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { date, due, amount } = value as Record<string, unknown>;
  const change: Change = {};
  if (isDay(date)) change.date = date;
  if (isDay(due)) change.due = due;
  if (typeof amount === 'number' && Number.isFinite(amount) && amount > 0 && amount < 1e13)
    change.amount = amount;
  return Object.keys(change).length > 0 ? change : undefined;
}
