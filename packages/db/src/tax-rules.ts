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

/**
 * A country's tax rules (as {@link loadTaxRules}), a tenant's registration (as
 * {@link loadTaxRegistration}) and its lock date (`YYYY-MM-DD`, null when none) in one statement:
 * what a write's validation needs of the books.
 */
export async function loadTaxBooks(
  db: Kysely<Database>,
  countryCode: string,
  tenant: { entityId: string; orgId: string },
): Promise<{
  rules: TaxRuleRow[];
  registration: { state: string | null; taxId: string | null };
  lockDate: string | null;
}> {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('business_contexts')
        .select('state')
        .where('entity_id', '=', tenant.entityId)
        .where('org_id', '=', tenant.orgId)
        .as('state'),
      eb
        .selectFrom('business_contexts')
        .select('gstin')
        .where('entity_id', '=', tenant.entityId)
        .where('org_id', '=', tenant.orgId)
        .as('gstin'),
      eb
        .selectFrom('lock_dates')
        .select(sql<string | null>`lock_date::text`.as('lock_date'))
        .where('entity_id', '=', tenant.entityId)
        .where('org_id', '=', tenant.orgId)
        .as('lock_date'),
      sql<TaxRuleRow[]>`coalesce((
        select jsonb_agg(
          rule || jsonb_build_object('kind', kind, 'from', effective_from::text)
            || case when effective_to is null then '{}'::jsonb else jsonb_build_object('to', effective_to::text) end
          order by effective_from, kind, key)
        from tax_rules where country_code = ${countryCode}), '[]'::jsonb)`.as('rules'),
    ])
    .executeTakeFirstOrThrow();
  return {
    rules: row.rules,
    registration: { state: row.state ?? null, taxId: row.gstin ?? null },
    lockDate: row.lock_date ?? null,
  };
}
