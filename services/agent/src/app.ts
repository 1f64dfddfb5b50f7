import { type Bus, type MessageContext, RequestFailedError, type RunningConsumer } from '@munim/bus';
import type {
  AgentEvent,
  CompletionStatus,
  ErrorCode,
  EventPayload,
  McpToolResult,
  Message,
  PipelineStep,
  QueryRouted,
  RequestScope,
  Usage,
  ValidationResult,
} from '@munim/contracts';
import type { Logger, ToolCatalog } from '@munim/kit';
import { renderResults } from './format.ts';
import {
  type ChatCompletionFunctionTool,
  type ChatCompletionMessageParam,
  type Llm,
  LlmError,
} from './llm.ts';
import { fastPathPrompt, generalChatPrompt, type Persona, unifiedPrompt } from './prompts.ts';

export interface AgentConfig {
  maxIterations: number;
  maxWriteRetries: number;
  maxTokens: { cheap: number; capable: number; chat: number };
  validateTimeoutMs: number;
  executeTimeoutMs: number;
  concurrency: number;
  persona: Persona;
}

export interface AgentDeps {
  bus: Bus;
  log: Logger;
  /** The configured model, or null when none is (fast path still works). */
  llm: Llm | null;
  tools: ToolCatalog;
  config: AgentConfig;
}

/** A failure that ends the request with an `error` event fit for the user. */
export class AgentError extends Error {
  override name = 'AgentError';
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

const NO_MODEL_MESSAGE =
  'No language model is configured, so I can only answer questions that match a known report or list. ' +
  'Set OPENAI_BASE_URL, OPENAI_API_KEY and LLM_MODEL to enable everything else.';

/** State of one request while the agent works on it. */
class Run {
  readonly usage: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  readonly toolResults: McpToolResult[] = [];
  readonly attempts = new Map<string, number>();
  /** The last blocked validation of each tool and how many times in a row it was blocked. */
  readonly blocked = new Map<string, ValidationResult>();
  readonly blockedInARow = new Map<string, number>();
  iterations = 0;
  private emitted = 0;
  private callSeq = 0;
  readonly bus: Bus;
  readonly scope: RequestScope;
  readonly traceparent: string | undefined;

  constructor(bus: Bus, scope: RequestScope, traceparent: string | undefined) {
    this.bus = bus;
    this.scope = scope;
    this.traceparent = traceparent;
  }

  /** Deterministic message ids: a redelivered request re-emits nothing JetStream has already seen. */
  emit(event: AgentEvent) {
    this.emitted += 1;
    return this.bus.emit(
      this.scope,
      event,
      this.traceparent,
      `${this.scope.requestId}:agent:${this.emitted}`,
    );
  }

  nextCallId(): string {
    this.callSeq += 1;
    return `${this.scope.requestId}:${this.callSeq}`;
  }

