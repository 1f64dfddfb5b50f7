import type { Message, RequestScope } from '@munim/contracts';
import { TERMINAL_EVENT_TYPES } from '@munim/contracts';
import { sql } from 'kysely';
import { auditSummary } from '../answer/audit.ts';
import { describeTool } from '../answer/tool-words.ts';
import type { AgentContext } from '../run/context.ts';

/** Deliveries JetStream makes of one query before it gives up (the bus's default). */
const QUERY_DELIVERIES = 5;

/** A confirmed write whose request stopped before its outcome was recorded, as it was settled. */
export interface SettledWrite {
  scope: RequestScope;
  actionId: string;
  tool: string;
  tier: number;
  argsHash: string;
  /** `not_run`: the executor never took its approval, and now never will; `unknown`: it did. */
  outcome: 'not_run' | 'unknown';
  /** Who confirmed it (null: the tenant's owner, or a write confirmed before people were recorded). */
  approvedBy: string | null;
}

type Filter = { requestId: string } | { staleBefore: Date };

/**
 * How long a confirmed write may stay `executing` before it counts as abandoned: longer than every
 * delivery of its request could take (each up to the ack wait, then the executor's timeout).
 */
export function abandonedAfterMs(ackWaitMs: number, executeTimeoutMs: number): number {
  return (QUERY_DELIVERIES + 1) * ackWaitMs + executeTimeoutMs;
}

/**
 * Settles confirmed writes left `executing` by a request that will not finish them (its last
 * delivery failed, or every instance that took it died). Never runs one again: a write whose
 * approval the executor never took is voided — atomically, so a late executor cannot take it after —
 * and one it took is recorded as sent with its outcome unknown.
 */
async function settle(agent: AgentContext, filter: Filter): Promise<SettledWrite[]> {
  const { db } = agent.store;
  const which = (executed: boolean) => {
    let query = db
      .updateTable('pending_actions')
      .where('status', '=', 'executing')
      .where('executed_call_id', executed ? 'is not' : 'is', null);
    query =
      'requestId' in filter
        ? query.where('approved_by_request', '=', filter.requestId)
        : query.where('decided_at', '<', filter.staleBefore);
    return query;
  };
  const columns = [
    'action_id',
    'approved_by_request',
    'conversation_id',
    'entity_id',
    'org_id',
    'tool',
    'tier',
    'args_hash',
    'approved_by',
  ] as const;
  const voided = await which(false)
    .set({
      status: 'void',
      decided_at: sql<Date>`now()`,
      result: JSON.stringify({ success: false, error: 'the request stopped before the change was sent' }),
    })
    .returning(columns)
    .execute();
  const unknown = await which(true)
    .set({
      status: 'executed',
      decided_at: sql<Date>`now()`,
      result: JSON.stringify({
        success: false,
        outcome: 'unknown',
        error: 'the request stopped before the outcome of the change was known',
      }),
    })
    .returning(columns)
    .execute();
  const settled = (outcome: SettledWrite['outcome']) => (row: (typeof voided)[number]) => ({
    scope: {
      requestId: row.approved_by_request ?? '',
      conversationId: row.conversation_id,
      entityId: row.entity_id,
      orgId: row.org_id,
    },
    actionId: row.action_id,
    tool: row.tool,
    tier: row.tier,
    argsHash: row.args_hash,
    outcome,
    approvedBy: row.approved_by,
  });
  return [...voided.map(settled('not_run')), ...unknown.map(settled('unknown'))].filter(
    (s) => s.scope.requestId !== '',
  );
}

/** What the person who confirmed it is told of a settled write. */
function told(write: SettledWrite): { code: 'TOOL_OUTCOME_UNKNOWN' | 'INTERNAL'; message: string } {
  const what = describeTool(write.tool);
  return write.outcome === 'unknown'
    ? {
        code: 'TOOL_OUTCOME_UNKNOWN',
        message: `I sent the change to ${what}, but could not learn whether it was made. Please check your books before asking again.`,
      }
    : {
        code: 'INTERNAL',
        message: `Sorry, I could not finish that request, so I did not ${what}. Nothing was changed; ask again if you still want to.`,
      };
}

/** Records a settled write on its request's stream and ends the request if it had not ended. */
async function announce(agent: AgentContext, write: SettledWrite): Promise<void> {
  const { bus, log } = agent;
  const { requestId } = write.scope;
  log.warn(
    { requestId, actionId: write.actionId, outcome: write.outcome },
    'settled an abandoned confirmed write',
  );
  // The trail says what became of the write the person confirmed (a failure to say so is logged).
  await agent.store
    .audit({
      entityId: write.scope.entityId,
      orgId: write.scope.orgId,
      actor: write.approvedBy ?? 'owner',
      action: 'failed',
      tool: write.tool,
      argsHash: write.argsHash,
      summary: auditSummary(
        'failed',
        write,
        write.outcome === 'unknown'
          ? 'the request stopped before its outcome was known'
          : 'the request stopped before it was sent, so nothing was changed',
      ),
    })
    .catch((error: unknown) =>
      log.error(
        { err: error, requestId, actionId: write.actionId },
        'could not record the settled write in the audit trail',
      ),
    );
  await bus.emit(
    write.scope,
    {
      type: 'confirmation',
      payload: {
        actionId: write.actionId,
        step: write.outcome === 'unknown' ? 'executed' : 'void',
        tool: write.tool,
        tier: write.tier,
        args_hash: write.argsHash,
        reason: write.outcome === 'unknown' ? 'outcome unknown: the request stopped' : 'the request stopped',
      },
    },
    undefined,
    `${requestId}:agent:${write.actionId}:settled`,
  );
  const last = await bus.lastEvent(requestId).catch(() => null);
  if (last !== null && TERMINAL_EVENT_TYPES.includes(last.message.data.type)) return;
  await bus.emit(
    write.scope,
    { type: 'error', payload: told(write) },
    undefined,
    `${requestId}:agent:abandoned`,
  );
}

/**
 * The agent's `onGiveUp`: a query whose last delivery failed settles the write it had approved and
 * ends with what became of it; without one, with `fallback`.
 */
export function settleOnGiveUp(agent: AgentContext, fallback: (message: Message<unknown>) => Promise<void>) {
  return async (message: Message<unknown>) => {
    const settled = await settle(agent, { requestId: message.requestId }).catch((error: unknown) => {
      agent.log.error({ err: error, requestId: message.requestId }, 'could not settle the confirmed write');
      return [];
    });
    if (settled.length === 0) {
      await fallback(message);
      return;
    }
    for (const write of settled) await announce(agent, write);
  };
}

/** Settles every confirmed write abandoned for longer than `afterMs`; how many. */
export async function sweepAbandoned(agent: AgentContext, afterMs: number): Promise<number> {
  const settled = await settle(agent, { staleBefore: new Date(Date.now() - afterMs) });
  for (const write of settled) await announce(agent, write);
  return settled.length;
}
