import type { AgentEvent, ErrorInfo, ExecutionResult, RequestScope } from '@munim/contracts';
import type { Logger } from '@munim/kit';
import { lazyCounter, lazyHistogram } from '@munim/kit';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { classifyFailure, type FailureKind, sanitizeMessage } from './errors.ts';
import { reportedFailure } from './failure-text.ts';
import type { StoredOutcome } from './idempotency.ts';
import type { CallRoute } from './pool.ts';
import { type CallResultLike, extractResult, resultText, truncateResult } from './result.ts';

const toolCalls = lazyCounter('munim.tool_calls', 'MCP tool calls by tool and outcome');
const toolDuration = lazyHistogram('munim.tool_call.duration', 'MCP tool call time', 's');

/** How long a call waits for a session that is being re-established before giving up. */
export const SESSION_WAIT_MS = 2_000;

/** What the caller is told when no session to the accounting system can be had. */
export const UNAVAILABLE = 'The accounting system is not reachable right now. Try again shortly.';

/** The outcome of one call, as replied and (for writes) stored. */
export interface Outcome extends StoredOutcome {
  /** For writes: the idempotency outcome. */
  outcome?: NonNullable<ExecutionResult['outcome']>;
  replayed?: boolean;
}

/** Publishes an event of the request the call belongs to. */
export type Emit = (event: AgentEvent) => Promise<unknown>;

/** A failed outcome. */
export const failure = (code: ErrorInfo['code'], message: string): Outcome => ({
  success: false,
  error: { code, message },
  truncated: false,
});

/** The outcome of a call whose tool the server does not know. */
export const notFound = (tool: string): Outcome =>
  failure('TOOL_NOT_FOUND', `The tool ${tool} does not exist on the accounting system.`);

/** The `tool_retry` event of a call sent again on a new session. */
export const retryEvent = (tool: string, attempt: number): AgentEvent => ({
  type: 'tool_retry',
  payload: { tool, attempt, reason: 'Connection to the accounting system was lost; retrying' },
});

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** What one `tools/call` came to: an answer, no session at all, or a classified failure. */
export type Sent =
  | { kind: 'answer'; raw: CallResultLike }
  | { kind: 'no_session' }
  | { kind: 'error'; error: unknown; failure: FailureKind };

/** Where calls go: the server pool, or a stand-in in tests. */
export interface CallRouter {
  /** Where this tenant's call of an exposed tool goes, if the tool is listed. */
  route(tool: string, scope: RequestScope): CallRoute | undefined;
  /** Reloads the tool lists (a server denied knowing a listed tool). */
  refresh(reason: string): Promise<void>;
}

/** Settings of a {@link ToolCaller}. */
export interface ToolCallerOptions {
  router: CallRouter;
  log: Logger;
  /** Configured bearer tokens, to be kept out of every message. */
  secrets: readonly string[];
  readTimeoutMs: number;
  resultMaxChars: number;
}

/** The call path to the MCP servers: one `tools/call`, the meaning of its answer, and reads. */
export class ToolCaller {
  readonly #opts: ToolCallerOptions;

  constructor(opts: ToolCallerOptions) {
    this.#opts = opts;
  }

  /** One `tools/call` on the tenant's current session; failures are classified, never thrown. */
  async send(
    tool: string,
    args: Record<string, unknown>,
    timeoutMs: number,
    attempt: number,
    scope: RequestScope,
    meta?: Record<string, unknown>,
  ): Promise<Sent> {
    const { router, log, secrets } = this.#opts;
    const route = router.route(tool, scope);
    if (!route) return { kind: 'error', error: new Error(`no route to ${tool}`), failure: 'tool_not_found' };
    const { session } = route;
    const client = await session.client(SESSION_WAIT_MS);
    if (!client) return { kind: 'no_session' };
    // The MCP call is a child span of the execute hop (semantic conventions for MCP/GenAI tools).
    const span = trace.getTracer('munim-mcp-executor').startSpan(`tools/call ${route.name}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': route.name,
        'munim.request_id': scope.requestId,
        'munim.attempt': attempt,
      },
    });
    const callStarted = performance.now();
    try {
      const raw = (await client.callTool(
        { name: route.name, arguments: args, ...(meta ? { _meta: meta } : {}) },
        undefined,
        { timeout: timeoutMs },
      )) as CallResultLike;
      if (raw.isError === true)
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'tool reported an error' });
      span.end();
      toolCalls().add(1, {
        'gen_ai.tool.name': route.name,
        'munim.outcome': raw.isError === true ? 'error' : 'ok',
      });
      toolDuration().record((performance.now() - callStarted) / 1000, { 'gen_ai.tool.name': route.name });
      return { kind: 'answer', raw };
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: sanitizeMessage(String(error), secrets) });
      span.end();
      toolCalls().add(1, { 'gen_ai.tool.name': route.name, 'munim.outcome': 'failed' });
      const kind = classifyFailure(error);
      log.warn({ tool, attempt, kind, reason: sanitizeMessage(String(error), secrets) }, 'MCP call failed');
      if (kind === 'transport') session.markBroken(client, error);
      if (kind === 'tool_not_found') void router.refresh('tool not found on server');
      return { kind: 'error', error, failure: kind };
    }
  }

  /**
   * The outcome of a call the server answered. A write whose answer plainly reports an error
   * without `isError` failed too; a read may legitimately return failure-like data (a job status).
   */
  answered(tool: string, raw: CallResultLike, isWrite: boolean): Outcome {
    const { log, secrets, resultMaxChars } = this.#opts;
    if (raw.isError === true) {
      return failure('TOOL_FAILED', sanitizeMessage(resultText(raw), secrets, `${tool} reported an error.`));
    }
    const reported = isWrite ? reportedFailure(raw) : undefined;
    if (reported) {
      log.warn({ tool, pattern: reported.pattern }, 'write answered with an error text but no isError');
      return failure('TOOL_FAILED', sanitizeMessage(reported.message, secrets, `${tool} reported an error.`));
    }
    const { value, truncated } = truncateResult(extractResult(raw), resultMaxChars);
    return { success: true, result: value, truncated };
  }

  /** The outcome of a call that failed in a way that says what happened to it. */
  protocolFailure(error: unknown): Outcome {
    return failure('TOOL_FAILED', sanitizeMessage(errorMessage(error), this.#opts.secrets));
  }

  /** A read: explicit timeout, one more try on a new session after a transport error. */
  async read(tool: string, args: Record<string, unknown>, scope: RequestScope, emit: Emit): Promise<Outcome> {
    const timeoutMs = this.#opts.readTimeoutMs;
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const sent = await this.send(tool, args, timeoutMs, attempt, scope);
      if (sent.kind === 'no_session') return failure('MCP_UNAVAILABLE', UNAVAILABLE);
      if (sent.kind === 'answer') return this.answered(tool, sent.raw, false);
      if (sent.failure === 'timeout') {
        return failure(
          'TOOL_TIMEOUT',
          `${tool} did not answer within ${Math.round(timeoutMs / 100) / 10} s.`,
        );
      }
      if (sent.failure === 'tool_not_found') return notFound(tool);
      if (sent.failure === 'protocol') return this.protocolFailure(sent.error);
      if (attempt === 1) await emit(retryEvent(tool, 2));
    }
    return failure('MCP_UNAVAILABLE', UNAVAILABLE);
  }
}
