import { type Actor, globMatches, type PersonRole, partyKey, type RequestScope } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type Kysely, sql } from 'kysely';

/** A write waiting for other people, as its row keeps it. */
export interface AwaitingApproval {
  actionId: string;
  status: string;
  requestedBy: string | null;
  /** The maker's roles when they asked (what they may confirm alone depends on them). */
  requestedRoles: PersonRole[];
  approvalsNeeded: number;
  approverRoles: PersonRole[];
  approvalReason: string | null;
  expiresAt: Date;
  argsHash: string;
}

/** What a decision came to. */
export type DecisionOutcome =
  /** Someone decided first (or the write is no longer waiting): nothing recorded. */
  | { kind: 'closed'; status: string }
  /** This person decided already on the call as it stands. */
  | { kind: 'repeated' }
  /** Recorded; more approvals are needed. */
  | { kind: 'recorded'; approvals: number; needed: number }
  /** Recorded, and it was the last one needed: the write is `executing`, approved by this request. */
  | { kind: 'approved' }
  | { kind: 'rejected' };

/** A standing approval a write may use. */
export interface StandingScope {
  tool: string;
  writeClass: string;
  /** In the business's currency; undefined when it could not be read (no grant with a limit covers it). */
  amount: number | undefined;
  party: string[];
}

const personKey = (userId: string | null | undefined) => userId ?? '';

