import type { ValidationResult } from '@munim/contracts';
import type { ChatCompletionMessageParam } from '../model/llm.ts';
import { correctionAllowance } from '../model/quota.ts';
import { type Enrichment, planEnrichments } from '../render/enrichments.ts';
import type { FetchedResult } from '../render/format.ts';
import type { Run } from '../run/run.ts';
import { AnswerStream } from './answer-stream.ts';
import { groundAnswer, UNVERIFIED_WARNING } from './grounding.ts';
import { reverseGuardrails } from './guardrails.ts';
import { guardOutput } from './output-guard.ts';
import { describeTool } from './tool-words.ts';

/** Removes fenced json blocks whose body does not parse (used only when the validator cannot be asked). */
function dropBrokenBlocks(text: string): string {
  return text.replace(
    /```(params|clarification|card)\s*\n([\s\S]*?)(```|$)/g,
    (block, _kind, body: string) => {
      try {
        JSON.parse(body);
        return block;
      } catch {
        return '';
      }
    },
  );
}

/**
 * The `params`, `clarification` and `card` blocks of an answer are validated (and repaired or
 * removed) by the validator; if it cannot be asked, a block that is not JSON is dropped here.
 */
async function checkBlocks(run: Run, text: string): Promise<string> {
  if (!text.includes('```')) return text;
  try {
    const ask = (correctionTokens: number | undefined) =>
      run.ctx.bus.request(
        'answerBlocks',
        run.scope,
        { text, ...(correctionTokens === undefined ? {} : { correctionTokens }) },
        { timeoutMs: run.ctx.config.validateTimeoutMs * 4, traceparent: run.traceparent },
      );
    // Each block may get an LLM correction, whose tokens are held first in the tenant's quota.
    const blocks = text.match(/```(params|clarification|card)/g)?.length ?? 0;
    const quota = run.ctx.tokenQuota;
    const checked = quota
      ? await quota.forCorrections(run.scope, correctionAllowance(text, blocks), ask)
      : await ask(undefined);
    for (const g of checked.guardrails) run.guardrails.add(g);
    return checked.text;
  } catch (error) {
    run.ctx.log.warn(
      { err: error, requestId: run.scope.requestId },
      'answer blocks not checked; dropping unparsable ones',
    );
    return dropBrokenBlocks(text);
  }
}

/** The stream of the model's answer, guarded by the checks `answer` will make of the whole. */
export function answerStream(run: Run): AnswerStream {
  return new AnswerStream((event) => run.emit(event), {
    model: run.ctx.llm?.label,
    holds: (sentence) =>
      reverseGuardrails(sentence, run.writes, describeTool, { results: run.toolResults }).text !== sentence,
    // While a write's outcome is unknown the answer is the agent's own check, not the model's words.
    muted: run.uncheckedWrites().length > 0,
  });
}

/**
 * Applies the output and reverse guardrails, then sends the answer: the rest of what `stream`
 * has sent of it, or one replacement when the checks changed it (in chunks when nothing streamed).
 * With `sources` (the model's answer), its figures are checked against them (see `grounded`).
 */
export async function answer(
  run: Run,
  text: string,
  stream?: AnswerStream,
  sources?: readonly unknown[],
): Promise<string> {
  // The turn's reads and the writes it tried but did not run tell a read answer from a false claim.
  const reversed = reverseGuardrails(text, run.writes, describeTool, { results: run.toolResults });
  for (const g of reversed.guardrails) run.guardrails.add(g);
  const guarded = guardOutput(await checkBlocks(run, reversed.text));
  const safe = sources ? grounded(run, guarded, sources) : guarded;
  await (stream ?? new AnswerStream((event) => run.emit(event), { model: run.ctx.llm?.label })).finish(safe);
  return safe;
}

/**
 * A model's answer whose figures are all backed by `sources` (the turn's facts and tool results),
 * or the same answer with one line naming those that are not: guardrail `numbers_unverified`,
 * logged with the figures. No figure is changed.
 */
export function grounded(run: Run, text: string, sources: readonly unknown[]): string {
  const checked = groundAnswer(text, sources);
  if (checked.unverified.length === 0) return text;
  run.guardrails.add('numbers_unverified');
  run.ctx.log.warn(
    {
      requestId: run.scope.requestId,
      guardrail: 'numbers_unverified',
      figures: checked.unverified.map(({ text: stated, value, kind }) => ({ stated, value, kind })),
    },
    'answer states figures its sources do not back',
  );
  return checked.text;
}

const contentText = (content: ChatCompletionMessageParam['content']): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('\n')
      : '';

/**
 * What the model's answer in the tool loop may take its figures from: the turn's tool calls and
 * results, the computed facts, and the conversation as the model was given it (the user's words,
 * files, summaries, earlier answers that raised no doubt), but not its instructions (their example
 * figures back nothing) nor its own words of this turn.
 */
export function turnSources(run: Run, messages: readonly ChatCompletionMessageParam[]): unknown[] {
  const said = messages.slice(messages[0]?.role === 'system' ? 1 : 0).filter((m) => {
    if (m.role !== 'assistant') return true;
    return !m.tool_calls?.length && !contentText(m.content).includes(UNVERIFIED_WARNING);
  });
  return [
    ...run.toolResults.map(({ input, result }) => ({ input, result })),
    ...run.enrichments.map((e) => e.lines),
    ...said.map((m) => contentText(m.content)),
  ];
}

/** Plans the enrichments the results call for that are not applied yet, and announces them. */
export async function enrich(run: Run, results: FetchedResult[]): Promise<Enrichment[]> {
  const applied = new Set(run.enrichments.map((e) => e.type));
  const fresh = planEnrichments(results, await run.formats()).filter((e) => !applied.has(e.type));
  if (fresh.length === 0) return [];
  await run.emit({
    type: 'enrichments_planned',
    payload: { enrichments: fresh.map(({ type, description }) => ({ type, description })) },
  });
  await run.emit({ type: 'enrichments_applying', payload: { enrichments: fresh.map((e) => e.type) } });
  run.enrichments.push(...fresh);
  return fresh;
}

function plainField(field: string): string {
  const known: Record<string, string> = {
    Amount: 'Please confirm the exact amount.',
    Applications: 'Which invoice should this payment apply to?',
    ContactId: 'Which customer or vendor is this for?',
    Lines: 'What items or services should it include?',
    InvoiceId: 'Which invoice do you mean?',
    BillId: 'Which bill do you mean?',
    AccountId: 'Which account should be used?',
    PaymentId: 'Which payment do you mean?',
  };
  return (
    known[field.replace(/\[\]$/, '')] ??
    `What should ${field.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()} be?`
  );
}

/** After the retries, ask the user for what is missing, in plain words. */
export function needsInputMessage(v: ValidationResult): string {
  const fields = v.missingFields.length > 0 ? v.missingFields : v.issues.map((i) => i.field);
  const lines = v.questions?.length
    ? v.questions.map((q) => `• ${q}`)
    : fields.map((f) => `• ${plainField(f)}`);
  return `I need a few more details to ${describeTool(v.tool)}:\n${lines.join('\n')}`;
}
