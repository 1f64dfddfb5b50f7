import { randomUUID } from 'node:crypto';
import type { Bus } from '@munim/bus';
import type { Database } from '@munim/db';
import type { Logger } from '@munim/kit';
import type { Kysely } from 'kysely';
import { type ApprovalBackend, NO_APPROVALS, PgApprovals } from './approvals.ts';
import { ToolCaller } from './call.ts';
import type { ExecuteDeps } from './execute.ts';
import { type IdempotencyBackend, IdempotencyStore, MemoryIdempotencyStore } from './idempotency.ts';
import { MemoryPins, PgPins } from './pins.ts';
import { ToolPolicy } from './policy.ts';
import { ServerPool } from './pool.ts';
import { UsageCounter } from './registry-store.ts';
import type { McpServerSpec } from './servers.ts';
import { WriteProtocol } from './write-protocol.ts';

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
  /** Periodic registry refresh (default every 5 minutes). */
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

/** The executor's parts, built from its dependencies: what its handlers and schedules share. */
export interface ExecutorContext extends ExecuteDeps {
  config: McpExecutorConfig;
  idempotency: IdempotencyBackend;
  /** Ends waits on calls in flight elsewhere when this instance stops. */
  stopping: AbortController;
}

/**
 * Builds the executor's parts: with a database, the idempotency store, approvals, pins and usage
 * counts live in PostgreSQL; without one, in memory (and approvals are refused).
 */
export function executorContext(deps: McpExecutorDeps): ExecutorContext {
  const { bus, log, config, db } = deps;
  const idempotency: IdempotencyBackend = db
    ? new IdempotencyStore({ db, owner: deps.instanceId ?? randomUUID(), ttlMs: config.idempotencyTtlMs })
    : new MemoryIdempotencyStore({ ttlMs: config.idempotencyTtlMs });
  if (!db) log.warn({}, 'no database: writes are exactly-once within this instance only');
  const approvals: ApprovalBackend = db
    ? new PgApprovals(db, { retryWindowMs: config.idempotencyTtlMs })
    : NO_APPROVALS;
  const pool = new ServerPool({
    specs: config.servers ?? [{ name: 'mcp', url: config.serverUrl, authToken: config.authToken }],
    log,
    policy: config.policy ?? ToolPolicy.none,
    listTimeoutMs: config.readTimeoutMs,
    reconnectBackoff: config.reconnectBackoff,
    pingIntervalMs: config.pingIntervalMs,
    maxTenantSessions: config.maxTenantSessions,
    db,
    pins: db ? new PgPins(db) : new MemoryPins(),
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
  const usage = db ? new UsageCounter(db) : undefined;
  return { bus, log, config, pool, caller, writes, usage, idempotency, stopping };
}
