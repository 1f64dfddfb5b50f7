import { type Kysely, sql } from 'kysely';
import {
  BUSINESS_COLUMNS,
  type BusinessContext,
  type BusinessContextRow,
  businessFrom,
  businessOf,
  DEFAULT_BUSINESS_CONTEXT,
} from './business-context.ts';
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
 * A tenant's business context (as {@link loadBusinessContext}), its country's tax rules (as
 * {@link loadTaxRules}), its registration (as {@link loadTaxRegistration}) and its lock date
 * (`YYYY-MM-DD`, null when none), in one statement: what a request needs to answer in the
 * business's terms and to have a write validated against its books.
 */
export async function loadBusinessBooks(
  db: Kysely<Database>,
  tenant: { entityId: string; orgId: string },
): Promise<{
  business: BusinessContext;
  rules: TaxRuleRow[];
  registration: { state: string | null; taxId: string | null };
  lockDate: string | null;
}> {
  const { rows } = await sql<
    Partial<BusinessContextRow> & {
      configured: boolean;
      state: string | null;
      gstin: string | null;
      lock_date: string | null;
      rules: TaxRuleRow[];
    }
  >`
    select
      ${BUSINESS_COLUMNS},
      b.state, b.gstin,
      (select lock_date::text from lock_dates where entity_id = ${tenant.entityId} and org_id = ${tenant.orgId})
        as lock_date,
      coalesce((
        select jsonb_agg(
          rule || jsonb_build_object('kind', kind, 'from', effective_from::text)
            || case when effective_to is null then '{}'::jsonb else jsonb_build_object('to', effective_to::text) end
          order by effective_from, kind, key)
        from tax_rules where country_code = coalesce(c.country_code, ${DEFAULT_BUSINESS_CONTEXT.countryCode})
      ), '[]'::jsonb) as rules
    from ${businessFrom(tenant)}`.execute(db);
  const row = rows[0]!;
  return {
    // A business whose country has no configuration is answered as the default, as before.
    business: businessOf(row.configured ? (row as BusinessContextRow) : undefined),
    rules: row.rules,
    registration: { state: row.state ?? null, taxId: row.gstin ?? null },
    lockDate: row.lock_date ?? null,
  };
}
