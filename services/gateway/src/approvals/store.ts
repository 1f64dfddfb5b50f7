import { randomUUID } from 'node:crypto';
import type { ApprovalItem, CardDetail, StandingGrant } from '@munim/contracts';
import { type Database, withAudit } from '@munim/db';
import { type Kysely, sql } from 'kysely';
import type { Tenant } from '../auth.ts';

/** A person as the approvals inbox sees them: their user id (null: the tenant's owner) and roles. */
export interface Decider {
  userId: string | null;
  roles: readonly string[];
}

const STATUS: Record<string, ApprovalItem['status']> = {
  awaiting_approval: 'awaiting_approval',
  executing: 'approved',
  executed: 'executed',
  rejected: 'rejected',
  expired: 'expired',
};

const details = (state: Record<string, unknown>): CardDetail[] =>
  Array.isArray(state.details)
    ? state.details.filter(
        (d): d is CardDetail =>
          typeof d === 'object' && d !== null && typeof d.label === 'string' && typeof d.value === 'string',
      )
    : [];

/**
 * The writes of the tenant that went to approval: `pending` those the person may decide now (one
 * of the roles, not their own, unexpired, not already approved by them), `decided` the rest.
 */
export async function listApprovals(
  db: Kysely<Database>,
  tenant: Tenant,
  person: Decider,
  status: 'pending' | 'decided' | 'all',
): Promise<ApprovalItem[]> {
  let query = db
    .selectFrom('pending_actions')
    .selectAll()
    .where('entity_id', '=', tenant.entityId)
    .where('org_id', '=', tenant.orgId)
    .where('approval_requested_at', 'is not', null)
    .orderBy('approval_requested_at', 'desc')
    .limit(200);
  if (status === 'pending')
    query = query
      .where('status', '=', 'awaiting_approval')
      .where('expires_at', '>', sql<Date>`now()`)
      .where(sql<boolean>`approver_roles && ${sql.val([...person.roles])}::text[]`)
      .where(sql<boolean>`coalesce(requested_by, '') <> ${person.userId ?? ''}`)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('approval_decisions as d')
              .select('d.id')
              .whereRef('d.action_id', '=', 'pending_actions.action_id')
              .whereRef('d.args_hash', '=', 'pending_actions.args_hash')
              .where(sql<boolean>`coalesce(d.user_id, '') = ${person.userId ?? ''}`),
          ),
        ),
      );
  else if (status === 'decided') query = query.where('status', '<>', 'awaiting_approval');
  const rows = await query.execute();
  if (rows.length === 0) return [];
  const votes = await db
    .selectFrom('approval_decisions')
    .selectAll()
    .where(
      'action_id',
      'in',
      rows.map((r) => r.action_id),
    )
    .orderBy('id')
    .execute();
  return rows.map((row) => {
    const failed =
      row.status === 'executed' && (row.result as { success?: unknown } | null)?.success === false;
    return {
      approvalId: row.action_id,
      tool: row.tool,
      summary: row.question,
      details: details(row.state),
      args: row.args,
      requestedBy: row.requested_by,
      requestedAt: row.approval_requested_at?.toISOString() ?? null,
      expiresAt: row.expires_at.toISOString(),
      status: failed ? 'failed' : (STATUS[row.status] ?? 'expired'),
      approversNeeded: row.approvals_needed,
      requiredRoles: row.approver_roles,
      reason: row.approval_reason,
      conversationId: row.conversation_id,
      decisions: votes
        .filter((v) => v.action_id === row.action_id)
        .map((v) => ({
          userId: v.user_id,
          decision: v.decision,
          reason: v.reason,
          at: v.decided_at.toISOString(),
          ...(v.args_before && v.args_after
            ? { edited: { before: v.args_before, after: v.args_after } }
            : {}),
        })),
    };
  });
}

/** The conversation of a write that went to approval, in the tenant; undefined when there is none. */
export async function approvalConversation(
  db: Kysely<Database>,
  tenant: Tenant,
  approvalId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('pending_actions')
    .select('conversation_id')
    .where('action_id', '=', approvalId)
    .where('entity_id', '=', tenant.entityId)
    .where('org_id', '=', tenant.orgId)
    .where('approval_requested_at', 'is not', null)
    .executeTakeFirst();
  return row?.conversation_id;
}

const number = (value: string | null) => (value === null ? null : Number(value));

