import { randomUUID } from 'node:crypto';
import { type Bus, HandlerError } from '@munim/bus';
import type { ExecuteRequest, ExecutionResult, Message, ToolList } from '@munim/contracts';
import type { Database } from '@munim/db';
import type { Logger } from '@munim/kit';
import type { Kysely } from 'kysely';
import { type ApprovalBackend, NO_APPROVALS, PgApprovals } from './approvals.ts';
import { ToolCaller, UNAVAILABLE } from './call.ts';
import type { McpConnection } from './connection.ts';
import { executeCall } from './execute.ts';
import { type IdempotencyBackend, IdempotencyStore, MemoryIdempotencyStore } from './idempotency.ts';
import { MemoryPins, PgPins } from './pins.ts';
import { ToolPolicy } from './policy.ts';
import { ServerPool } from './pool.ts';
import type { ToolRegistry } from './registry.ts';
import { UsageCounter } from './registry-store.ts';
import type { McpServerSpec } from './servers.ts';
import { WriteProtocol } from './write-protocol.ts';

export { type ApprovalBackend, PgApprovals } from './approvals.ts';
export { McpConnection, type McpConnectionOptions } from './connection.ts';
export { classifyFailure, neverReachedTool, sanitizeMessage } from './errors.ts';
export {
  hashArgs,
  IdempotencyStore,
  IdempotencyStoreError,
  idempotencyKey,
  MemoryIdempotencyStore,
} from './idempotency.ts';
export { ToolPolicy, ToolPolicyError } from './policy.ts';
export { listAllTools, ToolRegistry, toDefinition } from './registry.ts';
export { diffTools, syncToolRegistry, UsageCounter } from './registry-store.ts';
export { extractResult, truncateResult } from './result.ts';
export { type McpServerSpec, parseServerList, ServerSpecError } from './servers.ts';
export { IDEMPOTENCY_META_KEY, unknownOutcomeMessage } from './write-protocol.ts';

/** Settings of the MCP executor (from the environment in main, literal in tests). */
export interface McpExecutorConfig {
  /** The one MCP server when `servers` is not given (Streamable HTTP). */
  serverUrl?: string | undefined;
  authToken?: string | undefined;
  /** Every MCP server, in order of precedence for tool names they share. */
  servers?: McpServerSpec[] | undefined;
  /** Most tenant sessions kept per server (least recently used closed first; default 100). */
  maxTenantSessions?: number;
  readTimeoutMs: number;
  writeTimeoutMs: number;
  resultMaxChars: number;
  /** Periodic registry refresh (seed: every 5 minutes). */
  registryRefreshMs?: number;
  reconnectBackoff?: { initialMs: number; maxMs: number };
  pingIntervalMs?: number;
  /** How long idempotency keys of writes are kept (default 24 h). */
  idempotencyTtlMs?: number;
  /** Margin past a write's timeout before other instances presume its sender gone (default 5 s). */
  idempotencyGraceMs?: number;
  /** How often expired idempotency keys are deleted (default hourly). */
  idempotencyPurgeMs?: number;
  /** How often call counts are added to `tool_registry.usage_count` (default 5 s). */
  usageFlushMs?: number;
  /** The operator's tool policy (`TOOL_POLICY_FILE`): trusted servers, read/write, tiers, rules. */
  policy?: ToolPolicy | undefined;
}

