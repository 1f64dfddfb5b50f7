import type { Usage } from '@munim/contracts';
import { estimateTokens, lazyCounter, lazyHistogram, tracer } from '@munim/kit';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Llm, LlmTurn } from '../model/llm.ts';
import { AgentError, NO_MODEL_MESSAGE } from '../run/errors.ts';
import type { Run } from '../run/run.ts';

/** LLM metrics with the GenAI semantic conventions' names. */
const llmTokens = lazyCounter('gen_ai.client.token.usage', 'LLM tokens used', '{token}');
const llmDuration = lazyHistogram('gen_ai.client.operation.duration', 'LLM call time', 's');

/** One LLM call, its usage counted and logged per call site, so the cost of each kind of call can be read apart. */
export async function llmTurn(
  run: Run,
  section: string,
  input: Parameters<Llm['turn']>[0],
): Promise<LlmTurn> {
  const { llm, tokenQuota, store, log } = run.ctx;
  if (!llm) throw new AgentError('NO_MODEL_CONFIGURED', NO_MODEL_MESSAGE);
  const promptTokens = estimateTokens(JSON.stringify([input.messages, input.tools ?? []]));
  const reserve = await tokenQuota?.reserve(run.scope, promptTokens + input.maxTokens);
  if (reserve && 'refused' in reserve) throw new AgentError('RATE_LIMITED', reserve.refused);
  const reservation = reserve?.reserved ?? null;
  const started = performance.now();
  const [system, model] = llm.label.split('/', 2);
  const span = tracer().startSpan(`chat ${model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': system ?? 'openai',
      'gen_ai.request.model': model ?? llm.label,
      'gen_ai.request.max_tokens': input.maxTokens,
      'munim.request_id': run.scope.requestId,
      'munim.llm.section': section,
    },
  });
  try {
    const answered = await llm.turn(input);
    const turn = { ...answered, usage: reportedOrEstimated(answered, promptTokens) };
    // A fallback may have answered: its name is what the usage, the metrics and `complete` carry.
    const label = answered.label ?? llm.label;
    const answeredModel = label.split('/', 2)[1] ?? label;
    run.answeredBy = label;
    span.setAttributes({
      'gen_ai.usage.input_tokens': turn.usage.input_tokens,
      'gen_ai.usage.output_tokens': turn.usage.output_tokens,
    });
    span.setAttribute('gen_ai.response.model', answeredModel);
    const attributes = { 'gen_ai.request.model': answeredModel, 'munim.llm.section': section };
    llmTokens().add(turn.usage.input_tokens, { ...attributes, 'gen_ai.token.type': 'input' });
    llmTokens().add(turn.usage.output_tokens, { ...attributes, 'gen_ai.token.type': 'output' });
    llmDuration().record((performance.now() - started) / 1000, attributes);
    run.iterations += 1;
    run.addUsage(turn.usage);
    // Counted before the answer goes out, so the tenant's next query already sees it.
    await tokenQuota?.settle(reservation, turn.usage.total_tokens);
    void store
      .logUsage({
        scope: run.scope,
        model: label,
        section,
        usage: turn.usage,
        latencyMs: performance.now() - started,
        status: 'success',
      })
      .catch((error: unknown) => log.warn({ err: error }, 'could not log LLM usage'));
    return turn;
  } catch (error) {
    // A failed call may still have been billed for its prompt, so that much stays counted.
    await tokenQuota?.settle(reservation, promptTokens);
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
    void store
      .logUsage({
        scope: run.scope,
        model: llm.label,
        section,
        usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
        latencyMs: performance.now() - started,
        status: 'error',
        error: error instanceof Error ? error.message.slice(0, 500) : String(error),
      })
      .catch(() => undefined);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * The usage the endpoint reported, or, when it reported none (some OpenAI-compatible servers send
 * no usage in a stream), an estimate from the prompt and the answer (see `estimateTokens`), so a
 * call is never counted as free.
 */
function reportedOrEstimated(turn: LlmTurn, promptTokens: number): Usage {
  if (turn.usage.total_tokens > 0) return turn.usage;
  const output = estimateTokens(turn.content + turn.toolCalls.map((c) => c.name + c.arguments).join(''));
  return { input_tokens: promptTokens, output_tokens: output, total_tokens: promptTokens + output };
}
