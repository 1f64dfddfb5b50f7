import { traceIdOf } from '@munim/bus';
import type {
  CompletionStatus,
  EventPayload,
  McpToolResult,
  PipelineStep,
  QueryRouted,
} from '@munim/contracts';
import { isRecord } from '@munim/contracts';
import type { ConversationMessage } from '@munim/db';
import type { Run } from '../run/run.ts';
import { AnswerStream } from './answer-stream.ts';

/** The query a request answers and how it was routed. */
export type Asked = Pick<QueryRouted, 'query' | 'route' | 'debug'>;

/** The last paged list a request showed, for "show more". */
function lastList(results: McpToolResult[]) {
  const list = [...results].reverse().find((r) => r.success && isRecord(r.input) && 'Page' in r.input);
  return list ? { tool: list.tool, args: list.input } : undefined;
}

/** Documents a request created, for follow-ups like "show that invoice". */
function createdDocuments(results: McpToolResult[]) {
  return results
    .filter((r) => r.success && r.tool.startsWith('create_') && isRecord(r.result))
    .map((r) => {
      const record = r.result as Record<string, unknown>;
      const number = Object.entries(record).find(([k, v]) => /Number$/.test(k) && typeof v === 'string')?.[1];
      const id = Object.entries(record).find(([k, v]) => /Id$/.test(k) && typeof v === 'string')?.[1];
      return {
        tool: r.tool,
        ...(number ? { number: String(number) } : {}),
        ...(id ? { id: String(id) } : {}),
      };
    });
}

/**
 * Persists the turn, then emits `complete`: a follow-up sent right after sees this turn. Before
 * it, the stream is brought to show `response` (its rest, or one replacement), whatever path wrote
 * it: a client that renders only the stream shows the answer `complete` carries.
 */
export async function complete(
  run: Run,
  data: Asked,
  userText: string,
  response: string,
  status: CompletionStatus,
  extra: {
    pipelineSteps?: PipelineStep[];
    actionId?: string;
    /** What a decision on an approval came to. */
    approval?: EventPayload<'complete'>['approval'];
  } = {},
) {
  const { llm, store, log } = run.ctx;
  const turn: ConversationMessage[] = [
    {
      role: 'user',
      content: userText,
      requestId: run.scope.requestId,
      ts: new Date().toISOString(),
      ...(run.attachments.length > 0 ? { metadata: { attachments: run.attachments } } : {}),
    },
    {
      role: 'assistant',
      content: response,
      requestId: run.scope.requestId,
      ts: new Date().toISOString(),
      metadata: {
        status,
        path: data.route.path,
        category: data.route.category,
        intent: data.route.intent?.name ?? null,
        tools: run.toolResults.filter((r) => r.success).map((r) => r.tool),
        createdDocuments: createdDocuments(run.toolResults),
        lastList: lastList(run.toolResults),
        model: run.answeredBy ?? llm?.label ?? null,
        ...(extra.actionId ? { actionId: extra.actionId } : {}),
      },
    },
  ];
  if (run.shown !== response)
    await new AnswerStream((event) => run.emit(event), { shown: run.shown }).finish(response);
  await store
    .appendTurn(run.scope, turn, { fresh: run.newConversation })
    .catch((error: unknown) =>
      log.warn({ err: error, requestId: run.scope.requestId }, 'could not save turn'),
    );
  const payload: EventPayload<'complete'> = {
    query: data.query,
    path: data.route.path,
    category: data.route.category,
    matchedIntent: data.route.intent,
    extractedEntities: data.route.extractedEntities,
    reasoning: data.route.reasoning,
    pipelineSteps: extra.pipelineSteps ?? [],
    enrichments: run.enrichments.map(({ type, description }) => ({ type, description })),
    responseFormat: 'markdown',
    response,
    // The tools' inputs and full results only where a caller allowed to debug asked: the stream,
    // its consumers and the database carry an answer, not every record its tools returned.
    mcpToolResults: data.debug
      ? run.toolResults
      : run.toolResults.map(({ tool, success, error, write }) => ({
          tool,
          success,
          ...(error ? { error } : {}),
          ...(write !== undefined ? { write } : {}),
        })),
    dataSources: [...new Set(run.toolResults.filter((r) => r.success).map((r) => r.tool))],
    // The model that answered: a fallback's name when the default failed over.
    llmModel: run.usage.total_tokens > 0 || run.iterations > 0 ? (run.answeredBy ?? llm?.label ?? '') : '',
    iterationCount: run.iterations,
    usage: run.usage,
    status,
    ...(run.guardrails.size > 0 ? { guardrails: [...run.guardrails] } : {}),
    ...(extra.actionId ? { actionId: extra.actionId } : {}),
    ...(extra.approval ? { approval: extra.approval } : {}),
    ...(traceIdOf(run.traceparent) ? { traceId: traceIdOf(run.traceparent) } : {}),
  };
  await run.emit({ type: 'complete', payload });
}
