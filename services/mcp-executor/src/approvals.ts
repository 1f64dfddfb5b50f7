import type { Database } from '@munim/db';
import { type Kysely, sql } from 'kysely';
import { IDEMPOTENCY_TTL_MS } from './idempotency.ts';

/** One write call, as its approval must match it. */
export interface ApprovalClaim {
  approvalId: string | undefined;
  requestId: string;
  callId: string;
  tool: string;
  argsHash: string;
  entityId: string;
  orgId: string;
}

/** Whether a write may run; when not, why (for the log, never for the caller to probe). */
export type ApprovalVerdict = { ok: true } | { ok: false; reason: string };

/** Where approvals are proven: PostgreSQL's `pending_actions`. */
export interface ApprovalBackend {
  /** Uses the approval for this call (a retry of the same call of the same request finds it again). */
  use(claim: ApprovalClaim): Promise<ApprovalVerdict>;
}

/** Settings of {@link PgApprovals}. */
export interface PgApprovalsOptions {
  /**
   * How long after its first use a retry of the bound call is accepted: the idempotency store's
   * retention, so a retry always finds the call's outcome there and never sends it again.
   */
  retryWindowMs?: number | undefined;
}

/**
 * Proof that the user approved exactly this write: a pending action of the same tenant, tool and
 * argument hash that the agent moved to `executing` when the user confirmed it, unexpired when
 * first used, and used by one call of one request only. The first use binds it, in one statement,
 * so of racing requests one wins and the others are refused. A message on the bus is not proof:
 * only a row that the agent wrote after the user's confirmation is.
 */
export class PgApprovals implements ApprovalBackend {
  readonly #db: Kysely<Database>;
  readonly #retryWindowMs: number;

  constructor(db: Kysely<Database>, opts: PgApprovalsOptions = {}) {
    this.#db = db;
    this.#retryWindowMs = opts.retryWindowMs ?? IDEMPOTENCY_TTL_MS;
  }

  async use(claim: ApprovalClaim): Promise<ApprovalVerdict> {
    if (!claim.approvalId) return { ok: false, reason: 'no approval given' };
    const used = await this.#db
      .updateTable('pending_actions')
      .set({
        executed_call_id: claim.callId,
        executed_request_id: claim.requestId,
        executed_at: sql<Date>`coalesce(executed_at, now())`,
      })
      .where('action_id', '=', claim.approvalId)
      .where('entity_id', '=', claim.entityId)
      .where('org_id', '=', claim.orgId)
      .where('tool', '=', claim.tool)
      .where('args_hash', '=', claim.argsHash)
      .where('approved_at', 'is not', null)
      .where((eb) =>
        eb.or([
          // First use: unused, unexpired, by the request that carried the approval (when known).
          eb.and([
            eb('status', '=', 'executing'),
            eb('executed_call_id', 'is', null),
            eb('executed_request_id', 'is', null),
            eb('expires_at', '>', sql<Date>`now()`),
            eb.or([eb('approved_by_request', 'is', null), eb('approved_by_request', '=', claim.requestId)]),
          ]),
          // A retry of the bound call (the agent may have settled it already), while its outcome is kept.
          eb.and([
            eb('status', 'in', ['executing', 'executed']),
            eb('executed_call_id', '=', claim.callId),
            eb('executed_request_id', '=', claim.requestId),
            eb('executed_at', '>', sql<Date>`now() - ${this.#retryWindowMs} * interval '1 millisecond'`),
          ]),
        ]),
      )
      .returning('action_id')
      .executeTakeFirst();
    if (used) return { ok: true };
    return { ok: false, reason: await this.#why(claim) };
  }

  /** Why an approval did not hold, for the security log. */
  async #why(claim: ApprovalClaim): Promise<string> {
    const row = await this.#db
      .selectFrom('pending_actions')
      .select([
        'entity_id',
        'org_id',
        'tool',
        'args_hash',
        'status',
        'approved_at',
        'approved_by_request',
        'executed_call_id',
        'executed_request_id',
      ])
      .where('action_id', '=', claim.approvalId ?? '')
      .executeTakeFirst();
    if (!row) return 'no such approval';
    if (row.entity_id !== claim.entityId || row.org_id !== claim.orgId) return 'approval of another tenant';
    if (row.tool !== claim.tool) return 'approval of another tool';
    if (row.args_hash !== claim.argsHash) return 'approval of other arguments';
    if (row.approved_at === null || !['executing', 'executed'].includes(row.status))
      return `approval is ${row.status}, not approved`;
    if (row.executed_call_id !== null) {
      if (row.executed_request_id !== claim.requestId) return 'approval used by another request';
      if (row.executed_call_id !== claim.callId) return 'approval used by another call';
      return 'approval used by this call too long ago: its outcome is no longer kept';
    }
    if (row.status !== 'executing') return `approval is ${row.status}, not approved`;
    if (row.approved_by_request !== null && row.approved_by_request !== claim.requestId)
      return 'approval carried by another request';
    return 'approval expired';
  }
}

/** No database: no approval can be proven, so only writes the policy exempts run. */
export const NO_APPROVALS: ApprovalBackend = {
  use: async () => ({ ok: false, reason: 'no approval store (no database)' }),
};
