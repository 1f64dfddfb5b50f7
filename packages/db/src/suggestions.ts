import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

/** Where quick suggestions came from: set for the tenant by an admin, or the active intents' phrases. */
export type SuggestionSource = 'configured' | 'intents';

/**
 * A tenant's quick suggestions: its active configured ones in their order, or, when
 * it has none, one training phrase of each active intent.
 */
export async function quickSuggestions(
  db: Kysely<Database>,
  tenant: { entityId: string; orgId: string },
  limit: number,
): Promise<{ source: SuggestionSource; texts: string[] }> {
  const configured = await db
    .selectFrom('quick_suggestions')
    .select('text')
    .where('entity_id', '=', tenant.entityId)
    .where('org_id', '=', tenant.orgId)
    .where('is_active', '=', true)
    .orderBy('sort_order')
    .orderBy('id')
    .limit(limit)
    .execute();
  if (configured.length > 0) return { source: 'configured', texts: configured.map((row) => row.text) };
  const phrases = await db
    .selectFrom('intents')
    .select([sql<string>`training_phrases->>0`.as('text')])
    .where('is_active', '=', true)
    .where(
      sql<boolean>`jsonb_typeof(training_phrases) = 'array' and jsonb_array_length(training_phrases) > 0`,
    )
    .orderBy('name')
    .limit(limit)
    .execute();
  return { source: 'intents', texts: phrases.map((row) => row.text) };
}
