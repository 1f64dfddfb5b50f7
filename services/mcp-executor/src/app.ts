import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Bus, HandlerError } from '@munim/bus';
import type {
  AgentEvent,
  ErrorInfo,
  ExecuteRequest,
  ExecutionResult,
  Message,
  RequestScope,
  ToolDefinition,
  ToolList,
  ToolsChanged,
} from '@munim/contracts';
import type { Database } from '@munim/db';
import type { Logger } from '@munim/kit';
import { lazyCounter, lazyHistogram, primaryToolGroup } from '@munim/kit';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Kysely } from 'kysely';
import { type ApprovalBackend, NO_APPROVALS, PgApprovals } from './approvals.ts';
import { McpConnection } from './connection.ts';
import { classifyFailure, type FailureKind, neverReachedTool, sanitizeMessage } from './errors.ts';
import { reportedFailure } from './failure-text.ts';
import {
  hashArgs,
  type IdempotencyBackend,
  IdempotencyStore,
  MemoryIdempotencyStore,
  type StoredOutcome,
} from './idempotency.ts';
import { ToolPolicy } from './policy.ts';
import { listAllTools, ToolRegistry, toDefinition } from './registry.ts';
import { diffTools, isEmptyDiff, syncToolRegistry, UsageCounter } from './registry-store.ts';
import { type CallResultLike, extractResult, resultText, truncateResult } from './result.ts';
import { createTransport, describeServer, type McpServerSpec, ServerSpecError } from './servers.ts';

const toolCalls = lazyCounter('munim.tool_calls', 'MCP tool calls by tool and outcome');
const toolDuration = lazyHistogram('munim.tool_call.duration', 'MCP tool call time', 's');

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

interface Outcome extends StoredOutcome {
  /** For writes: the idempotency outcome. */
  outcome?: 'succeeded' | 'failed' | 'unknown';
  replayed?: boolean;
}

/** How long a call waits for a session that is being re-established before giving up. */
const SESSION_WAIT_MS = 2_000;
/** Least time between registry refreshes caused by calls naming an unknown tool. */
const MISS_REFRESH_MS = 1_000;
/**
 * A read still running after this long is announced (`executing_tool`); one answered sooner is
 * announced together with its result, in one socket write: well under what a person notices, and
 * each write to NATS wakes the server on another CPU.
 */
const ANNOUNCE_READ_AFTER_MS = 20;

const UNAVAILABLE = 'The accounting system is not reachable right now. Try again shortly.';
const NOT_APPROVED = 'This change was not approved by the user, so it was not made.';

/** Where the idempotency key travels in a call's `_meta`. */
export const IDEMPOTENCY_META_KEY = 'munim/idempotency-key';

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** What the agent (and through it the LLM) is told when a write may or may not have run. */
export const unknownOutcomeMessage = (tool: string) =>
  `${tool} was sent to the accounting system but no answer came back, so it may or may not have been applied. ` +
  'It will not be sent again. Check with a read tool (list or get the records it would have created or ' +
  'changed) before saying anything about it to the user.';

/**
 * The MCP executor: keeps a session with the accounting MCP server and its tool registry,
 * serves `toolsList` and runs `toolExecute` calls with timeouts, one read retry, result
 * truncation and the `executing_tool` / `tool_result` events of the request.
 */
