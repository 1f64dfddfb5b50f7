import { type Database, loadBusinessContext, todayIn } from '@munim/db';
import type { Kysely } from 'kysely';

/** What a finance question's period depends on: the business's today and the month its year starts. */
export interface BusinessCalendar {
  today: string;
  fyStartMonth: number;
}

/** A tenant's calendar is read once a minute at most: it changes when an admin edits the business. */
const TTL_MS = 60_000;
const MAX_TENANTS = 10_000;

/** Each tenant's calendar from its business context, cached for a minute. */
export function businessCalendar(db: Kysely<Database>) {
  const cache = new Map<string, { at: number; timeZone: string; fyStartMonth: number }>();
  return async (tenant: { entityId: string; orgId: string }): Promise<BusinessCalendar> => {
    const key = `${tenant.orgId}\u0000${tenant.entityId}`;
    let hit = cache.get(key);
    if (!hit || Date.now() - hit.at > TTL_MS) {
      const context = await loadBusinessContext(db, tenant);
      hit = { at: Date.now(), timeZone: context.timezone, fyStartMonth: context.fyStartMonth };
      if (cache.size >= MAX_TENANTS) cache.clear();
      cache.set(key, hit);
    }
    return { today: todayIn(hit.timeZone), fyStartMonth: hit.fyStartMonth };
  };
}
