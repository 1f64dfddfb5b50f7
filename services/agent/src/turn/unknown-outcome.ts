import type { ToolDefinition } from '@munim/contracts';
import { isRecord } from '@munim/contracts';
import { primaryToolGroup } from '@munim/kit';
import { unknownOutcomeText } from '../answer/guardrails.ts';
import { describeTool } from '../answer/tool-words.ts';
import type { ChatCompletionMessageParam } from '../model/llm.ts';
import { renderResults } from '../render/format.ts';
import { type Run, sameRecords, type WriteOutcome } from '../run/run.ts';
import { notRun, toolStep } from '../tool-step/tool-step.ts';

/** The guardrail recorded once the LLM was told to check a write of unknown outcome. */
const CHECK_ASKED = 'unknown_outcome_check_asked';

/** Told to the LLM when it answers while a write's outcome is unknown and unchecked. */
function checkFirstPrompt(
  write: string,
  reader: { name: string; args: Record<string, unknown> } | undefined,
): string {
  const call = reader
    ? `${reader.name}${Object.keys(reader.args).length > 0 ? ` with ${JSON.stringify(reader.args)}` : ''}`
    : 'a read tool that lists these records';
  return (
    `Do not answer yet. ${write} was sent but no answer came back, so it may or may not have been applied; ` +
    `it will not be sent again. Call ${call} now to check ` +
    'whether it was applied, then tell the user what the books show. Do not say it failed or succeeded ' +
    'without that check.'
  );
}

/** What the checking read searches for, when it can search: the write's name, number or reference. */
function searchArgs(reader: ToolDefinition, args: Record<string, unknown>): Record<string, unknown> {
  const properties = reader.inputSchema.properties;
  const key = isRecord(properties) ? Object.keys(properties).find((k) => /^search$/i.test(k)) : undefined;
  const term = Object.entries(args).find(
    ([k, v]) => /name|number|reference/i.test(k) && typeof v === 'string' && v.trim() !== '',
  )?.[1];
  return key && typeof term === 'string' ? { [key]: term } : {};
}

/**
 * The read that shows whether a write whose outcome is unknown was applied: a read of the same
 * tool group that needs no arguments (a list), the `all` one first.
 */
async function checkingRead(run: Run, write: string): Promise<ToolDefinition | undefined> {
  const group = primaryToolGroup(write);
  if (!group) return undefined;
  const readers = (await run.ctx.tools.list(run.scope, run.traceparent)).filter(
    (t) =>
      !t.isWrite &&
      primaryToolGroup(t.name) === group &&
      !(Array.isArray(t.inputSchema.required) && t.inputSchema.required.length > 0),
  );
  const rank = (t: ToolDefinition) => (t.name.includes('_all_') ? 0 : 1);
  return readers.sort((a, b) => rank(a) - rank(b) || a.name.length - b.name.length)[0];
}

/** The unchecked write of unknown outcome that a call of `tool`, a write of the same records, could repeat. */
async function unsettledBy(run: Run, tool: string): Promise<WriteOutcome | undefined> {
  const unchecked = run.uncheckedWrites().find((w) => sameRecords(tool, w.tool));
  if (!unchecked) return undefined;
  const def = await run.ctx.tools.find(tool, run.scope, run.traceparent);
  return def?.isWrite ? unchecked : undefined;
}

/**
 * When the LLM will not check a write whose outcome is unknown, the agent does: it runs the
 * checking read and shows the records as they stand, so the user can see whether it was applied.
 */
export async function checkUnknown(run: Run, write: Pick<WriteOutcome, 'tool' | 'args'>): Promise<string> {
  run.guardrails.add('unknown_outcome_checked');
  const reader = await checkingRead(run, write.tool);
  if (!reader) return unknownOutcomeText(describeTool, write.tool);
  const step = await toolStep(run, reader.name, searchArgs(reader, write.args ?? {}), {
    mayConfirm: false,
  });
  if (step.kind !== 'executed' || !step.success) return unknownOutcomeText(describeTool, write.tool);
  const next = 'Here is what your books show now; check whether it is there before trying again:';
  return `${unknownOutcomeText(describeTool, write.tool, next)}\n\n${renderResults(
    [{ tool: reader.name, args: searchArgs(reader, write.args ?? {}), result: step.content }],
    { formats: await run.formats() },
  )}`;
}

/**
 * No answer while a write may or may not have run: the first time the LLM tries, the messages that
 * make it check with a read first (the reader offered); undefined once it was told, or when no
 * turn is left for the check.
 */
export async function askToCheckFirst(
  run: Run,
  content: string,
  offered: Set<string>,
): Promise<ChatCompletionMessageParam[] | undefined> {
  const unchecked = run.uncheckedWrites()[0];
  if (!unchecked || run.guardrails.has(CHECK_ASKED) || run.iterations >= run.ctx.config.maxIterations)
    return undefined;
  run.guardrails.add(CHECK_ASKED);
  const reader = await checkingRead(run, unchecked.tool);
  if (reader) offered.add(reader.name);
  const call = reader && { name: reader.name, args: searchArgs(reader, unchecked.args ?? {}) };
  return [
    { role: 'assistant', content },
    { role: 'system', content: checkFirstPrompt(unchecked.tool, call) },
  ];
}

/** The answer the LLM gave, or, while a write's outcome is still unchecked, the agent's own check of it. */
export async function checkedAnswer(run: Run, content: string): Promise<string> {
  const unchecked = run.uncheckedWrites()[0];
  return unchecked ? await checkUnknown(run, unchecked) : content;
}

/**
 * A call of a write that could repeat a write of unknown outcome is not run: the tool message
 * saying so (the checking read offered), or undefined when the call may go ahead.
 */
export async function refuseUnsettled(
  run: Run,
  call: { id: string; name: string },
  offered: Set<string>,
): Promise<ChatCompletionMessageParam | undefined> {
  const unsettled = await unsettledBy(run, call.name);
  if (!unsettled) return undefined;
  // Sending it again before a read has shown the first did not apply could do it twice.
  const reader = await checkingRead(run, unsettled.tool);
  if (reader) offered.add(reader.name);
  return notRun(
    call.id,
    'TOOL_OUTCOME_UNKNOWN',
    `Not run: ${unsettled.tool} was sent earlier in this request and may already have been applied. ` +
      `Check with ${reader?.name ?? 'a read tool'} first; call ${call.name} only if the books show it was not.`,
  );
}
