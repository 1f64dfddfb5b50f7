import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Bus, HandlerError, type MessageContext } from '@munim/bus';
import type {
  AgentEvent,
  ErrorInfo,
  ExecuteRequest,
  ExecutionResult,
  Message,
  RequestScope,
  ToolList,
} from '@munim/contracts';
import type { Logger } from '@munim/kit';
import { McpConnection } from './connection.ts';
import { classifyFailure, neverReachedTool, sanitizeMessage } from './errors.ts';
import { listAllTools, ToolRegistry } from './registry.ts';
import { type CallResultLike, extractResult, resultText, truncateResult } from './result.ts';

export { McpConnection, type McpConnectionOptions } from './connection.ts';
export { classifyFailure, neverReachedTool, sanitizeMessage } from './errors.ts';
export { listAllTools, ToolRegistry, toDefinition } from './registry.ts';
export { extractResult, truncateResult } from './result.ts';

/** Settings of the MCP executor (from the environment in main, literal in tests). */
export interface McpExecutorConfig {
  serverUrl: string;
  authToken?: string | undefined;
  readTimeoutMs: number;
  writeTimeoutMs: number;
  resultMaxChars: number;
  /** Periodic registry refresh (seed: every 5 minutes). */
  registryRefreshMs?: number;
  reconnectBackoff?: { initialMs: number; maxMs: number };
  pingIntervalMs?: number;
}

export interface McpExecutorDeps {
  bus: Bus;
  log: Logger;
  config: McpExecutorConfig;
}

export interface McpExecutor {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Health checks for `serveHealth`: `mcp` is true while a session is established. */
  checks(): Promise<Record<string, boolean>>;
  readonly registry: ToolRegistry;
  readonly connection: McpConnection;
}

interface Outcome {
  success: boolean;
  result?: unknown;
  error?: ErrorInfo;
  truncated: boolean;
}

/** How long a call waits for a session that is being re-established before giving up. */
const SESSION_WAIT_MS = 2_000;
/** Least time between registry refreshes caused by calls naming an unknown tool. */
const MISS_REFRESH_MS = 1_000;

const UNAVAILABLE = 'The accounting system is not reachable right now. Try again shortly.';

/**
 * The MCP executor: keeps a session with the accounting MCP server and its tool registry,
 * serves `toolsList` and runs `toolExecute` calls with timeouts, one read retry, result
 * truncation and the `executing_tool` / `tool_result` events of the request.
 */
