/** Reverse guardrails: what an answer claims, against what the turn's writes did. */
import { isWriteResult } from '@munim/contracts';
import type { WriteOutcome } from '../run/run.ts';
import { changeWords, claimsIn, ENGLISH_CHANGE, FAILURE, mentions } from './claims.ts';

/** The turn's calls besides the writes that ran: what the answer may be drawn from. */
export interface TurnCalls {
  /** Every call of the turn as the run records it: reads, writes, and calls blocked before running. */
  results?: readonly { tool: string; success: boolean }[];
  /** Writes put to the user for confirmation and not answered yet. */
  awaiting?: readonly string[];
}

/** What the user is told of a write whose outcome is unknown, then `next`. */
export function unknownOutcomeText(
  describe: (tool: string) => string,
  tool: string,
  next = 'Please check your books before trying again, so it is not done twice.',
): string {
  return (
    `I sent the request to ${describe(tool)} to your accounting system but no answer came back, so I can't ` +
    `tell whether it was applied. I haven't sent it again. ${next}`
  );
}

/**
 * An answer is honest about the turn's writes: a write that succeeded is never reported as failed,
 * a success no write backs is never reported at all, and a write whose outcome is unknown is
 * reported as either only once a read has checked it. It speaks only to writes the turn attempted or the answer claims: an
 * answer about what the books hold ("INV-0042 was sent on 12/03", "✅ Paid") passes untouched.
 */
export function reverseGuardrails(
  text: string,
  writes: WriteOutcome[],
  describe: (tool: string) => string,
  calls: TurnCalls = {},
): { text: string; guardrails: string[] } {
  const ran = new Set(writes.map((w) => w.tool));
  const results = calls.results ?? [];
  const notRun = [
    ...new Set(results.filter((r) => !r.success && !ran.has(r.tool) && isWriteResult(r)).map((r) => r.tool)),
  ];
  const awaiting = (calls.awaiting ?? []).filter((t) => !ran.has(t) && !notRun.includes(t));
  const unfulfilled = [...writes.filter((w) => !w.success && !w.unknown).map((w) => w.tool), ...notRun];
  const attempted = [...writes.map((w) => w.tool), ...unfulfilled, ...awaiting];
  const said = claimsIn(text, attempted.flatMap(changeWords));
  const failure = FAILURE.test(text);

  // A write that may have run is reported neither as done nor as not done until a read has shown
  // which: told "it failed", the user would do it again.
  const unchecked = writes.find((w) => w.unknown && !w.checked);
  if (unchecked && (said.length > 0 || failure)) {
    return {
      text: unknownOutcomeText(describe, unchecked.tool),
      guardrails: ['unverified_outcome_stripped'],
    };
  }
  const succeeded = writes.filter((w) => w.success);
  if (succeeded.length === 0) {
    // With no write in the turn, a plain "has been sent" next to what a read returned is a fact
    // about the records; only the assistant's own report of a change ("I've sent", "✅ Sent") is a claim.
    const readsRan = results.some((r) => r.success && !isWriteResult(r));
    const claimed =
      attempted.length > 0
        ? said.some(
            (c) =>
              c.strength === 'strong' ||
              attempted.some((t) => mentions(c.clause, t)) ||
              !ENGLISH_CHANGE.test(c.clause),
          )
        : said.some((c) => c.strength === 'strong' || (c.strength === 'weak' && !readsRan));
    if (!claimed || writes.some((w) => w.unknown && w.checked)) return { text, guardrails: [] };
    const failed = unfulfilled[0];
    const honest = failed
      ? `I couldn't ${describe(failed)}, so nothing was changed in your books. Please try again or tell me what to change.`
      : awaiting[0]
        ? `I haven't done that yet: to ${describe(awaiting[0])} I need your confirmation first, so nothing has changed in your books.`
        : "I haven't made any change to your books yet: nothing was created or updated. Tell me if you'd like me to go ahead.";
    return { text: honest, guardrails: ['hallucinated_success_stripped'] };
  }
  // Some writes went through: a claim of one that did not, in words of its own, is still false.
  const doneWords = new Set(succeeded.flatMap((w) => changeWords(w.tool)));
  const falsely = [...unfulfilled, ...awaiting].filter(
    (t) => !changeWords(t).some((w) => doneWords.has(w)) && said.some((c) => mentions(c.clause, t)),
  );
  const done = succeeded.map((w) => `✅ Done: I did ${describe(w.tool)}.`).join('\n');
  if (falsely.length > 0) {
    const notDone = falsely.map((t) => `I couldn't ${describe(t)}, so that part was not done.`).join('\n');
    return { text: `${done}\n${notDone}`, guardrails: ['hallucinated_success_stripped'] };
  }
  if (failure && said.length === 0) {
    return { text: `${done}\n\n${text}`, guardrails: ['false_failure_overridden'] };
  }
  return { text, guardrails: [] };
}
