import type { QueryRouted } from '@munim/contracts';
import { allPages, analyticOf, answerAnalytic } from '../analytics/answer.ts';
import { answer, answerStream, enrich, grounded } from '../answer/answer.ts';
import { complete } from '../answer/complete.ts';
import { guardOutput } from '../answer/output-guard.ts';
import { fastPathPrompt } from '../model/prompts.ts';
import { enrichmentMarkdown, enrichmentPrompt } from '../render/enrichments.ts';
import { type FetchedResult, renderResults } from '../render/format.ts';
import { AgentError } from '../run/errors.ts';
import type { Run } from '../run/run.ts';
import { toolStep } from '../tool-step/tool-step.ts';
import { llmTurn } from './llm-turn.ts';

/** A fast-path query: the routed pipeline of reads, then the model's words on them (or a table without one). */
export async function runFastPath(run: Run, data: QueryRouted) {
  // Planned, executing, and the answer's events from enrichments to complete: one message each.
  run.hold();
  try {
    await fastPath(run, data);
  } finally {
    await run.release();
  }
}

async function fastPath(run: Run, data: QueryRouted) {
  const { llm, config } = run.ctx;
  const steps = data.route.pipeline;
  const pipelineSteps = steps.map(({ tool, description, purpose }) => ({ tool, description, purpose }));
  await run.emit({ type: 'pipeline_planned', payload: { steps: pipelineSteps } });
  const analytic = analyticOf(data.route.extractedEntities);
  const results: FetchedResult[] = [];
  for (const [index, step] of steps.entries()) {
    await run.emit({
      type: 'pipeline_executing',
      payload: { step: index + 1, total: steps.length, tool: step.tool },
    });
    const outcome = await toolStep(run, step.tool, step.args, { mayConfirm: false });
    if (outcome.kind !== 'executed')
      throw new AgentError('TOOL_BLOCKED', 'I could not look that up just now.');
    if (!outcome.success)
      throw new AgentError('TOOL_FAILED', "I couldn't fetch that from your books right now.");
    const role = analytic?.inputs[index]?.role;
    const content = role ? await allPages(run, step, role, outcome.content) : outcome.content;
    results.push({ tool: step.tool, args: step.args, result: content });
  }
  if (analytic) {
    await answerByCode(run, data, pipelineSteps, analytic, results);
    return;
  }
  const enrichments = await enrich(run, results);
  let response: string;
  if (llm) {
    // The model's words go out as they come.
    await run.release();
    // Streamed through the output guard: no id or card block goes out, even for a moment.
    const stream = answerStream(run);
    const turn = await llmTurn(run, 'fast_path', {
      messages: [
        {
          role: 'system',
          content:
            `${fastPathPrompt(config.persona, await run.business())}\n\n${enrichmentPrompt(enrichments)}`.trim(),
        },
        { role: 'user', content: `${data.query}\n\nData:\n${JSON.stringify(results)}` },
      ],
      maxTokens: config.maxTokens.cheap,
      onText: stream.onText,
      onRestart: stream.restart,
    });
    // The model's figures are checked against what it was given: the question, the data, the facts.
    response = grounded(run, guardOutput(turn.content), [
      data.query,
      results,
      ...enrichments.map((e) => e.lines),
    ]);
    await stream.finish(response);
  } else {
    const formats = await run.formats();
    const rendered = renderResults(results, { formats, query: data.query, intent: data.route.intent?.name });
    response = await answer(run, rendered + enrichmentMarkdown(enrichments));
  }
  await complete(run, data, data.query, response, 'answered', { pipelineSteps });
}

/**
 * A finance question planned as an analytic: the measure computed by code from the results; in
 * those words without a model, or with one, its words on the computed facts, checked against them.
 */
async function answerByCode(
  run: Run,
  data: QueryRouted,
  pipelineSteps: { tool: string; description: string; purpose: string }[],
  request: NonNullable<ReturnType<typeof analyticOf>>,
  results: FetchedResult[],
) {
  const { llm, config } = run.ctx;
  const formats = await run.formats();
  const computed = answerAnalytic(
    request,
    results.map((r) => r.result),
    formats,
  );
  let response: string;
  if (llm) {
    await run.release();
    const stream = answerStream(run);
    const turn = await llmTurn(run, 'fast_path', {
      messages: [
        {
          role: 'system',
          content: `${fastPathPrompt(config.persona, await run.business())}\n\n${ANALYTIC_RULES}`,
        },
        {
          role: 'user',
          content: `${data.query}\n\nComputed facts:\n${JSON.stringify(computed.computed)}\n\nDraft answer:\n${computed.words}`,
        },
      ],
      maxTokens: config.maxTokens.cheap,
      onText: stream.onText,
      onRestart: stream.restart,
    });
    // Only what was computed backs its figures: the raw results hold the unfiltered ones.
    response = grounded(run, guardOutput(turn.content), [data.query, computed.computed, computed.words]);
    await stream.finish(response);
  } else {
    response = await answer(run, computed.words);
  }
  await complete(run, data, data.query, response, 'answered', { pipelineSteps });
}

const ANALYTIC_RULES =
  'The figures were computed by code from the books and are right: answer the question from the computed facts and the draft answer only, keeping every figure, name and number as given, the headline figure first. Compute nothing new. When the draft declines (a party not found, a report unreadable), say so in your words and give no other figures.';