export async function buildMcpExecutor(deps: McpExecutorDeps): Promise<McpExecutor> {
  const { bus, log, config } = deps;
  const policy = config.policy ?? ToolPolicy.none;
  const registry = new ToolRegistry();
  const idempotency: IdempotencyBackend = deps.db
    ? new IdempotencyStore({
        db: deps.db,
        owner: deps.instanceId ?? randomUUID(),
        ttlMs: config.idempotencyTtlMs,
      })
    : new MemoryIdempotencyStore({ ttlMs: config.idempotencyTtlMs });
  if (!deps.db) log.warn({}, 'no database: writes are exactly-once within this instance only');
  const approvals: ApprovalBackend = deps.db ? new PgApprovals(deps.db) : NO_APPROVALS;
  const graceMs = config.idempotencyGraceMs ?? 5_000;
  const usage = deps.db ? new UsageCounter(deps.db) : undefined;
  const flushUsage = () =>
    usage?.flush().catch((error: unknown) => log.warn({ err: error }, 'could not store tool usage counts'));
  let purgeTimer: NodeJS.Timeout | undefined;
  let usageTimer: NodeJS.Timeout | undefined;
  const specs: McpServerSpec[] = config.servers ?? [
    { name: 'mcp', url: config.serverUrl, authToken: config.authToken },
  ];
  if (specs.length === 0) throw new ServerSpecError('no MCP server configured');
  for (const spec of specs) {
    if (!spec.url && !spec.command)
      throw new ServerSpecError(`server ${spec.name} has neither url nor command`);
  }
  const secrets = specs.flatMap((spec) => (spec.authToken ? [spec.authToken] : []));
  const subscriptions: ReturnType<Bus['serve']>[] = [];
  const inFlight = new Set<Promise<unknown>>();
  let refreshTimer: NodeJS.Timeout | undefined;
  let refreshing: Promise<void> | undefined;
  let lastMissRefresh = 0;
  let stopped = false;
  /** Ends waits on calls in flight elsewhere when this instance stops. */
  const stopping = new AbortController();

  interface ServerEntry {
    spec: McpServerSpec;
    /** The server's own session: listing, notifications, and calls where no tenant session applies. */
    connection: McpConnection;
    /** Its tools under their own names, once listed. */
    tools: ToolDefinition[] | undefined;
    /** Sessions whose URL carries a tenant's entityid/orgid, least recently used first. */
    tenants: Map<string, McpConnection>;
  }
  /** Where an exposed tool name is called: which server, under which name. */
  let routes = new Map<string, { entry: ServerEntry; name: string }>();

  const entries: ServerEntry[] = specs.map((spec) => {
    const entry: ServerEntry = {
      spec,
      tools: undefined,
      tenants: new Map(),
      connection: new McpConnection({
        transport: () => createTransport(spec),
        label: describeServer(spec),
        authToken: spec.authToken,
        log,
        backoff: config.reconnectBackoff,
        pingIntervalMs: config.pingIntervalMs,
        onConnected: (client) => loadRegistry(entry, client, 'connected'),
        onToolsChanged: () => void refresh('list_changed'),
      }),
    };
    return entry;
  });
  const connection = entries[0]?.connection as McpConnection;

  /** The session a call of this tenant uses on this server. */
  function sessionFor(entry: ServerEntry, scope: RequestScope): McpConnection {
    if (entry.spec.command || entry.spec.tenantParams === false || stopped) return entry.connection;
    const key = `${scope.entityId}\u0000${scope.orgId}`;
    let session = entry.tenants.get(key);
    if (session) {
      // Re-inserted, so the map's order stays least-recently-used first.
      entry.tenants.delete(key);
      entry.tenants.set(key, session);
      return session;
    }
    session = new McpConnection({
      transport: () => createTransport(entry.spec, { entityId: scope.entityId, orgId: scope.orgId }),
      label: describeServer(entry.spec),
      authToken: entry.spec.authToken,
      log,
      backoff: config.reconnectBackoff,
      pingIntervalMs: 0,
      onToolsChanged: () => void refresh('list_changed'),
    });
    session.start();
    entry.tenants.set(key, session);
    const maxSessions = config.maxTenantSessions ?? 100;
    for (const [oldKey, old] of entry.tenants) {
      if (entry.tenants.size <= maxSessions) break;
      entry.tenants.delete(oldKey);
      void old.stop();
    }
    return session;
  }

  /**
   * The registry of every server together. A name listed by more than one server keeps its bare
   * form on the first server in configuration order; the others get `<server>__<name>`.
   */
  function combine(): ToolDefinition[] {
    const firstOwner = new Map<string, ServerEntry>();
    for (const entry of entries) {
      for (const tool of entry.tools ?? []) if (!firstOwner.has(tool.name)) firstOwner.set(tool.name, entry);
    }
    const next = new Map<string, { entry: ServerEntry; name: string }>();
    const definitions: ToolDefinition[] = [];
    for (const entry of entries) {
      for (const tool of entry.tools ?? []) {
        const exposed = firstOwner.get(tool.name) === entry ? tool.name : `${entry.spec.name}__${tool.name}`;
        if (exposed.length > 128 || next.has(exposed)) {
          log.warn({ server: entry.spec.name, tool: tool.name }, 'tool left out: its name collides');
          continue;
        }
        next.set(exposed, { entry, name: tool.name });
        definitions.push({ ...tool, name: exposed });
      }
    }
    routes = next;
    return definitions;
  }

  const loadRegistry = async (entry: ServerEntry, client: Client, reason: string) => {
    const listed = await listAllTools(client, config.readTimeoutMs);
    const tools: ToolDefinition[] = [];
    const skipped: string[] = [];
    for (const item of listed) {
      // Classified by the server's own name: a prefix added on collision must not hide its verb.
      const definition = toDefinition(item, entry.spec.name, policy);
      if (definition) tools.push(definition);
      else skipped.push(String(item.name));
    }
    if (skipped.length > 0) log.warn({ skipped }, 'tools with unusable definitions left out of the registry');
    entry.tools = tools;
    const before = registry.list();
    registry.replaceDefinitions(combine());
    const after = registry.list();
    const diff = diffTools(before, after);
    log.info({ server: entry.spec.name, tools: after.length, reason, ...diff }, 'tool registry loaded');
    if (isEmptyDiff(diff)) return;
    if (deps.db) {
      // The table is a record for people and other services; the executor serves from memory.
      // Grouped by the server's own name: a `<server>__` prefix must not place a tool in a group.
      const groupOf = (tool: ToolDefinition) => primaryToolGroup(routes.get(tool.name)?.name ?? tool.name);
      await syncToolRegistry(deps.db, after, groupOf).catch((error: unknown) =>
        log.warn({ err: error }, 'could not store the tool registry'),
      );
    }
    publishToolsChanged({ reason, ...diff, total: after.length });
  };

  /** Tells every listening instance (the validator) that the registry changed; core NATS, fire and forget. */
  const publishToolsChanged = (data: ToolsChanged) => bus.broadcast('toolsChanged', data);

  function refresh(reason: string): Promise<void> {
    refreshing ??= (async () => {
      for (const entry of entries) {
        const client = await entry.connection.client(0);
        if (!client) continue;
        try {
          await loadRegistry(entry, client, reason);
        } catch (error) {
          log.warn(
            { server: entry.spec.name, reason, err: sanitizeMessage(String(error), secrets) },
            'tool registry refresh failed',
          );
          if (classifyFailure(error) === 'transport') entry.connection.markBroken(client, error);
        }
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

  type Sent =
    | { kind: 'answer'; raw: CallResultLike }
    | { kind: 'no_session' }
    | { kind: 'error'; error: unknown; failure: FailureKind };

  /** One `tools/call` on the current session; failures are classified, never thrown. */
  async function send(
    tool: string,
    args: Record<string, unknown>,
    timeoutMs: number,
    attempt: number,
    scope: RequestScope,
    meta?: Record<string, unknown>,
  ): Promise<Sent> {
    const route = routes.get(tool);
    if (!route) return { kind: 'error', error: new Error(`no route to ${tool}`), failure: 'tool_not_found' };
    const session = sessionFor(route.entry, scope);
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
      if (kind === 'tool_not_found') void refresh('tool not found on server');
      return { kind: 'error', error, failure: kind };
    }
  }

  /**
   * The outcome of a call the server answered. A write whose answer plainly reports an error
   * without `isError` failed too; a read may legitimately return failure-like data (a job status).
   */
  function answered(tool: string, raw: CallResultLike, isWrite: boolean): Outcome {
    if (raw.isError === true) {
      return failure('TOOL_FAILED', sanitizeMessage(resultText(raw), secrets, `${tool} reported an error.`));
    }
    const reported = isWrite ? reportedFailure(raw) : undefined;
    if (reported) {
      log.warn({ tool, pattern: reported.pattern }, 'write answered with an error text but no isError');
      return failure('TOOL_FAILED', sanitizeMessage(reported.message, secrets, `${tool} reported an error.`));
    }
    const { value, truncated } = truncateResult(extractResult(raw), config.resultMaxChars);
    return { success: true, result: value, truncated };
  }

  const notFound = (tool: string) =>
    failure('TOOL_NOT_FOUND', `The tool ${tool} does not exist on the accounting system.`);
  const retryEvent = (tool: string, attempt: number): AgentEvent => ({
    type: 'tool_retry',
    payload: { tool, attempt, reason: 'Connection to the accounting system was lost; retrying' },
  });

  /** A read: explicit timeout, one more try on a new session after a transport error. */
  async function callRead(
    tool: string,
    args: Record<string, unknown>,
    scope: RequestScope,
    emit: (event: AgentEvent) => Promise<unknown>,
  ): Promise<Outcome> {
    const timeoutMs = config.readTimeoutMs;
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const sent = await send(tool, args, timeoutMs, attempt, scope);
      if (sent.kind === 'no_session') return failure('MCP_UNAVAILABLE', UNAVAILABLE);
      if (sent.kind === 'answer') return answered(tool, sent.raw, false);
      if (sent.failure === 'timeout') {
        return failure(
          'TOOL_TIMEOUT',
          `${tool} did not answer within ${Math.round(timeoutMs / 100) / 10} s.`,
        );
      }
      if (sent.failure === 'tool_not_found') return notFound(tool);
      if (sent.failure === 'protocol') {
        return failure('TOOL_FAILED', sanitizeMessage(errorMessage(sent.error), secrets));
      }
      if (attempt === 1) await emit(retryEvent(tool, 2));
    }
    return failure('MCP_UNAVAILABLE', UNAVAILABLE);
  }

  /**
   * A write, exactly once: the idempotency key is stored before the call is sent; a repeat gets
   * the stored outcome; a call with no answer is `unknown` and never re-sent; a retry happens
   * only when the failure proves the call never reached the tool.
   */
  async function callWrite(
    tool: string,
    args: Record<string, unknown>,
    scope: RequestScope,
    callId: string,
    emit: (event: AgentEvent) => Promise<unknown>,
  ): Promise<Outcome> {
    const timeoutMs = config.writeTimeoutMs;
    const deadlineMs = SESSION_WAIT_MS + timeoutMs + graceMs;
    const unknownOutcome = failure('TOOL_OUTCOME_UNKNOWN', unknownOutcomeMessage(tool));
    let claim: Awaited<ReturnType<IdempotencyBackend['claim']>>;
    try {
      claim = await idempotency.claim(
        { requestId: scope.requestId, callId, tool, argsHash: hashArgs(args) },
        deadlineMs,
        stopping.signal,
      );
    } catch (error) {
      if (stopping.signal.aborted) {
        return failure(
          'SERVICE_UNAVAILABLE',
          `${tool} is still running elsewhere; this executor is stopping.`,
        );
      }
      log.error({ err: error, tool, callId }, 'idempotency store unavailable; write not sent');
      return failure('SERVICE_UNAVAILABLE', `${tool} was not sent: its safety record could not be written.`);
    }
    if (claim.kind === 'conflict') {
      return failure(
        'CONFLICT',
        `Call ${callId} was already made with other arguments; it is not run again with these.`,
      );
    }
    if (claim.kind === 'done') {
      log.info({ tool, callId, state: claim.state }, 'write answered from the idempotency store');
      const stored = claim.state === 'unknown' || !claim.outcome ? unknownOutcome : claim.outcome;
      return { ...stored, outcome: claim.state, replayed: true };
    }
    const { key } = claim;
    const settle = async (state: 'succeeded' | 'failed' | 'unknown', outcome: Outcome): Promise<Outcome> => {
      try {
        await idempotency.complete(key, state, outcome);
      } catch (error) {
        // The row stays pending; once its deadline passes, others report the call as unknown.
        log.error({ err: error, tool, callId, state }, 'could not record a write outcome');
      }
      return { ...outcome, outcome: state };
    };
    const release = async (outcome: Outcome): Promise<Outcome> => {
      await idempotency
        .release(key)
        .catch((error: unknown) => log.error({ err: error, tool, callId }, 'could not release a write'));
      return outcome;
    };
    const meta = { [IDEMPOTENCY_META_KEY]: key };
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const sent = await send(tool, args, timeoutMs, attempt, scope, meta);
      if (sent.kind === 'no_session') return release(failure('MCP_UNAVAILABLE', UNAVAILABLE));
      if (sent.kind === 'answer') {
        const outcome = answered(tool, sent.raw, true);
        return settle(outcome.success ? 'succeeded' : 'failed', outcome);
      }
      if (sent.failure === 'tool_not_found') return release(notFound(tool));
      if (sent.failure === 'protocol') {
        return settle('failed', failure('TOOL_FAILED', sanitizeMessage(errorMessage(sent.error), secrets)));
      }
      if (sent.failure === 'transport' && neverReachedTool(sent.error)) {
        if (attempt === 2) return release(failure('MCP_UNAVAILABLE', UNAVAILABLE));
        try {
          await idempotency.extend(key, deadlineMs);
        } catch {
          return release(failure('MCP_UNAVAILABLE', UNAVAILABLE));
        }
        await emit(retryEvent(tool, 2));
        continue;
      }
      // Timed out, or the connection broke after the request left: the write may have run.
      return settle('unknown', unknownOutcome);
    }
    return release(failure('MCP_UNAVAILABLE', UNAVAILABLE));
  }

  /**
   * Runs one call. `reply`, when given, answers the caller in the same tick as the `tool_result`
   * publish: one socket write carries both, the event first.
   */
  async function execute(
    message: Message<ExecuteRequest>,
    traceparent?: string,
    reply?: (result: ExecutionResult) => void,
  ): Promise<ExecutionResult> {
    const started = performance.now();
    const { tool, args, callId } = message.data;
    const scope: RequestScope = {
      requestId: message.requestId,
      conversationId: message.conversationId,
      entityId: message.entityId,
      orgId: message.orgId,
    };
    const emit = (event: AgentEvent) => bus.emit(scope, event, traceparent);
    // Once the call has run, its reply matters more than its event: a lost event is logged, not thrown.
    const emitAfter = (event: AgentEvent) =>
      emit(event).catch((error: unknown) =>
        log.error(
          { err: error, requestId: scope.requestId, tool, event: event.type },
          'could not emit event',
        ),
      );

    // `executing_tool`, once a tool was found to call: published once (by whichever comes first).
    let calling = false;
    let announced: Promise<unknown> | undefined;
    let readTimer: NodeJS.Timeout | undefined;
    const announce = () => {
      if (calling) announced ??= emitAfter({ type: 'executing_tool', payload: { tool, callId, args } });
    };
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
      // A write runs only with the user's approval of exactly this call, or the operator's exemption.
      if (isWrite && definition.access?.tier !== 0) {
        const verdict = await approvals.use({
          approvalId: message.data.approvalId,
          callId,
          tool,
          argsHash: hashArgs(args),
          entityId: scope.entityId,
          orgId: scope.orgId,
        });
        if (!verdict.ok) {
          log.warn(
            { requestId: scope.requestId, tool, callId, reason: verdict.reason, service: message.service },
            'security: write refused without approval',
          );
          return failure('WRITE_NOT_APPROVED', NOT_APPROVED);
        }
      }
      // Never after the tool_result below, which announces it first if the answer came sooner.
      // A write is announced as soon as its request is on the way (the next check phase), so the
      // stream shows it was sent even if this process dies before the answer; a read only if it
      // is still running after ANNOUNCE_READ_AFTER_MS.
      calling = true;
      if (isWrite) setImmediate(announce);
      else readTimer = setTimeout(announce, ANNOUNCE_READ_AFTER_MS);
      usage?.count(tool);
      // A retry's event comes after the announcement too.
      const emitInCall = (event: AgentEvent) => {
        announce();
        return emitAfter(event);
      };
      return isWrite
        ? callWrite(tool, args, scope, callId, emitInCall)
        : callRead(tool, args, scope, emitInCall);
    };

    const outcome = await run();
    const durationMs = Math.round(performance.now() - started);
    clearTimeout(readTimer);
    announce();
    // Published now, acked later: the caller gets its reply without waiting for the stream's ack.
    // Both events left on this connection before the reply does, so the stream holds them ahead of
    // anything the caller emits next.
    const reported = emitAfter({
      type: 'tool_result',
      payload: {
        tool,
        success: outcome.success,
        ...(outcome.success
          ? { result: outcome.result }
          : { error: outcome.error?.message, ...(outcome.error ? { code: outcome.error.code } : {}) }),
        callId,
        duration_ms: durationMs,
        truncated: outcome.truncated,
      },
    });
    const result: ExecutionResult = {
      tool,
      success: outcome.success,
      ...(outcome.success ? { result: outcome.result } : { error: outcome.error }),
      truncated: outcome.truncated,
      durationMs,
      ...(outcome.outcome ? { outcome: outcome.outcome } : {}),
      ...(outcome.replayed ? { replayed: true } : {}),
    };
    reply?.(result);
    // The caller has its answer; this call stays in flight (for shutdown) until the stream has both.
    await Promise.all([announced, reported]);
    log.info(
      {
        requestId: scope.requestId,
        tool,
        callId,
        success: outcome.success,
        code: outcome.error?.code,
        outcome: outcome.outcome,
        replayed: outcome.replayed,
        durationMs,
      },
      'tool executed',
    );
    return result;
  }

  const track = <T>(work: Promise<T>): Promise<T> => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work)).catch(() => undefined);
    return work;
  };

  return {
    registry,
    connection,
    connections: entries.map((entry) => entry.connection),
    idempotency,
    execute: (message, traceparent) => track(execute(message, traceparent)),
    async start() {
      for (const entry of entries) entry.connection.start();
      subscriptions.push(
        bus.serve('toolsList', async (): Promise<ToolList> => {
          if (!registry.loaded) throw new HandlerError('MCP_UNAVAILABLE', UNAVAILABLE);
          return { tools: registry.list() };
        }),
        bus.serve('toolExecute', (message, ctx) => track(execute(message, ctx.traceparent, ctx.reply))),
      );
      await bus.flush();
      refreshTimer = setInterval(() => void refresh('periodic'), config.registryRefreshMs ?? 5 * 60_000);
      refreshTimer.unref();
      const purge = () =>
        void idempotency
          .purge()
          .then((purged) => purged > 0 && log.info({ purged }, 'expired idempotency keys deleted'))
          .catch((error: unknown) => log.warn({ err: error }, 'idempotency purge failed'));
      purge();
      purgeTimer = setInterval(purge, config.idempotencyPurgeMs ?? 3_600_000);
      purgeTimer.unref();
      usageTimer = setInterval(() => void flushUsage(), config.usageFlushMs ?? 5_000);
      usageTimer.unref();
    },
    async stop() {
      clearInterval(refreshTimer);
      clearInterval(purgeTimer);
      clearInterval(usageTimer);
      await Promise.allSettled(subscriptions.map((sub) => sub.drain()));
      // Calls this instance sent run to their end; waits on calls sent by others end now.
      stopping.abort();
      await Promise.allSettled([...inFlight]);
      await refreshing?.catch(() => undefined);
      stopped = true;
      await Promise.allSettled(
        entries.flatMap((entry) => [entry.connection, ...entry.tenants.values()].map((c) => c.stop())),
      );
      await flushUsage();
    },
    async checks() {
      return { mcp: entries.every((entry) => entry.connection.connected) };
    },
  };
}
