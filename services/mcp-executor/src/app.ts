import type { Bus } from '@munim/bus';
import type { ExecuteRequest, ExecutionResult, Message } from '@munim/contracts';
import type { McpConnection } from './connection.ts';
import { executorContext, type McpExecutorDeps } from './context.ts';
import { executeCall } from './execute.ts';
import type { IdempotencyBackend } from './idempotency.ts';
import { flushUsage, type Maintenance, startMaintenance } from './maintenance.ts';
import { pinChangedHandler } from './pin-changed.ts';
import type { ToolRegistry } from './registry.ts';
import { toolsListHandler } from './tools-list.ts';

export { type ApprovalBackend, PgApprovals } from './approvals.ts';
export { McpConnection, type McpConnectionOptions } from './connection.ts';
export type { McpExecutorConfig, McpExecutorDeps } from './context.ts';
export { classifyFailure, neverReachedTool, sanitizeMessage } from './errors.ts';
export {
  hashArgs,
  IdempotencyStore,
  IdempotencyStoreError,
  idempotencyKey,
  MemoryIdempotencyStore,
} from './idempotency.ts';
export { ToolPolicy } from './policy.ts';
export { ToolPolicyError } from './policy-file.ts';
export { listAllTools, ToolRegistry, toDefinition } from './registry.ts';
export { diffTools, syncToolRegistry, UsageCounter } from './registry-store.ts';
export { extractResult, truncateResult } from './result.ts';
export { type McpServerSpec, parseServerList, ServerSpecError } from './servers.ts';
export { IDEMPOTENCY_META_KEY, unknownOutcomeMessage } from './write-protocol.ts';

/** A built MCP executor: start it, stop it, and ask after its health. */
export interface McpExecutor {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Health checks for `serveHealth`: `mcp` is true while a session is established. */
  checks(): Promise<Record<string, boolean>>;
  readonly registry: ToolRegistry;
  /** The session of the first configured server. */
  readonly connection: McpConnection;
  /** The own session of every configured server, in configuration order. */
  readonly connections: readonly McpConnection[];
  readonly idempotency: IdempotencyBackend;
  /** Runs one call as if it had come over the bus (for tests and benchmarks of several instances). */
  execute(message: Message<ExecuteRequest>, traceparent?: string): Promise<ExecutionResult>;
}

/**
 * The MCP executor: keeps a session with the accounting MCP server and its tool registry,
 * serves `toolsList` and runs `toolExecute` calls with timeouts, one read retry, result
 * truncation and the `executing_tool` / `tool_result` events of the request.
 */
export async function buildMcpExecutor(deps: McpExecutorDeps): Promise<McpExecutor> {
  const ctx = executorContext(deps);
  const { bus, pool } = ctx;
  const subscriptions: ReturnType<Bus['serve']>[] = [];
  let pinNotices: ReturnType<Bus['listen']> | undefined;
  let maintenance: Maintenance | undefined;
  /** Calls made through `execute` (not the bus, whose handlers `stop()` waits for itself). */
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work)).catch(() => undefined);
    return work;
  };
  const connections = pool.connections;

  return {
    registry: pool.registry,
    connection: connections[0] as McpConnection,
    connections,
    idempotency: ctx.idempotency,
    execute: (message, traceparent) => track(executeCall(ctx, message, traceparent)),
    async start() {
      pool.start();
      subscriptions.push(
        bus.serve('toolsList', toolsListHandler(pool)),
        bus.serve('toolExecute', (message, served) =>
          executeCall(ctx, message, served.traceparent, served.reply),
        ),
      );
      pinNotices = bus.listen('toolPinChanged', pinChangedHandler(pool, ctx.log));
      await bus.flush();
      maintenance = startMaintenance(ctx);
    },
    async stop() {
      maintenance?.stop();
      pinNotices?.unsubscribe();
      // Calls this instance sent run to their end; waits on calls sent by others end now.
      const draining = subscriptions.map((sub) => sub.stop());
      ctx.stopping.abort();
      await Promise.allSettled(draining);
      await Promise.allSettled([...inFlight]);
      await pool.stop();
      await flushUsage(ctx);
    },
    async checks() {
      return { mcp: pool.connected };
    },
  };
}