  addUsage(u: Usage) {
    this.usage.input_tokens += u.input_tokens;
    this.usage.output_tokens += u.output_tokens;
    this.usage.total_tokens += u.total_tokens;
  }
}

type ToolOutcome =
  | { kind: 'blocked'; validation: ValidationResult }
  | { kind: 'executed'; success: boolean; content: unknown; error?: string };

/** The agent: fast-path pipelines and the LLM tool-calling loop, every call through validator and executor. */
export async function buildAgent(deps: AgentDeps) {
  const { bus, log, llm, config } = deps;
  let consumer: RunningConsumer | undefined;

  /** Validate, then execute: no call reaches the executor without passing the validator. */
  const callTool = async (run: Run, tool: string, rawArguments: string | Record<string, unknown>) => {
    const attempt = (run.attempts.get(tool) ?? 0) + 1;
    run.attempts.set(tool, attempt);
    if (attempt > 1 && run.blocked.has(tool)) {
      await run.emit({
        type: 'tool_retry',
        payload: { tool, attempt, reason: 'Previous attempt blocked by pre-flight validation' },
      });
    }
    const callId = run.nextCallId();
    let args: unknown;
    let rawArgs: string | undefined;
    if (typeof rawArguments === 'string') {
      try {
        args = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
      } catch {
        rawArgs = rawArguments;
      }
    } else {
      args = rawArguments;
    }
    const validation = await bus.request(
      'toolValidate',
      run.scope,
      { tool, callId, attempt, ...(rawArgs === undefined ? { args } : { rawArgs }) },
      { timeoutMs: config.validateTimeoutMs, traceparent: run.traceparent },
    );
    if (validation.status === 'blocked') {
      run.blocked.set(tool, validation);
      run.blockedInARow.set(tool, (run.blockedInARow.get(tool) ?? 0) + 1);
      run.toolResults.push({ tool, input: args, error: validation.message, success: false });
      return { kind: 'blocked', validation } satisfies ToolOutcome;
    }
    run.blocked.delete(tool);
    run.blockedInARow.delete(tool);
    const execution = await bus.request(
      'toolExecute',
      run.scope,
      {
        tool,
        args: validation.args ?? {},
        callId,
        isWrite: validation.isWrite,
        argsHash: validation.argsHash,
      },
      { timeoutMs: config.executeTimeoutMs, traceparent: run.traceparent },
    );
    run.toolResults.push({
      tool,
      input: validation.args,
      ...(execution.success ? { result: execution.result } : { error: execution.error?.message ?? 'failed' }),
      success: execution.success,
    });
    return {
      kind: 'executed',
      success: execution.success,
      content: execution.success
        ? execution.result
        : { error: execution.error?.message ?? 'The tool failed.' },
      ...(execution.success ? {} : { error: execution.error?.message ?? 'failed' }),
    } satisfies ToolOutcome;
  };

  const complete = async (
    run: Run,
    data: QueryRouted,
    response: string,
    status: CompletionStatus,
    extra: { pipelineSteps?: PipelineStep[]; llmModel?: string } = {},
  ) => {
    const payload: EventPayload<'complete'> = {
      query: data.query,
      path: data.route.path,
      category: data.route.category,
      matchedIntent: data.route.intent,
      extractedEntities: data.route.extractedEntities,
      reasoning: data.route.reasoning,
      pipelineSteps: extra.pipelineSteps ?? [],
      enrichments: [],
      responseFormat: 'markdown',
      response,
      mcpToolResults: run.toolResults,
      dataSources: [...new Set(run.toolResults.filter((r) => r.success).map((r) => r.tool))],
      llmModel: extra.llmModel ?? '',
      iterationCount: run.iterations,
      usage: run.usage,
      status,
    };
    await run.emit({ type: 'complete', payload });
  };

  const streamAnswer = async (
    run: Run,
    messages: ChatCompletionMessageParam[],
    maxTokens: number,
    activeLlm: Llm,
  ): Promise<string> => {
    await run.emit({ type: 'response_generating', payload: { model: activeLlm.label } });
    const turn = await activeLlm.turn({
      messages,
      maxTokens,
      onText: async (text) => void (await run.emit({ type: 'response_chunk', payload: { text } })),
    });
    run.iterations += 1;
    run.addUsage(turn.usage);
    return turn.content;
  };

  const runFastPath = async (run: Run, data: QueryRouted) => {
    const steps = data.route.pipeline;
    const pipelineSteps = steps.map(({ tool, description, purpose }) => ({ tool, description, purpose }));
    await run.emit({ type: 'pipeline_planned', payload: { steps: pipelineSteps } });
    const results: { title: string; result: unknown }[] = [];
    for (const [index, step] of steps.entries()) {
      await run.emit({
        type: 'pipeline_executing',
        payload: { step: index + 1, total: steps.length, tool: step.tool },
      });
      const outcome = await callTool(run, step.tool, step.args);
      if (outcome.kind === 'blocked')
        throw new AgentError('TOOL_BLOCKED', 'I could not look that up just now.');
      if (!outcome.success)
        throw new AgentError('TOOL_FAILED', "I couldn't fetch that from your books right now.");
      results.push({ title: step.description, result: outcome.content });
    }
    let response: string;
    if (llm) {
      response = await streamAnswer(
        run,
        [
          { role: 'system', content: fastPathPrompt(config.persona) },
          { role: 'user', content: `${data.query}\n\nData:\n${JSON.stringify(results)}` },
        ],
        config.maxTokens.cheap,
        llm,
      );
    } else {
      await run.emit({ type: 'response_generating', payload: {} });
      response = renderResults(results);
      await run.emit({ type: 'response_chunk', payload: { text: response } });
    }
    await complete(run, data, response, 'answered', { pipelineSteps, llmModel: llm?.label ?? '' });
  };

  const runLlmPath = async (run: Run, data: QueryRouted) => {
    if (!llm) throw new AgentError('NO_MODEL_CONFIGURED', NO_MODEL_MESSAGE);
    const { route } = data;
    if (route.category === 'general_chat') {
      const response = await streamAnswer(
        run,
        [
          { role: 'system', content: generalChatPrompt(config.persona) },
          { role: 'user', content: data.query },
        ],
        config.maxTokens.chat,
        llm,
      );
      await complete(run, data, response, 'answered', { llmModel: llm.label });
      return;
    }

    const registry = await deps.tools.list(run.scope, run.traceparent);
    const byName = new Map(registry.map((t) => [t.name, t]));
    const offered = new Set(route.tools.filter((name) => byName.has(name)));
    const toolDefs = (): ChatCompletionFunctionTool[] =>
      [...offered].flatMap((name) => {
        const def = byName.get(name);
        if (!def) return [];
        return [
          {
            type: 'function' as const,
            function: { name, description: def.description ?? name, parameters: def.inputSchema },
          },
        ];
      });
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: unifiedPrompt(config.persona) },
      { role: 'user', content: data.query },
    ];
    const maxTokens = route.tier === 'capable' ? config.maxTokens.capable : config.maxTokens.cheap;