export async function buildMcpExecutor(deps: McpExecutorDeps): Promise<McpExecutor> {
  const { bus, log, config } = deps;
  const registry = new ToolRegistry();
  const secrets = config.authToken ? [config.authToken] : [];
  const subscriptions: ReturnType<Bus['serve']>[] = [];
  const inFlight = new Set<Promise<unknown>>();
  let refreshTimer: NodeJS.Timeout | undefined;
  let refreshing: Promise<void> | undefined;
  let lastMissRefresh = 0;

  const loadRegistry = async (client: Client) => {
    const skipped = registry.replace(await listAllTools(client, config.readTimeoutMs));
    if (skipped.length > 0) log.warn({ skipped }, 'tools with unusable definitions left out of the registry');
    log.info({ tools: registry.list().length }, 'tool registry loaded');
  };

  const connection = new McpConnection({
    url: config.serverUrl,
    authToken: config.authToken,
    log,
    backoff: config.reconnectBackoff,
    pingIntervalMs: config.pingIntervalMs,
    onConnected: loadRegistry,
    onToolsChanged: () => void refresh('list_changed'),
  });

  function refresh(reason: string): Promise<void> {
    refreshing ??= (async () => {
      const client = await connection.client(0);
      if (!client) return;
      try {
        await loadRegistry(client);
      } catch (error) {
        log.warn({ reason, err: sanitizeMessage(String(error), secrets) }, 'tool registry refresh failed');
        if (classifyFailure(error) === 'transport') connection.markBroken(client, error);
      }
    })().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  }

  const failure = (code: ErrorInfo['code'], message: string): Outcome => ({
    success: false,
    error: { code, message },
    truncated: false,
  });

  async function callTool(
    tool: string,
    args: Record<string, unknown>,
    isWrite: boolean,
    emit: (event: AgentEvent) => Promise<unknown>,
  ): Promise<Outcome> {
    const timeoutMs = isWrite ? config.writeTimeoutMs : config.readTimeoutMs;
    // Writes run at most once in this cut; a read gets one more try on a new session.
    const attempts = isWrite ? 1 : 2;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      const client = await connection.client(SESSION_WAIT_MS);
      if (!client) return failure('MCP_UNAVAILABLE', UNAVAILABLE);
      let raw: CallResultLike;
      try {
        raw = (await client.callTool({ name: tool, arguments: args }, undefined, {
          timeout: timeoutMs,
        })) as CallResultLike;
      } catch (error) {
        const kind = classifyFailure(error);
        log.warn({ tool, attempt, kind, reason: sanitizeMessage(String(error), secrets) }, 'MCP call failed');
        if (kind === 'timeout') {
          const seconds = Math.round(timeoutMs / 100) / 10;
          return failure(
            'TOOL_TIMEOUT',
            isWrite
              ? `${tool} did not answer within ${seconds} s; the change may or may not have been applied, so check before trying again.`
              : `${tool} did not answer within ${seconds} s.`,
          );
        }
        if (kind === 'transport') {
          connection.markBroken(client, error);
          if (attempt < attempts) {
            await emit({
              type: 'tool_retry',
              payload: {
                tool,
                attempt: attempt + 1,
                reason: 'Connection to the accounting system was lost; retrying',
              },
            });
            continue;
          }
          if (isWrite && !neverReachedTool(error)) {
            return failure(
              'MCP_UNAVAILABLE',
              `The connection to the accounting system was lost during ${tool}; the change may or may not have been applied, so check before trying again.`,
            );
          }
          return failure('MCP_UNAVAILABLE', UNAVAILABLE);
        }
        if (kind === 'tool_not_found') {
          void refresh('tool not found on server');
          return failure('TOOL_NOT_FOUND', `The tool ${tool} does not exist on the accounting system.`);
        }
        return failure('TOOL_FAILED', sanitizeMessage(String((error as Error).message ?? error), secrets));
      }
      if (raw.isError === true) {
        return failure(
          'TOOL_FAILED',
          sanitizeMessage(resultText(raw), secrets, `${tool} reported an error.`),
        );
      }
      const { value, truncated } = truncateResult(extractResult(raw), config.resultMaxChars);
      return { success: true, result: value, truncated };
    }
    return failure('MCP_UNAVAILABLE', UNAVAILABLE);
  }

  async function execute(message: Message<ExecuteRequest>, ctx: MessageContext): Promise<ExecutionResult> {
    const started = performance.now();
    const { tool, args, callId } = message.data;
    const scope: RequestScope = {
      requestId: message.requestId,
      conversationId: message.conversationId,
      entityId: message.entityId,
      orgId: message.orgId,
    };
    const emit = (event: AgentEvent) => bus.emit(scope, event, ctx.traceparent);
    // Once the call has run, its reply matters more than its event: a lost event is logged, not thrown.
    const emitAfter = (event: AgentEvent) =>
      emit(event).catch((error: unknown) =>
        log.error(
          { err: error, requestId: scope.requestId, tool, event: event.type },
          'could not emit event',
        ),
      );

    const run = async (): Promise<Outcome> => {
      if (!registry.loaded) return failure('MCP_UNAVAILABLE', UNAVAILABLE);
      let definition = registry.get(tool);
      if (!definition && Date.now() - lastMissRefresh >= MISS_REFRESH_MS) {
        lastMissRefresh = Date.now();
        await refresh('unknown tool requested');
        definition = registry.get(tool);
      }
      if (!definition) return failure('TOOL_NOT_FOUND', `TOOL_NOT_FOUND: there is no tool named "${tool}".`);
      const isWrite = definition.isWrite || message.data.isWrite;
      await emit({ type: 'executing_tool', payload: { tool, callId, args } });
      return callTool(tool, args, isWrite, emitAfter);
    };

    const outcome = await run();
    const durationMs = Math.round(performance.now() - started);
    await emitAfter({
      type: 'tool_result',
      payload: {
        tool,
        success: outcome.success,
        ...(outcome.success ? { result: outcome.result } : { error: outcome.error?.message }),
        callId,
        duration_ms: durationMs,
        truncated: outcome.truncated,
      },
    });
    log.info(
      {
        requestId: scope.requestId,
        tool,
        callId,
        success: outcome.success,
        code: outcome.error?.code,
        durationMs,
      },
      'tool executed',
    );
    return {
      tool,
      success: outcome.success,
      ...(outcome.success ? { result: outcome.result } : { error: outcome.error }),
      truncated: outcome.truncated,
      durationMs,
    };
  }

  const track = <T>(work: Promise<T>): Promise<T> => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work)).catch(() => undefined);
    return work;
  };

  return {
    registry,
    connection,
    async start() {
      connection.start();
      subscriptions.push(
        bus.serve('toolsList', async (): Promise<ToolList> => {
          if (!registry.loaded) throw new HandlerError('MCP_UNAVAILABLE', UNAVAILABLE);
          return { tools: registry.list() };
        }),
        bus.serve('toolExecute', (message, ctx) => track(execute(message, ctx))),
      );
      refreshTimer = setInterval(() => void refresh('periodic'), config.registryRefreshMs ?? 5 * 60_000);
      refreshTimer.unref();
    },
    async stop() {
      clearInterval(refreshTimer);
      await Promise.allSettled(subscriptions.map((sub) => sub.drain()));
      await Promise.allSettled([...inFlight]);
      await refreshing?.catch(() => undefined);
      await connection.stop();
    },
    async checks() {
      return { mcp: connection.connected };
    },
  };
}
