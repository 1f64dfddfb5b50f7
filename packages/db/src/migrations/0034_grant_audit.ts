import { AUDIT_ACTIONS_WITH_SETTINGS, allowActions } from './0030_lock_dates.ts';
import type { MigrationDb } from './types.ts';

/**
 * Standing approvals on the audit trail: granting one (`granted`) and revoking one (`revoked`) are
 * recorded, with who did it and the scope in words, like every other step of a write's approval.
 */
export const AUDIT_ACTIONS_WITH_GRANTS = [...AUDIT_ACTIONS_WITH_SETTINGS, 'granted', 'revoked'] as const;

export async function up(db: MigrationDb): Promise<void> {
  await allowActions(db, AUDIT_ACTIONS_WITH_GRANTS);
}

export async function down(db: MigrationDb): Promise<void> {
  await allowActions(db, AUDIT_ACTIONS_WITH_SETTINGS);
}
