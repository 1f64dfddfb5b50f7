import type { Actor } from '@munim/contracts';
import type { AuditAction } from '@munim/db';
import type { Run } from '../run/run.ts';
import { describeTool } from './tool-words.ts';

/** The audit actions the agent records about a write. */
type WriteAction = Extract<
  AuditAction,
  'proposed' | 'confirmed' | 'cancelled' | 'expired' | 'executed' | 'failed'
>;

/** How the audit trail names who did it: the user's id, or `owner` for the tenant's owner with no user named. */
export function auditActor(actor: Actor | undefined): string {
  return actor?.userId ?? 'owner';
}

const AS = (actor: Actor | undefined) =>
  actor ? ` (as ${actor.roles.join(', ') || 'no role'}, via ${actor.via})` : '';

/** What happened to the write, in words for a finance person. */
const SAID: Record<WriteAction, (what: string, why: string | undefined) => string> = {
  proposed: (what) => `Asked to ${what}; put to them for confirmation.`,
  confirmed: (what) => `Confirmed: ${what}.`,
  cancelled: (what, why) => `Cancelled${why ? ` (${why})` : ''}: ${what}; nothing was changed.`,
  expired: (what) => `The confirmation expired unanswered: ${what}; nothing was changed.`,
  executed: (what) => `Done: ${what}.`,
  failed: (what, why) => `Failed: ${what}${why ? `: ${why}` : ''}.`,
};

/**
 * Appends one row about a write to the org's audit trail, naming the request's person. A row that
 * cannot be written fails the step it records (nothing proposed or confirmed goes unrecorded).
 */
export async function auditWrite(
  run: Run,
  action: WriteAction,
  write: { tool: string; argsHash: string; record?: string | undefined },
  why?: string,
): Promise<void> {
  await run.ctx.store.audit({
    entityId: run.scope.entityId,
    orgId: run.scope.orgId,
    actor: auditActor(run.scope.actor),
    action,
    tool: write.tool,
    argsHash: write.argsHash,
    summary: auditSummary(action, write, why, run.scope.actor),
  });
}

/** An audit row's summary: what happened to the write, in words, and as whom. */
export function auditSummary(
  action: WriteAction,
  write: { tool: string; record?: string | undefined },
  why?: string,
  actor?: Actor,
): string {
  const what = `${describeTool(write.tool)}${write.record ? ` (${write.record})` : ''}`;
  return `${SAID[action](what, why)}${AS(actor)}`;
}

/** As {@link auditWrite}, for what already happened (a write ran): a row that cannot be written is logged. */
export async function auditDone(
  run: Run,
  action: 'executed' | 'failed',
  write: { tool: string; argsHash: string },
  why?: string,
): Promise<void> {
  await auditWrite(run, action, write, why).catch((error: unknown) =>
    run.ctx.log.error(
      { err: error, requestId: run.scope.requestId, tool: write.tool, action },
      'could not record the write in the audit trail',
    ),
  );
}

/** Who acted, for the conversation: their name (an id means nothing to a person), or the tenant's owner. */
export async function nameOf(run: Run): Promise<string> {
  const userId = run.scope.actor?.userId;
  if (!userId) return "the business's owner";
  const row = await run.ctx.store.db
    .selectFrom('users')
    .select('name')
    .where('id', '=', userId)
    .where('org_id', '=', run.scope.orgId)
    .executeTakeFirst();
  return row?.name ?? `user ${userId}`;
}