/** The rows of the approval flow: its state on the write, the decisions, standing approvals. */
export class ApprovalStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** The write's approval state, in the caller's tenant. */
  async get(
    scope: Pick<RequestScope, 'entityId' | 'orgId'>,
    actionId: string,
  ): Promise<AwaitingApproval | undefined> {
    const row = await this.#db
      .selectFrom('pending_actions')
      .select([
        'action_id',
        'status',
        'requested_by',
        'requested_roles',
        'approvals_needed',
        'approver_roles',
        'approval_reason',
        'expires_at',
        'args_hash',
      ])
      .where('action_id', '=', actionId)
      .where('entity_id', '=', scope.entityId)
      .where('org_id', '=', scope.orgId)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      actionId: row.action_id,
      status: row.status,
      requestedBy: row.requested_by,
      // A proposal from before people was its tenant's owner's.
      requestedRoles: (row.requested_roles ?? ['owner']) as PersonRole[],
      approvalsNeeded: row.approvals_needed,
      approverRoles: row.approver_roles as PersonRole[],
      approvalReason: row.approval_reason,
      expiresAt: row.expires_at,
      argsHash: row.args_hash,
    };
  }

  /** Replaces the call of a write still pending (its maker edited it before confirming); false when it was not pending. */
  async editPending(actionId: string, args: Record<string, unknown>, argsHash: string): Promise<boolean> {
    const updated = await this.#db
      .updateTable('pending_actions')
      .set({ args: JSON.stringify(args), args_hash: argsHash })
      .where('action_id', '=', actionId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  }

  /** Moves a write its maker just confirmed to `awaiting_approval`; false when it was not pending any more. */
  async request(
    actionId: string,
    need: { needed: number; roles: readonly PersonRole[]; reason: string; expiresAt: Date },
  ): Promise<boolean> {
    const updated = await this.#db
      .updateTable('pending_actions')
      .set({
        status: 'awaiting_approval',
        decided_at: sql<Date>`now()`,
        approvals_needed: need.needed,
        approver_roles: [...need.roles],
        approval_reason: need.reason,
        approval_requested_at: sql<Date>`now()`,
        expires_at: need.expiresAt,
      })
      .where('action_id', '=', actionId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  }

  /**
   * Records one person's decision, under a lock on the write so that concurrent deciders are
   * ordered: an approval that completes the count moves the write to `executing` (approved by
   * this request, the executor's proof), a rejection to `rejected`; whoever comes after finds it
   * closed. An edit (`edited`) replaces the call first, and only approvals of the call as it now
   * stands count.
   */
  async decide(d: {
    scope: RequestScope;
    actionId: string;
    actor: Actor | undefined;
    decision: 'approve' | 'reject';
    reason?: string | undefined;
    /** False: the decider may not approve the call as edited (it now needs other roles): only the edit is kept. */
    counts?: boolean | undefined;
    edited?:
      | {
          before: Record<string, unknown>;
          after: Record<string, unknown>;
          argsHash: string;
          needed: number;
          roles: readonly PersonRole[];
          rule: string;
        }
      | undefined;
  }): Promise<DecisionOutcome> {
    return this.#db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('pending_actions')
        .select(['status', 'args_hash', 'approvals_needed', 'expires_at'])
        .where('action_id', '=', d.actionId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (row.status !== 'awaiting_approval' || row.expires_at.getTime() <= Date.now())
        return { kind: 'closed', status: row.status };
      let argsHash = row.args_hash;
      let needed = row.approvals_needed;
      if (d.edited) {
        argsHash = d.edited.argsHash;
        needed = d.edited.needed;
        await trx
          .updateTable('pending_actions')
          .set({
            args: JSON.stringify(d.edited.after),
            args_hash: argsHash,
            approvals_needed: needed,
            approver_roles: [...d.edited.roles],
            approval_reason: d.edited.rule,
          })
          .where('action_id', '=', d.actionId)
          .execute();
      }
      const earlier = await trx
        .selectFrom('approval_decisions')
        .select('id')
        .where('action_id', '=', d.actionId)
        .where('args_hash', '=', argsHash)
        .where(sql<boolean>`coalesce(user_id, '') = ${personKey(d.actor?.userId)}`)
        .executeTakeFirst();
      if (earlier) return { kind: 'repeated' };
      if (d.counts === false) {
        const { approvals } = await countApprovals(trx, d.actionId, argsHash);
        return { kind: 'recorded', approvals: Number(approvals), needed };
      }
      await trx
        .insertInto('approval_decisions')
        .values({
          action_id: d.actionId,
          org_id: d.scope.orgId,
          entity_id: d.scope.entityId,
          user_id: d.actor?.userId ?? null,
          roles: [...(d.actor?.roles ?? ['owner'])],
          decision: d.decision,
          reason: d.reason ?? null,
          args_hash: argsHash,
          args_before: d.edited ? JSON.stringify(d.edited.before) : null,
          args_after: d.edited ? JSON.stringify(d.edited.after) : null,
          request_id: d.scope.requestId,
        })
        .execute();
      if (d.decision === 'reject') {
        await trx
          .updateTable('pending_actions')
          .set({ status: 'rejected', decided_at: sql<Date>`now()` })
          .where('action_id', '=', d.actionId)
          .execute();
        return { kind: 'rejected' };
      }
      const { approvals } = await countApprovals(trx, d.actionId, argsHash);
      if (Number(approvals) < needed) return { kind: 'recorded', approvals: Number(approvals), needed };
      await trx
        .updateTable('pending_actions')
        .set({
          status: 'executing',
          decided_at: sql<Date>`now()`,
          approved_at: sql<Date>`now()`,
          approved_by_request: d.scope.requestId,
          approved_by: d.actor?.userId ?? null,
        })
        .where('action_id', '=', d.actionId)
        .execute();
      return { kind: 'approved' };
    });
  }

  /**
   * Uses a standing approval that covers the write, if one does: counted atomically, so a grant's
   * uses and total hold however many makers use it at once, and a revoked, expired or exhausted one
   * covers nothing — even a card shown before. The grant's id, or undefined.
   */
  async useStanding(
    scope: RequestScope,
    actionId: string,
    write: StandingScope,
  ): Promise<string | undefined> {
    const amount = write.amount;
    const parties = write.party.map(partyKey);
    return this.#db.transaction().execute(async (trx) => {
      const candidates = await trx
        .selectFrom('standing_approvals')
        .selectAll()
        .where('org_id', '=', scope.orgId)
        .where('entity_id', '=', scope.entityId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', sql<Date>`now()`)
        .where(sql<boolean>`uses < max_uses`)
        .orderBy('created_at')
        .forUpdate()
        .execute();
      for (const grant of candidates) {
        if (
          grant.write_class !== null &&
          grant.write_class !== 'any' &&
          grant.write_class !== write.writeClass
        )
          continue;
        if (grant.tool !== null && !globMatches(grant.tool, write.tool)) continue;
        if (grant.party !== null && !parties.includes(partyKey(grant.party))) continue;
        if (grant.max_amount !== null && (amount === undefined || amount > Number(grant.max_amount)))
          continue;
        if (
          grant.max_total !== null &&
          (amount === undefined || Number(grant.used_total) + amount > Number(grant.max_total))
        )
          continue;
        await trx
          .updateTable('standing_approvals')
          .set({ uses: sql<number>`uses + 1`, used_total: sql<string>`used_total + ${amount ?? 0}` })
          .where('id', '=', grant.id)
          .execute();
        await trx
          .insertInto('standing_approval_uses')
          .values({
            grant_id: grant.id,
            action_id: actionId,
            amount: amount ?? null,
            used_by: scope.actor?.userId ?? null,
          })
          .execute();
        return grant.id;
      }
      return undefined;
    });
  }

  /** Writes whose approval window passed unanswered, moved to `expired`; what they were. */
  async expire(): Promise<{ tool: string; argsHash: string; entityId: string; orgId: string }[]> {
    const rows = await this.#db
      .updateTable('pending_actions')
      .set({ status: 'expired', decided_at: sql<Date>`now()` })
      .where('status', '=', 'awaiting_approval')
      .where('expires_at', '<=', sql<Date>`now()`)
      .returning(['tool', 'args_hash', 'entity_id', 'org_id'])
      .execute();
    return rows.map((r) => ({ tool: r.tool, argsHash: r.args_hash, entityId: r.entity_id, orgId: r.org_id }));
  }
}

/** Approvals of the call as it stands (`argsHash`): those of an earlier version do not count. */
function countApprovals(db: Kysely<Database>, actionId: string, argsHash: string) {
  return db
    .selectFrom('approval_decisions')
    .select((eb) => eb.fn.countAll<string>().as('approvals'))
    .where('action_id', '=', actionId)
    .where('decision', '=', 'approve')
    .where('args_hash', '=', argsHash)
    .executeTakeFirstOrThrow();
}
