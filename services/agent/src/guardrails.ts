import { parseToolName, verbClass } from '@munim/contracts';

/** Output guardrails of seed 003 §6.10 and the reverse guardrails of seed 000 §8. */

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const CARD_BLOCK = /```card[\s\S]*?(```|$)/g;
const TECHNICAL = [
  /\b(stack trace|traceback|ECONNREFUSED|ETIMEDOUT|ENOTFOUND|TypeError|ReferenceError|undefined is not)\b[^\n]*/gi,
  /\b(HTTP|status code) [45]\d\d\b[^\n]*/gi,
];

/** Drops every markdown-table column whose cells hold a UUID, then any UUID left in the text. */
export function stripIds(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (!isRow(lines[i])) {
      out.push((lines[i] ?? '').replace(UUID, ''));
      i++;
      continue;
    }
    const block: string[][] = [];
    while (i < lines.length && isRow(lines[i])) block.push(cells(lines[i++] ?? ''));
    const width = Math.max(...block.map((r) => r.length));
    const keep = [...Array(width).keys()].filter(
      (c) => !block.some((r) => UUID.test(r[c] ?? '') && resetUuid()),
    );
    for (const row of block) out.push(`| ${keep.map((c) => (row[c] ?? '').replace(UUID, '')).join(' | ')} |`);
  }
  return out.join('\n');
}

function resetUuid(): true {
  UUID.lastIndex = 0;
  return true;
}

function isRow(line: string | undefined): boolean {
  return !!line && /^\s*\|.*\|\s*$/.test(line);
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());
}

export function stripCardBlocks(text: string): string {
  return text
    .replace(CARD_BLOCK, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function softenTechnical(text: string): string {
  let out = text;
  for (const re of TECHNICAL) out = out.replace(re, "I couldn't complete that part right now.");
  return out;
}

/** All output guardrails, in order; what the user sees. */
export function guardOutput(text: string): string {
  return softenTechnical(stripIds(stripCardBlocks(text)));
}

const SUCCESS_CLAIM =
  /(✅|\b(successfully|has been|have been|was|were)\s+(created|recorded|saved|sent|voided|deleted|approved|updated|posted|added|filed)\b|\b(created|recorded|saved|voided|deleted|approved|posted)\s+(the|a|an|your)?\s*(invoice|bill|payment|entry|note|customer|vendor|contact))/i;
const FAILURE_CLAIM =
  /\b(failed|couldn'?t|could not|unable to|was not able|wasn'?t able|did not go through|error occurred)\b/i;

/** Verbs whose past tense claims a change whatever the tool was (as in SUCCESS_CLAIM). */
const CLAIMED_VERBS = [
  'create',
  'record',
  'save',
  'send',
  'void',
  'delete',
  'approve',
  'update',
  'post',
  'add',
  'file',
];

/** Past tenses that do not follow the rule (verb + ed). */
const IRREGULAR_PAST: Readonly<Record<string, string>> = {
  send: 'sent',
  resend: 'resent',
  pay: 'paid',
  make: 'made',
  set: 'set',
  reset: 'reset',
  writeoff: 'written off',
  withdraw: 'withdrawn',
  lookup: 'looked up',
};

/** "revert" → "reverted", "approve" → "approved", "submit" → "submitted", "pay" → "paid". */
export function pastTense(verb: string): string {
  const irregular = IRREGULAR_PAST[verb];
  if (irregular) return irregular;
  if (verb.endsWith('e')) return `${verb}d`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ied`;
  if (/^(submit|transfer|log|drop|cancel)$/.test(verb)) return `${verb}${verb.at(-1)}ed`;
  return `${verb}ed`;
}

/**
 * Whether the text says the write of `tool` was done: ✅, "successfully", or a change verb in the
 * past tense — the tool's own ("Timesheet reverted") or a common one — unless negated ("was not
 * approved", "nothing was posted"), so a claim is caught whatever the tool's verb.
 */
export function claimsDone(text: string, tool: string): boolean {
  const { verb, words } = parseToolName(tool);
  const verbs = [verb, ...words.filter((w) => verbClass(w) !== undefined && verbClass(w) !== 'read')];
  const deeds = [...new Set([...verbs.filter((v) => v !== undefined), ...CLAIMED_VERBS])].map((v) =>
    pastTense(v).replace(' ', String.raw`\s+`),
  );
  const negated = String.raw`(?<!(?:\bnot|\bnever|n't|\bnothing)\s+(?:(?:was|were|is|has|have|been|be)\s+)*)`;
  const claim = new RegExp(
    String.raw`✅|(?:^|[^\p{L}])${negated}(?:${[...deeds, 'successfully'].join('|')})(?!\p{L})`,
    'iu',
  );
  return claim.test(text);
}

export interface WriteOutcome {
  tool: string;
  success: boolean;
  /** Sent, but no answer came: it may or may not have been applied (TOOL_OUTCOME_UNKNOWN). */
  unknown?: boolean;
  /** A read of the same records ran after it, so an answer may say what became of it. */
  checked?: boolean;
  /** The arguments it was sent with, kept when its outcome is unknown: they name what to look for. */
  args?: Record<string, unknown>;
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
 * Seed 000 §8: a write that succeeded is never reported as failed, and a success no write
 * backs is never reported at all; a write whose outcome is unknown is reported as either only
 * once a read has checked it.
 */
export function reverseGuardrails(
  text: string,
  writes: WriteOutcome[],
  describe: (tool: string) => string,
): { text: string; guardrails: string[] } {
  // A write that may have run is reported neither as done nor as not done until a read has shown
  // which: told "it failed", the user would do it again.
  const unchecked = writes.find((w) => w.unknown && !w.checked);
  if (unchecked && (SUCCESS_CLAIM.test(text) || FAILURE_CLAIM.test(text))) {
    return {
      text: unknownOutcomeText(describe, unchecked.tool),
      guardrails: ['unverified_outcome_stripped'],
    };
  }
  const succeeded = writes.filter((w) => w.success);
  const claimed =
    writes.length === 0 ? SUCCESS_CLAIM.test(text) : writes.some((w) => claimsDone(text, w.tool));
  if (succeeded.length === 0 && claimed) {
    if (writes.some((w) => w.unknown && w.checked)) return { text, guardrails: [] };
    const attempted = writes[0]?.tool;
    const honest = attempted
      ? `I couldn't ${describe(attempted)}, so nothing was changed in your books. Please try again or tell me what to change.`
      : "I haven't made any change to your books yet: nothing was created or updated. Tell me if you'd like me to go ahead.";
    return { text: honest, guardrails: ['hallucinated_success_stripped'] };
  }
  if (succeeded.length > 0 && FAILURE_CLAIM.test(text) && !SUCCESS_CLAIM.test(text)) {
    const done = succeeded.map((w) => `✅ Done: I did ${describe(w.tool)}.`).join('\n');
    return { text: `${done}\n\n${text}`, guardrails: ['false_failure_overridden'] };
  }
  return { text, guardrails: [] };
}