/** The tenant's standing approvals, newest first, with what is left of each. */
export async function listGrants(db: Kysely<Database>, tenant: Tenant): Promise<StandingGrant[]> {
  const rows = await db
    .selectFrom('standing_approvals')
    .selectAll()
    .where('entity_id', '=', tenant.entityId)
    .where('org_id', '=', tenant.orgId)
    .orderBy('created_at', 'desc')
    .limit(500)
    .execute();
  const now = Date.now();
  return rows.map((r) => ({
    grantId: r.id,
    class: r.write_class,
    tool: r.tool,
    party: r.party,
    maxAmount: number(r.max_amount),
    maxTotal: number(r.max_total),
    uses: r.max_uses,
    used: r.uses,
    usedTotal: Number(r.used_total),
    expiresAt: r.expires_at.toISOString(),
    grantedBy: r.granted_by,
    status:
      r.revoked_at !== null
        ? 'revoked'
        : r.uses >= r.max_uses || (r.max_total !== null && Number(r.used_total) >= Number(r.max_total))
          ? 'exhausted'
          : r.expires_at.getTime() <= now
            ? 'expired'
            : 'active',
  }));
}

/** A standing approval's scope, as the trail says it. */
type GrantScope = {
  class?: string | undefined;
  tool?: string | undefined;
  party?: string | undefined;
  maxAmount?: number | undefined;
  maxTotal?: number | undefined;
  uses: number;
  expiresAt: string;
};

const rupees = (n: number) => n.toLocaleString('en-IN', { maximumFractionDigits: 2 });

/** A grant's scope in words: "payments to Acme Corp, at most 50,000 a write and 2,00,000 in all, 5 uses, until …". */
function scopeWords(scope: GrantScope): string {
  const what = scope.tool
    ? `the tool ${scope.tool}`
    : scope.class && scope.class !== 'any'
      ? `${scope.class} writes`
      : 'any write';
  const limits = [
    scope.party ? `for ${scope.party}` : '',
    scope.maxAmount !== undefined ? `at most ${rupees(scope.maxAmount)} a write` : '',
    scope.maxTotal !== undefined ? `${rupees(scope.maxTotal)} in all` : '',
    `${scope.uses} use${scope.uses === 1 ? '' : 's'}`,
    `until ${scope.expiresAt}`,
  ].filter(Boolean);
  return `${what}, ${limits.join(', ')}`;
}

const who = (by: Decider) => by.userId ?? 'owner';

/** Grants a standing approval, recorded on the audit trail (`granted`) in the same transaction. */
export async function grant(
  db: Kysely<Database>,
  tenant: Tenant,
  by: Decider,
  scope: GrantScope,
): Promise<string> {
  const id = randomUUID();
  return withAudit(db, async (trx) => {
    await trx
      .insertInto('standing_approvals')
      .values({
        id,
        org_id: tenant.orgId,
        entity_id: tenant.entityId,
        granted_by: by.userId,
        granted_roles: [...by.roles],
        write_class: scope.class ?? null,
        tool: scope.tool ?? null,
        party: scope.party ?? null,
        max_amount: scope.maxAmount ?? null,
        max_total: scope.maxTotal ?? null,
        max_uses: scope.uses,
        expires_at: scope.expiresAt,
      })
      .execute();
    return {
      result: id,
      audit: {
        ...tenant,
        actor: who(by),
        action: 'granted',
        summary: `Granted a standing approval (${id}): ${scopeWords(scope)}.`,
      },
    };
  });
}

/** Revokes a standing approval of the tenant (recorded: `revoked`); false when there is no such active one. */
export async function revoke(
  db: Kysely<Database>,
  tenant: Tenant,
  grantId: string,
  by: Decider,
): Promise<boolean> {
  return withAudit(db, async (trx) => {
    const updated = await trx
      .updateTable('standing_approvals')
      .set({ revoked_at: sql<Date>`now()`, revoked_by: by.userId })
      .where('id', '=', grantId)
      .where('entity_id', '=', tenant.entityId)
      .where('org_id', '=', tenant.orgId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    const done = Number(updated.numUpdatedRows) === 1;
    return {
      result: done,
      audit: done
        ? {
            ...tenant,
            actor: who(by),
            action: 'revoked',
            summary: `Revoked the standing approval ${grantId}.`,
          }
        : null,
    };
  });
}
