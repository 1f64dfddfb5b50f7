import type { Database } from '@munim/db';
import { type Kysely, sql } from 'kysely';

/** One write call, as its approval must match it. */
export interface ApprovalClaim {
  approvalId: string | undefined;
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
  /** Uses the approval for this call (a retry of the same call finds it again). */
  use(claim: ApprovalClaim): Promise<ApprovalVerdict>;
}

/**
 * Proof that the user approved exactly this write: a pending action of the same tenant, tool and
 * argument hash that the agent moved to `executing` when the user confirmed it, unexpired when
 * first used, and used by this call only. A message on the bus is not proof: only a row that the
 * agent wrote after the user's confirmation is.
 */
export class PgApprovals implements ApprovalBackend {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async use(claim: ApprovalClaim): Promise<ApprovalVerdict> {
    if (!claim.approvalId) return { ok: false, reason: 'no approval given' };
    const used = await this.#db
      .updateTable('pending_actions')
      .set({ executed_call_id: claim.callId })
      .where('action_id', '=', claim.approvalId)
      .where('entity_id', '=', claim.entityId)
      .where('org_id', '=', claim.orgId)
      .where('tool', '=', claim.tool)
      .where('args_hash', '=', claim.argsHash)
      .where('status', '=', 'executing')
      .where('approved_at', 'is not', null)
      .where((eb) =>
        eb.or([
          eb('executed_call_id', '=', claim.callId),
          eb.and([eb('executed_call_id', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]),
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
        'executed_call_id',
        'expires_at',
      ])
      .where('action_id', '=', claim.approvalId ?? '')
      .executeTakeFirst();
    if (!row) return 'no such approval';
    if (row.entity_id !== claim.entityId || row.org_id !== claim.orgId) return 'approval of another tenant';
    if (row.tool !== claim.tool) return 'approval of another tool';
    if (row.args_hash !== claim.argsHash) return 'approval of other arguments';
    if (row.status !== 'executing' || row.approved_at === null)
      return `approval is ${row.status}, not approved`;
    if (row.executed_call_id !== null) return 'approval used by another call';
    return 'approval expired';
  }
}

/** No database: no approval can be proven, so only writes the policy exempts run. */
export const NO_APPROVALS: ApprovalBackend = {
  use: async () => ({ ok: false, reason: 'no approval store (no database)' }),
};
