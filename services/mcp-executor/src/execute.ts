import type { Bus } from '@munim/bus';
import type { ExecuteRequest, ExecutionResult, Message, RequestScope } from '@munim/contracts';
import type { Logger } from '@munim/kit';
import { CallAnnouncement } from './announce.ts';
import { failure, type Outcome, type ToolCaller, UNAVAILABLE } from './call.ts';
import type { ServerPool } from './pool.ts';
import type { UsageCounter } from './registry-store.ts';
import type { WriteProtocol } from './write-protocol.ts';

/** What {@link executeCall} runs a call with. */
export interface ExecuteDeps {
  bus: Bus;
  log: Logger;
  pool: ServerPool;
  caller: ToolCaller;
  writes: WriteProtocol;
  /** Counts calls per tool for `tool_registry.usage_count`, when there is a database. */
  usage?: UsageCounter | undefined;
}

/**
 * Runs one `toolExecute` call: finds its tool, sends a read or hands a write to the write
 * protocol, and announces it on the request's stream. `reply`, when given, answers the caller in
 * the same tick as the `tool_result` publish: one socket write carries both, the event first.
 */
export async function executeCall(
  deps: ExecuteDeps,
  message: Message<ExecuteRequest>,
  traceparent?: string,
  reply?: (result: ExecutionResult) => void,
): Promise<ExecutionResult> {
  const { bus, log, pool, caller, writes, usage } = deps;
  const started = performance.now();
  const { tool, args, callId } = message.data;
  const scope: RequestScope = {
    requestId: message.requestId,
    conversationId: message.conversationId,
    entityId: message.entityId,
    orgId: message.orgId,
    ...(message.actor ? { actor: message.actor } : {}),
  };
  const announcement = new CallAnnouncement({
    emit: (event) => bus.emit(scope, event, traceparent),
    emitAll: (events) => bus.emitAll(scope, events, traceparent),
    log,
    requestId: scope.requestId,
    call: message.data,
  });

  const run = async (): Promise<Outcome> => {
    if (!pool.registry.loaded) return failure('MCP_UNAVAILABLE', UNAVAILABLE);
    const definition = await pool.lookup(tool);
    if (!definition) {
      const withheld = pool.withheld(tool);
      if (withheld) return failure('TOOL_BLOCKED', withheld);
      return failure('TOOL_NOT_FOUND', `TOOL_NOT_FOUND: there is no tool named "${tool}".`);
    }
    const sending = (isWrite: boolean) => {
      announcement.sending(isWrite);
      usage?.count(tool);
    };
    if (!definition.isWrite && !message.data.isWrite) {
      sending(false);
      return caller.read(tool, args, scope, announcement.during);
    }
    // A write runs only with the user's approval of exactly this call, or the operator's exemption.
    return writes.run(
      {
        tool,
        args,
        callId,
        approvalId: message.data.approvalId,
        scope,
        exempt: definition.access?.tier === 0,
        service: message.service,
      },
      { onApproved: () => sending(true), emit: announcement.during },
    );
  };

  const outcome = await run();
  const durationMs = Math.round(performance.now() - started);
  // Published now, acked later: the caller gets its reply without waiting for the stream's ack.
  // Both events left on this connection before the reply does, so the stream holds them ahead of
  // anything the caller emits next.
  const reported = announcement.finish(outcome, durationMs);
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
  await reported;
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
