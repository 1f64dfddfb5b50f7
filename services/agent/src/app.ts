import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Bus,
  type MessageContext,
  RequestFailedError,
  type RunningConsumer,
  traceIdOf,
} from '@munim/bus';
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
  ToolContainer,
  ToolDefinition,
  Usage,
  ValidationResult,
} from '@munim/contracts';
import { parseToolName, singular, TERMINAL_EVENT_TYPES } from '@munim/contracts';
import { type ConversationMessage, quickSuggestions } from '@munim/db';
import {
  type Logger,
  lazyCounter,
  lazyHistogram,
  primaryToolGroup,
  type ToolCatalog,
  tracer,
} from '@munim/kit';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  ATTACHMENT_RULES,
  type AttachmentRef,
  type AttachmentSource,
  earlierFiles,
  refOf,
  userMessage,
  type VisionMode,
  visionCapable,
  withoutImages,
} from './attachments.ts';
import {
  confirmationQuestion,
  confirmWord,
  describeChanges,
  describeTool,
  idArgs,
  PLAIN_YES,
  recordLabel,
} from './confirm.ts';
import { type Enrichment, enrichmentMarkdown, enrichmentPrompt, planEnrichments } from './enrichments.ts';
import { renderResults } from './format.ts';
import { guardOutput, reverseGuardrails, unknownOutcomeText, type WriteOutcome } from './guardrails.ts';
import {
  type ChatCompletionFunctionTool,
  type ChatCompletionMessageParam,
  type Llm,
  LlmError,
  type LlmTurn,
} from './llm.ts';
import { fastPathPrompt, generalChatPrompt, type Persona, SUMMARY_PROMPT, unifiedPrompt } from './prompts.ts';
import type { TokenQuota } from './quota.ts';
import { asksForChange } from './requested.ts';
import { smallTalkAnswer } from './small-talk.ts';
import { type AgentStore, ConversationForbiddenError, type PendingAction } from './store.ts';

export interface AgentConfig {
  maxIterations: number;
  maxWriteRetries: number;
  maxTokens: { cheap: number; capable: number; chat: number };
  validateTimeoutMs: number;
  executeTimeoutMs: number;
  concurrency: number;
  /** Unacknowledged this long, a query goes to another instance (default 60 s). */
  ackWaitMs?: number;
  persona: Persona;
  confirmTtlMs: number;
  historyMessages: number;
  /** Images go to the model: on, off, or by its name. */
  vision?: VisionMode;
  /** Characters of attachment text given to the model per query. */
  attachmentMaxChars?: number;
}

export interface AgentDeps {
  bus: Bus;
  log: Logger;
  /** The configured model, or null when none is (fast path still works). */
  llm: Llm | null;
  tools: ToolCatalog;
  store: AgentStore;
  config: AgentConfig;
  /** Uploaded files (`attachmentIds` of a query); without it such queries end with an error. */
  attachments?: AttachmentSource | undefined;
  /** The per-tenant model token quota; without it model calls are not limited. */
  tokenQuota?: TokenQuota | undefined;
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

/** LLM metrics with the GenAI semantic conventions' names. */
const llmTokens = lazyCounter('gen_ai.client.token.usage', 'LLM tokens used', '{token}');
const llmDuration = lazyHistogram('gen_ai.client.operation.duration', 'LLM call time', 's');

/** Records per page injected into list calls. */
const PAGE_SIZE = 50;

/** Seed 003 §6.7: summarize above 20 messages, keeping the last 10 verbatim. */
const SUMMARIZE_ABOVE = 20;
const KEEP_RECENT = 10;

const SKIPPED_CALL =
  'Not run: another change in the same step needed the user to confirm first. Call it again if it is still needed.';

/** The LLM loop as it stood when a write was put to the user, kept with the pending action. */
interface LoopState {
  messages: ChatCompletionMessageParam[];
  offered: string[];
  /** Containers (seed 001) still collapsed. */
  containers: ToolContainer[];
  iterations: number;
  usage: Usage;
  toolResults: McpToolResult[];
  skippedToolCallIds: string[];
  query: string;
  route: QueryRouted['route'];
  /** The user's message did not ask for the proposed change (injected by something read). */
  unrequested?: boolean;
  /** The record the change acts on, in words. */
  record?: string;
}

type ConfirmationStep = EventPayload<'confirmation'>['step'];

/**
 * One step of a pending action's life, as a `confirmation` event bound to its argument hash. A step
 * happens once in a request, whichever delivery takes it: one that finishes a write its dead
 * predecessor approved says so again, and the stream keeps the first saying only.
 */
const emitStep = (run: Run, pending: PendingAction, step: ConfirmationStep, reason?: string) =>
  run.emitOnce(
    {
      type: 'confirmation',
      payload: {
        actionId: pending.actionId,
        step,
        tool: pending.tool,
        tier: pending.tier,
        args_hash: pending.argsHash,
        ...(reason ? { reason } : {}),
      },
    },
    `${pending.actionId}:${step}`,
  );

/** The first object (three levels deep at most) one of whose own values is `id`. */
function holding(value: unknown, id: string, depth = 0): Record<string, unknown> | undefined {
  if (depth > 3 || value === null || typeof value !== 'object') return undefined;
  const children = Array.isArray(value) ? value : Object.values(value);
  if (!Array.isArray(value) && children.some((v) => v === id)) return value as Record<string, unknown>;
  for (const child of children) {
    const found = holding(child, id, depth + 1);
    if (found) return found;
  }
  return undefined;
}

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

/** Whether `tool` concerns the records `write` changed: the same tool group (any tool when the write is in none). */
function sameRecords(tool: string, write: string): boolean {
  const group = primaryToolGroup(write);
  return group === null || primaryToolGroup(tool) === group;
}

/** A tool message for a call the agent did not run, saying why. */
function notRun(toolCallId: string, type: string, message: string): ChatCompletionMessageParam {
  return {
    role: 'tool',
    tool_call_id: toolCallId,
    content: JSON.stringify({ success: false, error: { type, message } }),
  };
}

/** Why a write did not run where no one could confirm it. */
const UNCONFIRMABLE =
  'A change to the books needs your confirmation, and it cannot be asked for here, so it was not made.';

/** More tries of a validation or tool call that no instance answered (timeout, no responder). */
const UNANSWERED_RETRIES = 2;
/** Pause before sending again where no instance was up (times the try). */
const UNANSWERED_PAUSE_MS = 500;

/** The guardrail recorded once the LLM was told to check a write of unknown outcome. */
const CHECK_ASKED = 'unknown_outcome_check_asked';

/** State of one request while the agent works on it. */
class Run {
  usage: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  toolResults: McpToolResult[] = [];
  readonly writes: WriteOutcome[] = [];
  readonly guardrails = new Set<string>();
  readonly enrichments: Enrichment[] = [];
  readonly attempts = new Map<string, number>();
  /** The last blocked validation of each tool and how many times in a row it was blocked. */
  readonly blocked = new Map<string, ValidationResult>();
  readonly blockedInARow = new Map<string, number>();
  iterations = 0;
  /** Files attached to this request, kept with its user message in the conversation. */
  attachments: AttachmentRef[] = [];
  private emitted = 0;
  private callSeq = 0;
  readonly bus: Bus;
  readonly scope: RequestScope;
  readonly traceparent: string | undefined;
  /** Which delivery of the request this is (1, or more when another instance died holding it). */
  readonly delivery: number;

