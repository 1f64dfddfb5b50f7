import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** An org's approval policy as stored: the policy (checked by whoever wrote it), who set it and when. */
export interface StoredApprovalPolicy {
  orgId: string;
  policy: Record<string, unknown>;
  updatedBy: string;
  updatedAt: string;
}

/**
 * Orgs' own approval policies (migration 0027): the gateway sets them through the admin API, the
 * agent reads them when it decides who must approve a write. The policy is checked against its
 * schema by the writer; this store keeps it as given.
 */
export class ApprovalPolicies {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** The org's policy, or undefined when it has none of its own. */
  async get(orgId: string): Promise<StoredApprovalPolicy | undefined> {
    const row = await this.#db
      .selectFrom('approval_policies')
      .select(['org_id', 'policy', 'updated_by', 'updated_at'])
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return row
      ? {
          orgId: row.org_id,
          policy: row.policy,
          updatedBy: row.updated_by,
          updatedAt: new Date(row.updated_at).toISOString(),
        }
      : undefined;
  }

  /** Sets the org's policy, in place of the one it had; `by` names who set it. */
  async put(orgId: string, policy: Record<string, unknown>, by: string): Promise<StoredApprovalPolicy> {
    const json = JSON.stringify(policy);
    const row = await this.#db
      .insertInto('approval_policies')
      .values({ org_id: orgId, policy: json, updated_by: by })
      .onConflict((c) =>
        c.column('org_id').doUpdateSet({ policy: json, updated_by: by, updated_at: new Date() }),
      )
      .returning(['org_id', 'policy', 'updated_by', 'updated_at'])
      .executeTakeFirstOrThrow();
    return {
      orgId: row.org_id,
      policy: row.policy,
      updatedBy: row.updated_by,
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }
}
