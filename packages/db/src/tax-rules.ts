import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

/**
 * A country's tax rules as the validator takes them: each row's rule with its kind and the dates
 * it is in force (`from` inclusive, `to` exclusive). Not checked here: whoever uses them parses them.
 */
export type TaxRuleRow = Record<string, unknown> & { kind: string; from: string; to?: string };

/** The tax rules of `countryCode`, every date's (a document may be dated in the past), oldest first. */
export async function loadTaxRules(db: Kysely<Database>, countryCode: string): Promise<TaxRuleRow[]> {
  const rows = await db
    .selectFrom('tax_rules')
    .select([
      'kind',
      'rule',
      sql<string>`effective_from::text`.as('from'),
      sql<string | null>`effective_to::text`.as('to'),
    ])
    .where('country_code', '=', countryCode)
    .orderBy('effective_from')
    .orderBy('kind')
    .orderBy('key')
    .execute();
  return rows.map((r) => ({ ...r.rule, kind: r.kind, from: r.from, ...(r.to ? { to: r.to } : {}) }));
}

/** Where a tenant's business is registered for tax: its state and registration (GSTIN), when set. */
export async function loadTaxRegistration(
  db: Kysely<Database>,
  tenant: { entityId: string; orgId: string },
): Promise<{ state: string | null; taxId: string | null }> {
  const row = await db
    .selectFrom('business_contexts')
    .select(['state', 'gstin'])
    .where('entity_id', '=', tenant.entityId)
    .where('org_id', '=', tenant.orgId)
    .executeTakeFirst();
  return { state: row?.state ?? null, taxId: row?.gstin ?? null };
}