    while (run.iterations < config.maxIterations) {
      let streamed = false;
      const turn = await llm.turn({
        messages,
        tools: toolDefs(),
        maxTokens,
        onText: async (text) => {
          if (!streamed) await run.emit({ type: 'response_generating', payload: { model: llm.label } });
          streamed = true;
          await run.emit({ type: 'response_chunk', payload: { text } });
        },
      });
      run.iterations += 1;
      run.addUsage(turn.usage);
      if (turn.toolCalls.length === 0) {
        await complete(run, data, turn.content, 'answered', { llmModel: llm.label });
        return;
      }
      messages.push({
        role: 'assistant',
        content: turn.content || null,
        tool_calls: turn.toolCalls.map((c) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: c.arguments },
        })),
      });
      for (const call of turn.toolCalls) {
        const content = await toolMessage(run, call.name, call.arguments, offered);
        messages.push({ role: 'tool', tool_call_id: call.id, content });
      }
      const exhausted = [...run.blocked.values()].find(
        (v) => v.isWrite && (run.blockedInARow.get(v.tool) ?? 0) > config.maxWriteRetries,
      );
      if (exhausted) {
        const response = needsInputMessage(exhausted);
        await run.emit({ type: 'response_chunk', payload: { text: response } });
        await complete(run, data, response, 'needs_input', { llmModel: llm.label });
        return;
      }
    }
    throw new AgentError(
      'MAX_ITERATIONS',
      'That took more steps than I am allowed. Could you break the request into smaller parts?',
    );
  };

  /** Runs one call and renders what the LLM is told about it. */
  const toolMessage = async (run: Run, name: string, rawArguments: string, offered: Set<string>) => {
    if (!offered.has(name)) {
      return JSON.stringify({
        success: false,
        error: { type: 'TOOL_NOT_OFFERED', message: `The tool ${name} is not available for this request.` },
      });
    }
    const outcome = await callTool(run, name, rawArguments);
    if (outcome.kind === 'blocked') {
      const v = outcome.validation;
      // A tool named in the guidance is offered next turn even if routing had filtered it out.
      for (const suggested of v.suggestedTools) offered.add(suggested);
      return JSON.stringify({
        success: false,
        error: {
          type: 'VALIDATION_ERROR',
          message: v.message,
          missing_fields: v.missingFields,
          details: v.issues,
        },
      });
    }
    return JSON.stringify(outcome.success ? outcome.content : { success: false, error: outcome.error });
  };

  const handle = async (message: Message<QueryRouted>, ctx: MessageContext) => {
    const run = new Run(bus, message, ctx.traceparent);
    const data = message.data;
    try {
      if (data.mcqResponse) {
        throw new AgentError(
          'NOT_FOUND',
          'There is no pending confirmation with that id in this conversation.',
        );
      }
      if (data.route.path === 'fast') await runFastPath(run, data);
      else await runLlmPath(run, data);
    } catch (error) {
      const { code, message: text } = toUserError(error);
      if (!(error instanceof AgentError))
        log.error({ err: error, requestId: message.requestId }, 'request failed');
      await run.emit({ type: 'error', payload: { code, message: text } });
    }
  };

  return {
    async start() {
      consumer = await bus.consume('queryRouted', handle, {
        durable: 'agent',
        concurrency: config.concurrency,
        ackWaitMs: 60_000,
        onGiveUp: async (message) => {
          await bus.emit(message, {
            type: 'error',
            payload: { code: 'INTERNAL', message: 'Sorry, I could not finish that request.' },
          });
        },
      });
    },
    async stop() {
      await consumer?.stop();
    },
  };
}

/** Seed 000 §6.2: after the retries, ask the user for what is missing, in plain words. */
function needsInputMessage(v: ValidationResult): string {
  const fields = v.missingFields.length > 0 ? v.missingFields : v.issues.map((i) => i.field);
  const lines = fields.map((f) => `• ${plainField(f)}`);
  return `I need a few more details to ${plainTool(v.tool)}:\n${lines.join('\n')}`;
}

function plainTool(tool: string): string {
  const [verb, ...rest] = tool.split('_');
  return `${verb} the ${rest.join(' ')}`.replace(/ies$/, 'y');
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

function toUserError(error: unknown): { code: ErrorCode; message: string } {
  if (error instanceof AgentError) return { code: error.code, message: error.message };
  if (error instanceof LlmError) {
    return {
      code: 'LLM_UNAVAILABLE',
      message: 'The language model is not reachable right now. Please try again shortly.',
    };
  }
  if (error instanceof RequestFailedError) {
    if (error.code === 'TIMEOUT')
      return { code: 'TIMEOUT', message: 'That took too long. Please try again.' };
    return {
      code: 'SERVICE_UNAVAILABLE',
      message: "I couldn't complete that right now. Please try again shortly.",
    };
  }
  return { code: 'INTERNAL', message: "I couldn't complete that right now." };
}
