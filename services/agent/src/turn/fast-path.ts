import type { QueryRouted } from '@munim/contracts';
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
    results.push({ tool: step.tool, args: step.args, result: outcome.content });
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
