import type { Kysely } from 'kysely';
import { type BusinessContext, loadBusinessContext } from './business-context.ts';
import { readLockDate, type Tenant, withAudit } from './lock-dates.ts';
import type { Database } from './schema.ts';

/** What an admin may set of a tenant's business context; null clears an override. */
export interface BusinessSettingsInput {
  companyName?: string | null | undefined;
  countryCode?: string | undefined;
  currency?: string | null | undefined;
  locale?: string | null | undefined;
  fyStartMonth?: number | null | undefined;
  timezone?: string | null | undefined;
  state?: string | null | undefined;
  gstin?: string | null | undefined;
}

/** A tenant's business context in force, with its state, GSTIN and lock date. */
export interface BusinessSettings extends BusinessContext {
  state: string | null;
  gstin: string | null;
  lockDate: string | null;
}

/** A setting that cannot be stored as given; `field` names it. */
export class BusinessSettingsError extends Error {
  override name = 'BusinessSettingsError';
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}

/** The input's fields as the table's columns, those given only. */
const COLUMNS = {
  companyName: 'company_name',
  countryCode: 'country_code',
  currency: 'currency_code',
  locale: 'locale',
  fyStartMonth: 'fy_start_month',
  timezone: 'timezone',
  state: 'state',
  gstin: 'gstin',
} as const;

/** The tenant's business context in force (its own over its country's), state, GSTIN and lock date. */
export async function readBusinessSettings(db: Kysely<Database>, tenant: Tenant): Promise<BusinessSettings> {
  const [context, own, lock] = await Promise.all([
    loadBusinessContext(db, tenant),
    db
      .selectFrom('business_contexts')
      .select(['state', 'gstin'])
      .where('entity_id', '=', tenant.entityId)
      .where('org_id', '=', tenant.orgId)
      .executeTakeFirst(),
    readLockDate(db, tenant),
  ]);
  return { ...context, state: own?.state ?? null, gstin: own?.gstin ?? null, lockDate: lock.lockDate };
}

/** What changed, in words: `currency INR → USD; state none → Maharashtra`. */
function changes(before: Record<string, unknown>, after: Record<string, unknown>): string {
  const word = (v: unknown) => (v === null || v === undefined ? 'none' : String(v));
  return Object.keys(after)
    .filter((k) => k !== 'updated_at' && word(before[k]) !== word(after[k]))
    .map((k) => `${k.replaceAll('_', ' ')} ${word(before[k])} → ${word(after[k])}`)
    .join('; ');
}

/**
 * Sets the given fields of the tenant's business context (a row is made for a tenant without
 * one), with a `configured` row on the audit trail naming each changed field before and after. A
 * GSTIN belongs to an Indian business, and a country must have its settings in `country_configs`.
 */
export async function saveBusinessSettings(
  db: Kysely<Database>,
  tenant: Tenant,
  input: BusinessSettingsInput,
  actor: string,
): Promise<BusinessSettings> {
  const values: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(COLUMNS))
    if (input[field as keyof BusinessSettingsInput] !== undefined)
      values[column] = input[field as keyof BusinessSettingsInput];
  await withAudit(db, async (trx) => {
    const before = await trx
      .selectFrom('business_contexts')
      .selectAll()
      .where('entity_id', '=', tenant.entityId)
      .where('org_id', '=', tenant.orgId)
      .forUpdate()
      .executeTakeFirst();
    const country = (values.country_code as string | undefined) ?? before?.country_code ?? 'IN';
    const known = await trx
      .selectFrom('country_configs')
      .select('country_code')
      .where('country_code', '=', country)
      .executeTakeFirst();
    if (!known)
      throw new BusinessSettingsError(
        'countryCode',
        `no country settings for ${country}; the countries known are those of country_configs`,
      );
    const gstin = values.gstin === undefined ? before?.gstin : values.gstin;
    if (gstin && country !== 'IN')
      throw new BusinessSettingsError(
        'gstin',
        `a GSTIN is an Indian registration, and the country is ${country}`,
      );
    if (Object.keys(values).length === 0) return { result: undefined, audit: null };
    await trx
      .insertInto('business_contexts')
      .values({ entity_id: tenant.entityId, org_id: tenant.orgId, ...values })
      .onConflict((c) =>
        c.columns(['entity_id', 'org_id']).doUpdateSet({ ...values, updated_at: new Date() }),
      )
      .execute();
    const said = changes((before ?? {}) as Record<string, unknown>, values);
    if (before && !said) return { result: undefined, audit: null };
    return {
      result: undefined,
      audit: {
        ...tenant,
        actor,
        action: 'configured',
        summary: `Changed the business settings: ${said || 'set up with the country’s own'}.`,
      },
    };
  });
  return readBusinessSettings(db, tenant);
}