  constructor(bus: Bus, scope: RequestScope, traceparent: string | undefined, delivery = 1) {
    this.bus = bus;
    this.scope = scope;
    this.traceparent = traceparent;
    this.delivery = delivery;
  }

  /**
   * Deterministic message ids within one delivery, so a publish repeated by it is stored once. A
   * redelivery counts its own: it does not take the path its dead predecessor took (it finishes
   * an approved write without approving it again; a model may answer it in other words), so its
   * n-th event is not the first one's, and under the same id JetStream would drop it as a
   * duplicate — its `complete` included.
   */
  emit(event: AgentEvent) {
    this.emitted += 1;
    const delivery = this.delivery > 1 ? `${this.delivery}:` : '';
    return this.bus.emit(
      this.scope,
      event,
      this.traceparent,
      `${this.scope.requestId}:agent:${delivery}${this.emitted}`,
    );
  }

  /** An event that happens once in the request whichever delivery emits it, `what` naming it. */
  emitOnce(event: AgentEvent, what: string) {
    return this.bus.emit(this.scope, event, this.traceparent, `${this.scope.requestId}:agent:${what}`);
  }

  /** Writes that may or may not have run and that no read has checked yet. */
  uncheckedWrites(): WriteOutcome[] {
    return this.writes.filter((w) => w.unknown && !w.checked);
  }

  nextCallId(): string {
    this.callSeq += 1;
    return `${this.scope.requestId}:${this.callSeq}`;
  }