/** What the MCP executor runs on. */
export interface McpExecutorDeps {
  bus: Bus;
  log: Logger;
  config: McpExecutorConfig;
  /**
   * PostgreSQL, migrated: the idempotency store of writes lives there. Without it writes are
   * exactly-once within this process only (tests of other services).
   */
  db?: Kysely<Database> | undefined;
  /** This instance's id in the idempotency store (default: random). */
  instanceId?: string;
}

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
  const { bus, log, config } = deps;
  const idempotency: IdempotencyBackend = deps.db
    ? new IdempotencyStore({
        db: deps.db,
        owner: deps.instanceId ?? randomUUID(),
        ttlMs: config.idempotencyTtlMs,
      })
    : new MemoryIdempotencyStore({ ttlMs: config.idempotencyTtlMs });
  if (!deps.db) log.warn({}, 'no database: writes are exactly-once within this instance only');
  const approvals: ApprovalBackend = deps.db
    ? new PgApprovals(deps.db, { retryWindowMs: config.idempotencyTtlMs })
    : NO_APPROVALS;
  const usage = deps.db ? new UsageCounter(deps.db) : undefined;
  const flushUsage = () =>
    usage?.flush().catch((error: unknown) => log.warn({ err: error }, 'could not store tool usage counts'));
  const pool = new ServerPool({
    specs: config.servers ?? [{ name: 'mcp', url: config.serverUrl, authToken: config.authToken }],
    log,
    policy: config.policy ?? ToolPolicy.none,
    listTimeoutMs: config.readTimeoutMs,
    reconnectBackoff: config.reconnectBackoff,
    pingIntervalMs: config.pingIntervalMs,
    maxTenantSessions: config.maxTenantSessions,
    db: deps.db,
    pins: deps.db ? new PgPins(deps.db) : new MemoryPins(),
    // Tells every listening instance (the validator); core NATS, fire and forget.
    onToolsChanged: (change) => bus.broadcast('toolsChanged', change),
  });
  const caller = new ToolCaller({
    router: pool,
    log,
    secrets: pool.secrets,
    readTimeoutMs: config.readTimeoutMs,
    resultMaxChars: config.resultMaxChars,
  });
  /** Ends waits on calls in flight elsewhere when this instance stops. */
  const stopping = new AbortController();
  const writes = new WriteProtocol({
    caller,
    idempotency,
    approvals,
    log,
    writeTimeoutMs: config.writeTimeoutMs,
    graceMs: config.idempotencyGraceMs ?? 5_000,
    stopping: stopping.signal,
  });
  const callDeps = { bus, log, pool, caller, writes, usage };
  const subscriptions: ReturnType<Bus['serve']>[] = [];
  let pinNotices: ReturnType<Bus['listen']> | undefined;
  const inFlight = new Set<Promise<unknown>>();
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, work: () => void) => {
    const timer = setInterval(work, ms);
    timer.unref();
    timers.push(timer);
  };

  /** Calls made through `execute` (not the bus, whose handlers `stop()` waits for itself). */
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
    idempotency,
    execute: (message, traceparent) => track(executeCall(callDeps, message, traceparent)),
    async start() {
      pool.start();
      subscriptions.push(
        bus.serve('toolsList', async (): Promise<ToolList> => {
          if (!pool.registry.loaded) throw new HandlerError('MCP_UNAVAILABLE', UNAVAILABLE);
          return { tools: pool.registry.list() };
        }),
        bus.serve('toolExecute', (message, ctx) =>
          executeCall(callDeps, message, ctx.traceparent, ctx.reply),
        ),
      );
      // An operator's decision on a changed tool applies at once; the periodic refresh catches a lost notice.
      pinNotices = bus.listen('toolPinChanged', (message) => {
        log.info({ ...message.data }, 'tool pin decided; reloading the tools');
        void pool.refresh(`tool change ${message.data.reason}`);
      });
      await bus.flush();
      every(config.registryRefreshMs ?? 5 * 60_000, () => void pool.refresh('periodic'));
      const purge = () =>
        void idempotency
          .purge()
          .then((purged) => purged > 0 && log.info({ purged }, 'expired idempotency keys deleted'))
          .catch((error: unknown) => log.warn({ err: error }, 'idempotency purge failed'));
      purge();
      every(config.idempotencyPurgeMs ?? 3_600_000, purge);
      every(config.usageFlushMs ?? 5_000, () => void flushUsage());
    },
    async stop() {
      for (const timer of timers) clearInterval(timer);
      pinNotices?.unsubscribe();
      // Calls this instance sent run to their end; waits on calls sent by others end now.
      const draining = subscriptions.map((sub) => sub.stop());
      stopping.abort();
      await Promise.allSettled(draining);
      await Promise.allSettled([...inFlight]);
      await pool.stop();
      await flushUsage();
    },
    async checks() {
      return { mcp: pool.connected };
    },
  };
}