  addUsage(u: Usage) {
    this.usage = {
      input_tokens: this.usage.input_tokens + u.input_tokens,
      output_tokens: this.usage.output_tokens + u.output_tokens,
      total_tokens: this.usage.total_tokens + u.total_tokens,
    };
  }
}

type ToolStep =
  | { kind: 'blocked'; validation: ValidationResult }
  | { kind: 'confirm'; validation: ValidationResult; callId: string }
  | { kind: 'executed'; success: boolean; content: unknown; error?: string };

/** The agent: fast-path pipelines and the LLM tool-calling loop, every call through validator and executor. */
export async function buildAgent(deps: AgentDeps) {
  const { bus, log, llm, config, store } = deps;
  const attachmentMaxChars = config.attachmentMaxChars ?? 30_000;
  let consumer: RunningConsumer | undefined;

  /** One LLM call, its usage counted and logged per call site (seed 003 §1.4). */
  const llmTurn = async (run: Run, section: string, input: Parameters<Llm['turn']>[0]): Promise<LlmTurn> => {
    if (!llm) throw new AgentError('NO_MODEL_CONFIGURED', NO_MODEL_MESSAGE);
    const overQuota = await deps.tokenQuota?.refusal(run.scope);
    if (overQuota) throw new AgentError('RATE_LIMITED', overQuota);
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
      const turn = await llm.turn(input);
      span.setAttributes({
        'gen_ai.usage.input_tokens': turn.usage.input_tokens,
        'gen_ai.usage.output_tokens': turn.usage.output_tokens,
      });
      const attributes = { 'gen_ai.request.model': model ?? llm.label, 'munim.llm.section': section };
      llmTokens().add(turn.usage.input_tokens, { ...attributes, 'gen_ai.token.type': 'input' });
      llmTokens().add(turn.usage.output_tokens, { ...attributes, 'gen_ai.token.type': 'output' });
      llmDuration().record((performance.now() - started) / 1000, attributes);
      run.iterations += 1;
      run.addUsage(turn.usage);
      // Counted before the answer goes out, so the tenant's next query already sees it.
      await deps.tokenQuota?.record(run.scope, turn.usage.total_tokens);
      void store
        .logUsage({
          scope: run.scope,
          model: llm.label,
          section,
          usage: turn.usage,
          latencyMs: performance.now() - started,
          status: 'success',
        })
        .catch((error: unknown) => log.warn({ err: error }, 'could not log LLM usage'));
      return turn;
    } catch (error) {
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
  };

  /** Whether a request has ended: its last stored event is its `complete` or `error`. */
  const ended = async (requestId: string): Promise<boolean> => {
    const last = await bus.lastEvent(requestId).catch((error: unknown) => {
      log.warn({ err: error, requestId }, 'could not look up how far the request got');
      return null;
    });
    return last !== null && TERMINAL_EVENT_TYPES.includes(last.message.data.type);
  };

  /**
   * Sends a request that is safe to repeat again when no instance answered it (the one that had it
   * died, or none was up for a moment): a validation, or a call the executor runs at most once
   * whatever reaches it twice (a write by its idempotency key, its approval found again).
   */
  const unlessUnanswered = async <T>(run: Run, what: string, send: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await send();
      } catch (error) {
        if (!(error instanceof RequestFailedError) || !error.unanswered || attempt > UNANSWERED_RETRIES)
          throw error;
        log.warn(
          { err: error, requestId: run.scope.requestId, attempt },
          `${what} unanswered; sending it again`,
        );
        if (error.code !== 'TIMEOUT') await sleep(UNANSWERED_PAUSE_MS * attempt);
      }
    }
  };

  const validate = (run: Run, tool: string, args: unknown, rawArgs: string | undefined, callId: string) =>
    unlessUnanswered(run, 'validation', () =>
      bus.request(
        'toolValidate',
        run.scope,
        {
          tool,
          callId,
          attempt: run.attempts.get(tool) ?? 1,
          ...(rawArgs === undefined ? { args } : { rawArgs }),
        },
        { timeoutMs: config.validateTimeoutMs, traceparent: run.traceparent },
      ),
    );

  /**
   * Runs a validated call; a write needs `approvalId`, the pending action the user approved. Sent
   * again when its executor died with it: a write then comes back with its stored outcome, or as
   * `unknown` (never sent twice) if the dead one may have sent it.
   */
  const execute = async (run: Run, validation: ValidationResult, callId: string, approvalId?: string) => {
    const execution = await unlessUnanswered(run, `${validation.tool} call`, () =>
      bus.request(
        'toolExecute',
        run.scope,
        {
          tool: validation.tool,
          args: validation.args ?? {},
          callId,
          isWrite: validation.isWrite,
          argsHash: validation.argsHash,
          ...(approvalId ? { approvalId } : {}),
        },
        { timeoutMs: config.executeTimeoutMs, traceparent: run.traceparent },
      ),
    );
    run.toolResults.push({
      tool: validation.tool,
      input: validation.args,
      ...(execution.success ? { result: execution.result } : { error: execution.error?.message ?? 'failed' }),
      success: execution.success,
    });
    if (validation.isWrite) {
      run.writes.push({
        tool: validation.tool,
        success: execution.success,
        ...(execution.outcome === 'unknown' ? { unknown: true, args: validation.args ?? {} } : {}),
      });
    } else if (execution.success) {
      for (const w of run.uncheckedWrites()) if (sameRecords(validation.tool, w.tool)) w.checked = true;
    }
    return execution;
  };

  /**
   * The read that shows whether a write whose outcome is unknown was applied: a read of the same
   * tool group that needs no arguments (a list), the `all` one first.
   */
  const checkingRead = async (run: Run, write: string): Promise<ToolDefinition | undefined> => {
    const group = primaryToolGroup(write);
    if (!group) return undefined;
    const readers = (await deps.tools.list(run.scope, run.traceparent)).filter(
      (t) =>
        !t.isWrite &&
        primaryToolGroup(t.name) === group &&
        !(Array.isArray(t.inputSchema.required) && t.inputSchema.required.length > 0),
    );
    const rank = (t: ToolDefinition) => (t.name.includes('_all_') ? 0 : 1);
    return readers.sort((a, b) => rank(a) - rank(b) || a.name.length - b.name.length)[0];
  };

  /** The unchecked write of unknown outcome that a call of `tool`, a write of the same records, could repeat. */
  const unsettledBy = async (run: Run, tool: string): Promise<WriteOutcome | undefined> => {
    const unchecked = run.uncheckedWrites().find((w) => sameRecords(tool, w.tool));
    if (!unchecked) return undefined;
    const def = await deps.tools.find(tool, run.scope, run.traceparent);
    return def?.isWrite ? unchecked : undefined;
  };

  /**
   * When the LLM will not check a write whose outcome is unknown, the agent does: it runs the
   * checking read and shows the records as they stand, so the user can see whether it was applied.
   */
  const checkUnknown = async (run: Run, write: Pick<WriteOutcome, 'tool' | 'args'>): Promise<string> => {
    run.guardrails.add('unknown_outcome_checked');
    const reader = await checkingRead(run, write.tool);
    if (!reader) return unknownOutcomeText(describeTool, write.tool);
    const step = await toolStep(run, reader.name, searchArgs(reader, write.args ?? {}), {
      mayConfirm: false,
    });
    if (step.kind !== 'executed' || !step.success) return unknownOutcomeText(describeTool, write.tool);
    const next = 'Here is what your books show now; check whether it is there before trying again:';
    return `${unknownOutcomeText(describeTool, write.tool, next)}\n\n${renderResults([
      { title: reader.description ?? reader.name, result: step.content },
    ])}`;
  };

  /**
   * List tools get an explicit first page (seed 003 §2.3 "pagination injection"), so every list
   * answer says which page it is and "show more" can ask for the next one.
   */
  const withPagination = async (run: Run, tool: string, args: unknown): Promise<unknown> => {
    if (!isRecord(args) || 'Page' in args) return args;
    const def = (await deps.tools.list(run.scope, run.traceparent)).find((t) => t.name === tool);
    const properties = def?.inputSchema.properties;
    if (def?.isWrite || !isRecord(properties) || !('Page' in properties)) return args;
    return {
      ...args,
      Page: 1,
      ...('PageSize' in properties && !('PageSize' in args) ? { PageSize: PAGE_SIZE } : {}),
    };
  };

  /** Validate; then either stop for confirmation or execute. Nothing runs without passing the validator. */
  const toolStep = async (
    run: Run,
    tool: string,
    rawArguments: string | Record<string, unknown>,
    opts: { mayConfirm: boolean },
  ): Promise<ToolStep> => {
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
    args = await withPagination(run, tool, args);
    const validation = await validate(run, tool, args, rawArgs, callId);
    for (const g of validation.guardrails) if (g !== 'write_preflight_block') run.guardrails.add(g);
    if (validation.status === 'blocked') {
      run.blocked.set(tool, validation);
      run.blockedInARow.set(tool, (run.blockedInARow.get(tool) ?? 0) + 1);
      run.toolResults.push({ tool, input: args, error: validation.message, success: false });
      return { kind: 'blocked', validation };
    }
    run.blocked.delete(tool);
    run.blockedInARow.delete(tool);
    // Every write the policy does not exempt (tier 0) is put to the user; where nobody can be asked
    // (a fast-path pipeline, the agent's own checks) it does not run at all.
    if (validation.isWrite && validation.tier !== 0) {
      if (opts.mayConfirm) return { kind: 'confirm', validation, callId };
      run.guardrails.add('unconfirmable_write_refused');
      const refused = { ...validation, status: 'blocked' as const, message: UNCONFIRMABLE };
      run.toolResults.push({ tool, input: args, error: refused.message, success: false });
      return { kind: 'blocked', validation: refused };
    }
    const execution = await execute(run, validation, callId);
    return {
      kind: 'executed',
      success: execution.success,
      content: execution.success
        ? execution.result
        : { error: execution.error?.message ?? 'The tool failed.' },
      ...(execution.success ? {} : { error: execution.error?.message ?? 'failed' }),
    };
  };

  /** Persists the turn, then emits `complete`: a follow-up sent right after sees this turn. */
  const complete = async (
    run: Run,
    data: { query: string; route: QueryRouted['route'] },
    userText: string,
    response: string,
    status: CompletionStatus,
    extra: { pipelineSteps?: PipelineStep[]; actionId?: string } = {},
  ) => {
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
          model: llm?.label ?? null,
          ...(extra.actionId ? { actionId: extra.actionId } : {}),
        },
      },
    ];
    await store
      .appendTurn(run.scope, turn)
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
      mcpToolResults: run.toolResults,
      dataSources: [...new Set(run.toolResults.filter((r) => r.success).map((r) => r.tool))],
      llmModel: run.usage.total_tokens > 0 || run.iterations > 0 ? (llm?.label ?? '') : '',
      iterationCount: run.iterations,
      usage: run.usage,
      status,
      ...(run.guardrails.size > 0 ? { guardrails: [...run.guardrails] } : {}),
      ...(extra.actionId ? { actionId: extra.actionId } : {}),
      ...(traceIdOf(run.traceparent) ? { traceId: traceIdOf(run.traceparent) } : {}),
    };
    await run.emit({ type: 'complete', payload });
  };

  /** Plans the enrichments the results call for that are not applied yet, and announces them. */
  const enrich = async (run: Run, results: unknown[]): Promise<Enrichment[]> => {
    const applied = new Set(run.enrichments.map((e) => e.type));
    const fresh = planEnrichments(results).filter((e) => !applied.has(e.type));
    if (fresh.length === 0) return [];
    await run.emit({
      type: 'enrichments_planned',
      payload: { enrichments: fresh.map(({ type, description }) => ({ type, description })) },
    });
    await run.emit({ type: 'enrichments_applying', payload: { enrichments: fresh.map((e) => e.type) } });
    run.enrichments.push(...fresh);
    return fresh;
  };

  /**
   * The `params`, `clarification` and `card` blocks of an answer are validated (and repaired or
   * removed) by the validator; if it cannot be asked, a block that is not JSON is dropped here.
   */
  const checkBlocks = async (run: Run, text: string): Promise<string> => {
    if (!text.includes('```')) return text;
    try {
      const checked = await bus.request(
        'answerBlocks',
        run.scope,
        { text },
        { timeoutMs: config.validateTimeoutMs * 4, traceparent: run.traceparent },
      );
      for (const g of checked.guardrails) run.guardrails.add(g);
      return checked.text;
    } catch (error) {
      log.warn(
        { err: error, requestId: run.scope.requestId },
        'answer blocks not checked; dropping unparsable ones',
      );
      return dropBrokenBlocks(text);
    }
  };

  /** Applies the output and reverse guardrails, then streams the answer in chunks. */
  const answer = async (run: Run, text: string): Promise<string> => {
    const reversed = reverseGuardrails(text, run.writes, describeTool);
    for (const g of reversed.guardrails) run.guardrails.add(g);
    const safe = guardOutput(await checkBlocks(run, reversed.text));
    await run.emit({ type: 'response_generating', payload: llm ? { model: llm.label } : {} });
    for (const chunk of chunks(safe)) await run.emit({ type: 'response_chunk', payload: { text: chunk } });
    return safe;
  };

  /**
   * What the LLM is told of the conversation so far: the summary of its older part (made once more
   * than 20 messages exist, keeping the last 10 verbatim, seed 003 §6.7), the documents created in
   * it (for "show that invoice", "send it"), and the recent messages.
   */
  const history = async (run: Run): Promise<ChatCompletionMessageParam[]> => {
    const conversation = await store.conversation(run.scope);
    if (!conversation) return [];
    const { messages } = conversation;
    let summary = conversation.summary;
    let recent = messages.slice(-config.historyMessages);
    if (messages.length > SUMMARIZE_ABOVE) {
      const older = messages.slice(0, -KEEP_RECENT);
      recent = messages.slice(-KEEP_RECENT);
      if (llm && conversation.summarizedCount < older.length) {
        summary = await summarize(run, summary, older.slice(conversation.summarizedCount)).catch(
          (error: unknown) => {
            log.warn(
              { err: error, requestId: run.scope.requestId },
              'summarization failed; keeping the old summary',
            );
            return summary;
          },
        );
        if (summary) {
          void store
            .saveSummary(run.scope, summary, older.length)
            .catch((error: unknown) => log.warn({ err: error }, 'could not save the summary'));
        }
      }
    }
    const created = messages
      .flatMap((m) => (Array.isArray(m.metadata?.createdDocuments) ? m.metadata.createdDocuments : []))
      .slice(-5) as { tool: string; number?: string; id?: string }[];
    const context: ChatCompletionMessageParam[] = [];
    if (summary) context.push({ role: 'system', content: `[Previous conversation summary]\n${summary}` });
    if (created.length > 0) {
      context.push({
        role: 'system',
        content: `Documents created earlier in this conversation, newest last (ids are for tool calls only, never show them):\n${created
          .map((d) => `- ${d.tool.replace(/^create_/, '')} ${d.number ?? ''} (id ${d.id ?? 'unknown'})`)
          .join('\n')}`,
      });
    }
    const list = [...messages].reverse().find((m) => isRecord(m.metadata?.lastList))?.metadata?.lastList as
      | { tool: string; args: Record<string, unknown> }
      | undefined;
    if (list) {
      context.push({
        role: 'system',
        content: `The last list shown was ${list.tool} with ${JSON.stringify(list.args)}; for "show more", "next" or "aur dikhao" call it again with the next Page.`,
      });
    }
    const earlier = await earlierAttachments(run, messages);
    if (earlier) context.push({ role: 'system', content: earlier });
    const past: ChatCompletionMessageParam[] = recent
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => ({ role: m.role as 'user' | 'assistant', content: withFileNames(m) }));
    return [...context, ...past];
  };

  /** The files of earlier turns (newest three), so "record them" can follow "what is in this file?". */
  const earlierAttachments = async (run: Run, messages: ConversationMessage[]): Promise<string | null> => {
    const ids = [...new Set(messages.flatMap((m) => attachmentRefs(m).map((a) => a.id)))]
      .filter((id) => !run.attachments.some((a) => a.id === id))
      .slice(-3);
    if (ids.length === 0 || !deps.attachments) return null;
    const rows = await deps.attachments.findMany(ids, run.scope).catch((error: unknown) => {
      log.warn({ err: error, requestId: run.scope.requestId }, 'earlier attachments unavailable');
      return [];
    });
    if (rows.length === 0) return null;
    // The rules are said once: this turn's files bring them in the instructions already.
    const rules = run.attachments.length === 0 ? `${ATTACHMENT_RULES}\n\n` : '';
    return `${rules}${earlierFiles(rows, attachmentMaxChars)}`;
  };

  /** The user's message of this request, with its files read from storage. */
  const userTurn = async (run: Run, data: QueryRouted): Promise<ChatCompletionMessageParam> => {
    const ids = data.attachmentIds ?? [];
    if (ids.length === 0) return { role: 'user', content: data.query };
    const source = deps.attachments;
    if (!source) throw new AgentError('SERVICE_UNAVAILABLE', 'Attached files cannot be read right now.');
    const rows = await source.findMany(ids, run.scope);
    if (rows.length !== ids.length) {
      throw new AgentError('NOT_FOUND', 'An attached file is no longer available; please attach it again.');
    }
    run.attachments = rows.map(refOf);
    return userMessage(data.query, rows, {
      vision: visionCapable(config.vision ?? 'auto', llm?.model ?? ''),
      maxChars: attachmentMaxChars,
      bytes: (row) => source.content(row),
    });
  };

  const summarize = async (run: Run, previous: string | null, messages: ConversationMessage[]) => {
    const transcript = messages.map((m) => `${m.role}: ${m.content}`).join('\n');
    const turn = await llmTurn(run, 'summarization', {
      messages: [
        { role: 'system', content: SUMMARY_PROMPT },
        {
          role: 'user',
          content: `${previous ? `Summary so far:\n${previous}\n\n` : ''}Summarize the conversation:\n${transcript}`,
        },
      ],
      maxTokens: 512,
    });
    return turn.content.trim() || previous;
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
      const outcome = await toolStep(run, step.tool, step.args, { mayConfirm: false });
      if (outcome.kind !== 'executed')
        throw new AgentError('TOOL_BLOCKED', 'I could not look that up just now.');
      if (!outcome.success)
        throw new AgentError('TOOL_FAILED', "I couldn't fetch that from your books right now.");
      results.push({ title: step.description, result: outcome.content });
    }
    const enrichments = await enrich(
      run,
      results.map((r) => r.result),
    );
    let response: string;
    if (llm) {
      await run.emit({ type: 'response_generating', payload: { model: llm.label } });
      const turn = await llmTurn(run, 'fast_path', {
        messages: [
          {
            role: 'system',
            content: `${fastPathPrompt(config.persona)}\n\n${enrichmentPrompt(enrichments)}`.trim(),
          },
          { role: 'user', content: `${data.query}\n\nData:\n${JSON.stringify(results)}` },
        ],
        maxTokens: config.maxTokens.cheap,
        onText: async (text) => void (await run.emit({ type: 'response_chunk', payload: { text } })),
      });
      response = guardOutput(turn.content);
    } else {
      response = await answer(run, renderResults(results) + enrichmentMarkdown(enrichments));
    }
    await complete(run, data, data.query, response, 'answered', { pipelineSteps });
  };

  const offeredTools = async (run: Run, offered: Set<string>, containers: Map<string, ToolContainer>) => {
    const registry = await deps.tools.list(run.scope, run.traceparent);
    const byName = new Map(registry.map((t) => [t.name, t]));
    return (): ChatCompletionFunctionTool[] => [
      ...[...containers.values()].map((c) => ({
        type: 'function' as const,
        function: { name: c.name, description: c.description, parameters: c.inputSchema },
      })),
      ...[...offered].flatMap((name) => {
        const def = byName.get(name);
        if (!def) return [];
        return [
          {
            type: 'function' as const,
            function: { name, description: def.description ?? name, parameters: def.inputSchema },
          },
        ];
      }),
    ];
  };

  /** A call to a container: expand it (its tools are offered from the next turn) or explain the mistake. */
  const containerCall = async (
    run: Run,
    call: { name: string; arguments: string },
    offered: Set<string>,
    containers: Map<string, ToolContainer>,
  ) => {
    let args: unknown;
    let rawArgs: string | undefined;
    try {
      args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    } catch {
      rawArgs = call.arguments;
    }
    const verdict = (await validate(run, call.name, args, rawArgs, run.nextCallId())).container;
    if (verdict?.expand) {
      containers.delete(call.name);
      for (const f of verdict.functions) offered.add(f);
      return JSON.stringify({ success: true, expanded: call.name, functions: verdict.functions });
    }
    run.guardrails.add('container_invocation_error');
    return JSON.stringify(
      verdict?.error ?? { error_type: 'container_invocation_error', container_name: call.name },
    );
  };

  /** The tool-calling loop, from wherever it stands, to an answer or a confirmation. */
  const loop = async (
    run: Run,
    data: { query: string; route: QueryRouted['route'] },
    userText: string,
    messages: ChatCompletionMessageParam[],
    offered: Set<string>,
    containers: Map<string, ToolContainer>,
  ) => {
    const toolDefs = await offeredTools(run, offered, containers);
    const maxTokens = data.route.tier === 'capable' ? config.maxTokens.capable : config.maxTokens.cheap;
    while (run.iterations < config.maxIterations) {
      // Buffered, not streamed: the reverse guardrails must see the whole answer before the user does.
      const turn = await llmTurn(run, 'chat', { messages, tools: toolDefs(), maxTokens });
      if (turn.toolCalls.length === 0) {
        // No answer while a write may or may not have run: the LLM checks with a read first, and
        // if it still answers without one, the agent checks.
        const unchecked = run.uncheckedWrites()[0];
        if (unchecked && !run.guardrails.has(CHECK_ASKED) && run.iterations < config.maxIterations) {
          run.guardrails.add(CHECK_ASKED);
          const reader = await checkingRead(run, unchecked.tool);
          if (reader) offered.add(reader.name);
          const call = reader && { name: reader.name, args: searchArgs(reader, unchecked.args ?? {}) };
          messages.push(
            { role: 'assistant', content: turn.content },
            { role: 'system', content: checkFirstPrompt(unchecked.tool, call) },
          );
          continue;
        }
        const text = unchecked ? await checkUnknown(run, unchecked) : turn.content;
        const response = await answer(run, text);
        await complete(run, data, userText, response, 'answered');
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
      for (const [index, call] of turn.toolCalls.entries()) {
        if (containers.has(call.name)) {
          messages.push({
            role: 'tool',
            tool_call_id: call.id,
            content: await containerCall(run, call, offered, containers),
          });
          continue;
        }
        if (!offered.has(call.name)) {
          messages.push(
            notRun(call.id, 'TOOL_NOT_OFFERED', `The tool ${call.name} is not available for this request.`),
          );
          continue;
        }
        const unsettled = await unsettledBy(run, call.name);
        if (unsettled) {
          // Sending it again before a read has shown the first did not apply could do it twice.
          const reader = await checkingRead(run, unsettled.tool);
          if (reader) offered.add(reader.name);
          messages.push(
            notRun(
              call.id,
              'TOOL_OUTCOME_UNKNOWN',
              `Not run: ${unsettled.tool} was sent earlier in this request and may already have been applied. ` +
                `Check with ${reader?.name ?? 'a read tool'} first; call ${call.name} only if the books show it was not.`,
            ),
          );
          continue;
        }
        const step = await toolStep(run, call.name, call.arguments, { mayConfirm: true });
        if (step.kind === 'confirm') {
          await propose(run, data, userText, step, call.id, {
            messages,
            offered: [...offered],
            containers: [...containers.values()],
            skippedToolCallIds: turn.toolCalls.slice(index + 1).map((c) => c.id),
          });
          return;
        }
        messages.push({ role: 'tool', tool_call_id: call.id, content: toolContent(step, offered) });
      }
      const fresh = await enrich(
        run,
        run.toolResults.filter((r) => r.success).map((r) => r.result),
      );
      if (fresh.length > 0) messages.push({ role: 'system', content: enrichmentPrompt(fresh) });
      const exhausted = [...run.blocked.values()].find(
        (v) => v.isWrite && (run.blockedInARow.get(v.tool) ?? 0) > config.maxWriteRetries,
      );
      if (exhausted) {
        const response = await answer(run, needsInputMessage(exhausted));
        await complete(run, data, userText, response, 'needs_input');
        return;
      }
    }
    throw new AgentError(
      'MAX_ITERATIONS',
      'That took more steps than I am allowed. Could you break the request into smaller parts?',
    );
  };

  /** Puts a validated write to the user (seed 000 §7) and ends the request awaiting the answer. */
  const propose = async (
    run: Run,
    data: { query: string; route: QueryRouted['route'] },
    userText: string,
    step: { validation: ValidationResult; callId: string },
    toolCallId: string,
    loopState: Pick<LoopState, 'messages' | 'offered' | 'containers' | 'skippedToolCallIds'>,
  ) => {
    const { validation } = step;
    const args = validation.args ?? {};
    // A change the user's message did not ask for came from something read (a tool's result, a
    // file): flagged, named in words, and confirmed by typing, whatever its own tier.
    const unrequested = !asksForChange(data.query, validation.tool);
    if (unrequested) run.guardrails.add('unrequested_write');
    const tier = unrequested ? 3 : validation.tier;
    const changes = tier === 2 ? await currentValues(run, validation.tool, args) : undefined;
    const record = await recordName(run, validation.tool, args, unrequested);
    const question = confirmationQuestion(validation.tool, args, tier, changes, { record, unrequested });
    const actionId = randomUUID();
    const confirmText = tier === 3 ? confirmWord(validation.tool) : null;
    const state: LoopState = {
      ...loopState,
      messages: withoutImages(loopState.messages),
      iterations: run.iterations,
      usage: run.usage,
      toolResults: run.toolResults,
      query: data.query,
      route: data.route,
      ...(unrequested ? { unrequested } : {}),
      ...(record ? { record } : {}),
    };
    await store.createPending(run.scope, {
      actionId,
      tool: validation.tool,
      args,
      argsHash: validation.argsHash,
      tier,
      confirmText,
      question,
      callId: step.callId,
      toolCallId,
      state: state as unknown as Record<string, unknown>,
      expiresAt: new Date(Date.now() + config.confirmTtlMs),
    });
    await run.emit({
      type: 'confirmation',
      payload: { actionId, step: 'proposed', tool: validation.tool, tier, args_hash: validation.argsHash },
    });
    await emitMcq(run, { actionId, tool: validation.tool, args, tier, question, confirmText, state });
    await complete(run, data, userText, question, 'awaiting_confirmation', { actionId });
  };

  /**
   * The record a write acts on, in words (its name, number or reference), read with a read tool of
   * the same group that takes its id; for a write nobody asked for, the id itself when no read names it.
   */
  const recordName = async (
    run: Run,
    tool: string,
    args: Record<string, unknown>,
    unrequested: boolean,
  ): Promise<string | undefined> => {
    // Only a change to a record that exists has one to name: its own id (`InvoiceId` of void_invoice).
    const { verbClass, nouns } = parseToolName(tool);
    if (verbClass !== 'destructive' && verbClass !== 'edit') return undefined;
    const own = new Set(['id', ...nouns.map(singular)]);
    const ids = idArgs(args).filter(([field]) => own.has(parseToolName(field).words[0] ?? ''));
    if (ids.length === 0) return undefined;
    const group = primaryToolGroup(tool);
    const readers = (await deps.tools.list(run.scope, run.traceparent)).filter(
      (t) => !t.isWrite && (group === null || primaryToolGroup(t.name) === group),
    );
    for (const [field, value] of ids) {
      const takes = (t: ToolDefinition) =>
        isRecord(t.inputSchema.properties) && field in t.inputSchema.properties;
      const needs = (t: ToolDefinition) =>
        Array.isArray(t.inputSchema.required) ? t.inputSchema.required.filter((f) => f !== field).length : 0;
      // A read by that id first ("get"), one that needs nothing else.
      const reader = readers
        .filter((t) => takes(t) && needs(t) === 0)
        .sort((a, b) => {
          const byId = (t: ToolDefinition) =>
            Array.isArray(t.inputSchema.required) && t.inputSchema.required.includes(field) ? 0 : 1;
          return byId(a) - byId(b);
        })[0];
      if (reader) {
        const step = await toolStep(run, reader.name, { [field]: value }, { mayConfirm: false });
        const label = step.kind === 'executed' && step.success ? recordLabel(step.content) : undefined;
        if (label) return label;
        continue;
      }
      // No read by id: the group's list, and the record in it that holds the id.
      const list = readers.find((t) => needs(t) === 0 && !takes(t));
      if (!list) continue;
      const step = await toolStep(run, list.name, {}, { mayConfirm: false });
      const found = step.kind === 'executed' && step.success ? holding(step.content, value) : undefined;
      const label = found ? recordLabel(found) : undefined;
      if (label) return label;
    }
    return unrequested ? ids.map(([, value]) => value).join(', ') : undefined;
  };

  const emitMcq = (
    run: Run,
    a: {
      actionId: string;
      tool: string;
      args: Record<string, unknown>;
      tier: number;
      question: string;
      confirmText: string | null;
      /** The stored loop state: whether the change was unrequested, and the record's name. */
      state?: Record<string, unknown> | LoopState;
    },
  ) =>
    run.emit({
      type: 'mcq',
      payload: {
        actionId: a.actionId,
        mcq_type: 'write_confirmation',
        tier: a.tier,
        question: a.question,
        ...(a.state && 'unrequested' in a.state && a.state.unrequested === true ? { unrequested: true } : {}),
        ...(a.state && typeof a.state.record === 'string' ? { record: a.state.record } : {}),
        options: [
          { label: `✅ Yes, ${describeTool(a.tool)}`, value: 'confirm' },
          { label: '❌ Cancel', value: 'cancel' },
        ],
        pending_tool: a.tool,
        pending_args: a.args,
        ...(a.confirmText ? { confirm_text: a.confirmText } : {}),
      },
    });

  /** Tier 2 shows before → after: the record as it is now, read through the validator and executor. */
  const currentValues = async (run: Run, tool: string, args: Record<string, unknown>) => {
    const entity = tool.replace(/^update_/, '');
    const idField = Object.keys(args).find((k) => /Id$/.test(k) && typeof args[k] === 'string');
    const reader = (await deps.tools.list(run.scope, run.traceparent)).find(
      (t) => t.name === `get_${entity}`,
    );
    if (!idField || !reader) return describeChanges({}, args);
    const step = await toolStep(run, reader.name, { [idField]: args[idField] }, { mayConfirm: false });
    const before = step.kind === 'executed' && step.success && isRecord(step.content) ? step.content : {};
    return describeChanges(before, args);
  };

  /** The user's answer to a pending confirmation: cancel, re-ask, void, or run it exactly once. */
  const resume = async (
    run: Run,
    pending: PendingAction,
    answerValue: 'confirm' | 'cancel',
    typed: string | undefined,
  ) => {
    const state = pending.state as unknown as LoopState;
    const ctx = { query: state.query, route: state.route };
    const userText = answerValue === 'cancel' ? 'Cancel' : typed ? `Confirm (${typed})` : 'Confirm';
    const step = (s: ConfirmationStep, reason?: string) => emitStep(run, pending, s, reason);
    if (pending.status !== 'pending') {
      throw new AgentError('CONFLICT', 'This confirmation has already been answered.');
    }
    if (pending.expiresAt.getTime() <= Date.now()) {
      if (await store.transition(pending.actionId, 'pending', 'expired')) await step('expired');
      const response = await answer(
        run,
        `That confirmation has expired, so nothing was changed. Ask again if you still want to ${describeTool(pending.tool)}.`,
      );
      await complete(run, ctx, userText, response, 'cancelled');
      return;
    }
    if (answerValue === 'cancel') {
      if (!(await store.transition(pending.actionId, 'pending', 'cancelled'))) {
        throw new AgentError('CONFLICT', 'This confirmation has already been answered.');
      }
      await step('cancelled');
      const response = await answer(
        run,
        `Okay, I won't ${describeTool(pending.tool)}: cancelled. Nothing was changed.`,
      );
      await complete(run, ctx, userText, response, 'cancelled');
      return;
    }
    if (pending.confirmText && (typed ?? '').trim().toUpperCase() !== pending.confirmText) {
      await step('rejected', 'typed confirmation did not match');
      const question = `That didn't match, so nothing was done. Type ${pending.confirmText} to confirm, or cancel.`;
      await emitMcq(run, { ...pending, question, confirmText: pending.confirmText });
      const response = await answer(run, question);
      await complete(run, ctx, userText, response, 'awaiting_confirmation', { actionId: pending.actionId });
      return;
    }
    // Validate again: the approval binds the exact call that was shown, and the rules may have moved on.
    run.attempts.set(pending.tool, 1);
    const validation = await validate(run, pending.tool, pending.args, undefined, pending.callId);
    if (validation.status === 'blocked' || validation.argsHash !== pending.argsHash) {
      await store.transition(pending.actionId, 'pending', 'void');
      await step(
        'void',
        validation.status === 'blocked' ? validation.message : 'arguments changed after approval',
      );
      const response = await answer(
        run,
        `The details of this change no longer check out, so nothing was done. Please ask again to ${describeTool(pending.tool)}.`,
      );
      await complete(run, ctx, userText, response, 'needs_input');
      return;
    }
    if (!(await store.transition(pending.actionId, 'pending', 'executing', undefined, run.scope.requestId))) {
      throw new AgentError('CONFLICT', 'This confirmation has already been answered.');
    }
    await step('approved');
    await carryOut(run, pending, validation, userText);
  };

  /**
   * Runs an approved write (idempotent: a second run of the same call is answered from the
   * executor's store) and goes on from where the proposal stopped.
   */
  const carryOut = async (
    run: Run,
    pending: PendingAction,
    validation: ValidationResult,
    userText: string,
  ) => {
    const state = pending.state as unknown as LoopState;
    const ctx = { query: state.query, route: state.route };
    const step = (s: ConfirmationStep) => emitStep(run, pending, s);
    run.toolResults = [...state.toolResults];
    run.usage = state.usage;
    run.iterations = state.iterations;
    const execution = await execute(
      run,
      { ...validation, args: pending.args },
      pending.callId,
      pending.actionId,
    );
    await store.transition(pending.actionId, 'executing', 'executed', {
      success: execution.success,
      ...(execution.outcome ? { outcome: execution.outcome } : {}),
      ...(execution.error ? { error: execution.error } : {}),
    });
    await step('executed');
    const content = JSON.stringify(
      execution.success ? execution.result : { success: false, error: execution.error?.message ?? 'failed' },
    );
    const messages: ChatCompletionMessageParam[] = [
      ...state.messages,
      { role: 'tool', tool_call_id: pending.toolCallId, content },
      ...state.skippedToolCallIds.map((id) => ({
        role: 'tool' as const,
        tool_call_id: id,
        content: SKIPPED_CALL,
      })),
    ];
    if (!llm) {
      const response = await answer(
        run,
        execution.success
          ? `✅ Done: I did ${describeTool(pending.tool)}.`
          : execution.outcome === 'unknown'
            ? await checkUnknown(run, { tool: pending.tool, args: validation.args ?? {} })
            : `I couldn't ${describeTool(pending.tool)}.`,
      );
      await complete(run, ctx, userText, response, 'answered');
      return;
    }
    await loop(
      run,
      ctx,
      userText,
      messages,
      new Set(state.offered),
      new Map((state.containers ?? []).map((c) => [c.name, c])),
    );
  };

  const runLlmPath = async (run: Run, data: QueryRouted) => {
    const { route } = data;
    if (
      !llm &&
      route.category === 'general_chat' &&
      run.attachments.length === 0 &&
      !data.attachmentIds?.length
    ) {
      // Greetings, thanks and "what can you do" need no model: what munim does and what to ask.
      const { texts } = await quickSuggestions(store.db, run.scope, 6);
      await complete(run, data, data.query, smallTalkAnswer(data.query, config.persona, texts), 'answered');
      return;
    }
    if (!llm) throw new AgentError('NO_MODEL_CONFIGURED', NO_MODEL_MESSAGE);
    const user = await userTurn(run, data);
    const past = await history(run);
    const rules: ChatCompletionMessageParam[] =
      run.attachments.length > 0 ? [{ role: 'system', content: ATTACHMENT_RULES }] : [];
    if (route.category === 'general_chat') {
      await run.emit({ type: 'response_generating', payload: { model: llm.label } });
      const turn = await llmTurn(run, 'general_chat', {
        messages: [{ role: 'system', content: generalChatPrompt(config.persona) }, ...rules, ...past, user],
        maxTokens: config.maxTokens.chat,
        onText: async (text) => void (await run.emit({ type: 'response_chunk', payload: { text } })),
      });
      await complete(run, data, data.query, guardOutput(turn.content), 'answered');
      return;
    }
    const registry = await deps.tools.list(run.scope, run.traceparent);
    const known = new Set(registry.map((t) => t.name));
    const selected = route.tools.filter((name) => known.has(name));
    // Seed 001: with many tools the validator collapses them into one container per group.
    const offering = await bus
      .request(
        'toolsContainers',
        run.scope,
        { tools: selected },
        {
          timeoutMs: config.validateTimeoutMs,
          traceparent: run.traceparent,
        },
      )
      .catch((error: unknown) => {
        log.warn(
          { err: error, requestId: run.scope.requestId },
          'containers unavailable; offering tools as they are',
        );
        return undefined;
      });
    const collapsed = offering?.collapsed === true;
    const offered = new Set(collapsed ? (offering?.tools ?? []).map((t) => t.name) : selected);
    const containers = new Map(collapsed ? (offering?.containers ?? []).map((c) => [c.name, c]) : []);
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: unifiedPrompt(config.persona) },
      ...rules,
      ...past,
      user,
    ];
    await loop(run, data, data.query, messages, offered, containers);
  };

  /** A new question: every change still awaiting an answer in the conversation is cancelled. */
  const supersede = async (run: Run) => {
    const cancelled = await store.cancelPending(run.scope);
    for (const action of cancelled) {
      log.info(
        { requestId: run.scope.requestId, actionId: action.actionId, tool: action.tool },
        'pending action cancelled by a new question',
      );
      await run.emit({
        type: 'confirmation',
        payload: {
          actionId: action.actionId,
          step: 'cancelled',
          tool: action.tool,
          tier: action.tier,
          args_hash: action.argsHash,
          reason: 'a new question was asked',
        },
      });
    }
  };

  const handle = async (message: Message<QueryRouted>, ctx: MessageContext) => {
    const run = new Run(bus, message, ctx.traceparent, ctx.deliveryCount);
    const data = message.data;
    try {
      // Again, though it ended (its instance died after the end, before acknowledging it): done.
      if (ctx.deliveryCount > 1 && (await ended(run.scope.requestId))) {
        log.warn({ requestId: run.scope.requestId }, 'redelivered request had ended already');
        return;
      }
      // This very request again (the instance carrying its approved write died): finish the write,
      // exactly once — the executor answers a second run of the call from its store.
      const approved = await store.approvedBy(run.scope);
      if (approved) {
        log.warn(
          { requestId: run.scope.requestId, actionId: approved.actionId },
          'finishing a confirmed write',
        );
        const again = await validate(run, approved.tool, approved.args, undefined, approved.callId);
        // The one that died may have approved it without saying so (said twice, it is kept once).
        await emitStep(run, approved, 'approved');
        await carryOut(run, approved, again, 'Confirm');
        return;
      }
      if (data.mcqResponse) {
        const pending = await store.findPending(run.scope, data.mcqResponse.actionId);
        if (!pending) {
          throw new AgentError(
            'NOT_FOUND',
            'There is no pending confirmation with that id in this conversation.',
          );
        }
        await resume(run, pending, data.mcqResponse.value, data.mcqResponse.typedConfirmation);
        return;
      }
      // A free-text yes answers only what the last answer proposed, and never over MCP (an agent
      // calling munim must confirm with the explicit argument, not with text).
      const yes = data.channel !== 'mcp' && PLAIN_YES.test(data.query);
      if (yes) {
        const pending = await store.proposedByLastAnswer(run.scope);
        if (pending && pending.tier === 1) {
          await resume(run, pending, 'confirm', undefined);
          return;
        }
        if (pending) {
          // Riskier changes need the explicit answer of the confirmation card.
          const question = pending.confirmText
            ? `This change needs your explicit confirmation: type ${pending.confirmText} to confirm, or cancel.`
            : `This change needs your explicit confirmation on the card: ${pending.question}`;
          await emitMcq(run, { ...pending, question });
          const response = await answer(run, question);
          await complete(run, data, data.query, response, 'awaiting_confirmation', {
            actionId: pending.actionId,
          });
          return;
        }
      }
      await supersede(run);
      if (data.route.path === 'fast') await runFastPath(run, data);
      else await runLlmPath(run, data);
    } catch (error) {
      const { code, message: text } = toUserError(error);
      if (!(error instanceof AgentError) && !(error instanceof ConversationForbiddenError)) {
        log.error({ err: error, requestId: message.requestId }, 'request failed');
      }
      await run.emit({ type: 'error', payload: { code, message: text } });
    }
  };

  return {
    async start() {
      consumer = await bus.consume('queryRouted', handle, {
        durable: 'agent',
        concurrency: config.concurrency,
        ackWaitMs: config.ackWaitMs ?? 60_000,
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

/** The last paged list a request showed, for "show more". */
function lastList(results: McpToolResult[]) {
  const list = [...results].reverse().find((r) => r.success && isRecord(r.input) && 'Page' in r.input);
  return list ? { tool: list.tool, args: list.input } : undefined;
}

/** Documents a request created, for follow-ups like "show that invoice" (seed 003 §6.6). */
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

/** What the LLM is told about one executed or blocked call. */
function toolContent(step: ToolStep, offered: Set<string>): string {
  if (step.kind === 'blocked') {
    const v = step.validation;
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
  if (step.kind === 'executed') {
    return JSON.stringify(step.success ? step.content : { success: false, error: step.error });
  }
  return JSON.stringify({ success: false, error: 'awaiting confirmation' });
}

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

/** Splits an answer into stream-sized pieces at line ends. */
function chunks(text: string, size = 400): string[] {
  const out: string[] = [];
  let current = '';
  for (const line of text.split(/(?<=\n)/)) {
    if (current.length + line.length > size && current) {
      out.push(current);
      current = '';
    }
    current += line;
  }
  if (current || out.length === 0) out.push(current);
  return out;
}

/** Seed 000 §6.2: after the retries, ask the user for what is missing, in plain words. */
function needsInputMessage(v: ValidationResult): string {
  const fields = v.missingFields.length > 0 ? v.missingFields : v.issues.map((i) => i.field);
  const lines = v.questions?.length
    ? v.questions.map((q) => `• ${q}`)
    : fields.map((f) => `• ${plainField(f)}`);
  return `I need a few more details to ${describeTool(v.tool)}:\n${lines.join('\n')}`;
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
  if (error instanceof ConversationForbiddenError) return { code: 'FORBIDDEN', message: error.message };
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

/** The attachments a stored message carries in its metadata. */
function attachmentRefs(message: ConversationMessage): AttachmentRef[] {
  const list = message.metadata?.attachments;
  return Array.isArray(list)
    ? (list.filter((a) => isRecord(a) && typeof a.id === 'string') as AttachmentRef[])
    : [];
}

/** A past message as the model sees it: its text, plus the names of the files it came with. */
function withFileNames(message: ConversationMessage): string {
  const files = attachmentRefs(message);
  if (files.length === 0) return message.content;
  return `${message.content}\n[attached: ${files.map((f) => `${f.filename} (${f.category})`).join(', ')}]`;
}
