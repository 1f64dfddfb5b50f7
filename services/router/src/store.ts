import type { Path, RequestScope } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { CachedAnswer, DataKind } from './cache.ts';
import type { IntentOutcomes } from './learning.ts';

/** Cache key (never a SHA-256 hex) and data kind of the row that records a tenant's last write. */
export const INVALIDATION_MARKER = 'invalidated';
/** Whose books: every key of the cache is a tenant's, entity and org together (two orgs may share an entity id). */
export type Tenant = Pick<RequestScope, 'entityId' | 'orgId'>;
/** Tenant of the marker of the last intent change, which concerns every tenant (no id has a `*`). */
const EVERY_TENANT: Tenant = { entityId: '*', orgId: '*' };
/** First key of the advisory locks on a tenant's cache (any constant unique to the router). */
const CACHE_LOCK_SPACE = 4_242_008;
/** Key of the lock on every tenant's cache: shared by each tenant's lock, taken alone by an intent change. */
const EVERY_TENANT_LOCK = [CACHE_LOCK_SPACE + 1, 0] as const;

export type RouteRow = Selectable<Database['router_routes']>;
export type NewRoute = Omit<RouteRow, 'created_at'>;

/** What was counted for one request: the feedback on its answer may change it later (see the logger). */
export interface CountedOutcome {
  requestId: string;
  tenant: Tenant;
  answered: boolean;
  /** The fast-path intent and confidence bucket whose attempt it was. */
  intent: { id: string; bucket: number } | null;
  /** The LLM-path pattern it was one occurrence of. */
  patternHash: string | null;
}

/** An LLM-path pattern after one more occurrence. */
export interface PatternCount {
  occurrences: number;
  /** Mean feedback score of its answers that got feedback; null: none yet. */
  avgFeedbackScore: number | null;
}

/** What the router keeps in PostgreSQL: open routes, the response cache and what it learns. */
export class RouterStore {
  readonly db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** Runs `fn` in one transaction, with a store bound to it. */
  transaction<T>(fn: (store: RouterStore) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => fn(new RouterStore(trx)));
  }

  async recordRoute(route: NewRoute): Promise<void> {
    await this.db
      .insertInto('router_routes')
      .values(route)
      .onConflict((oc) => oc.column('request_id').doNothing())
      .execute();
  }

  /** Removes and returns the open route of a request; undefined when none (or already settled). */
  async settleRoute(requestId: string): Promise<RouteRow | undefined> {
    return this.db
      .deleteFrom('router_routes')
      .where('request_id', '=', requestId)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Removes and returns the open route of a request not on the LLM path, counting in the same
   * statement its intent's outcome when `counts` (the intent answered it, or it ended in an error)
   * and it was routed to one: what {@link recordOutcome} and {@link recordIntentOutcome} do, in one
   * round trip. Undefined when there is no such route (an LLM-path one is left for the transaction).
   * The bucket is {@link confidenceBucket}'s, computed in SQL.
   */
  async settleFastRoute(
    requestId: string,
    tenant: Tenant,
    outcome: { answered: boolean; counts: boolean },
  ): Promise<RouteRow | undefined> {
    const ok = outcome.answered ? 1 : 0;
    const { rows } = await sql<RouteRow>`
      with settled as (
        delete from router_routes where request_id = ${requestId} and path <> 'llm' returning *
      ), counted as (
        select intent_id,
          (floor(least(1, greatest(0, confidence)) * 20 + 1e-9) * 5 / 100)::numeric(3, 2) as bucket,
          greatest(0, extract(epoch from now() - created_at) * 1000)::double precision as ms
        from settled
        where ${outcome.counts} and path = 'fast' and intent_id is not null and confidence is not null
      ), outcome as (
        insert into routing_outcomes (request_id, entity_id, org_id, intent_id, confidence_bucket, answered)
        select ${requestId}, ${tenant.entityId}, ${tenant.orgId}, intent_id, bucket, ${outcome.answered}
        from counted
        on conflict (request_id) do nothing
      ), stats as (
        insert into intent_routing_stats
          (intent_id, confidence_bucket, total_attempts, successful_attempts, failed_attempts, avg_response_ms)
        select intent_id, bucket, 1, ${ok}, ${1 - ok}, ms from counted
        on conflict (intent_id, confidence_bucket) do update set
          total_attempts = intent_routing_stats.total_attempts + 1,
          successful_attempts = intent_routing_stats.successful_attempts + excluded.successful_attempts,
          failed_attempts = intent_routing_stats.failed_attempts + excluded.failed_attempts,
          avg_response_ms = (intent_routing_stats.avg_response_ms * intent_routing_stats.total_attempts
            + excluded.avg_response_ms) / (intent_routing_stats.total_attempts + 1),
          updated_at = now()
      )
      select * from settled`.execute(this.db);
    return rows[0];
  }

  /** The fresh cached answer for a tenant and key, if any. */
  async cached(tenant: Tenant, key: string): Promise<CachedAnswer | undefined> {
    const row = await this.db
      .selectFrom('response_cache')
      .select(['response'])
      .where('entity_id', '=', tenant.entityId)
      .where('org_id', '=', tenant.orgId)
      .where('cache_key', '=', key)
      .where('expires_at', '>', sql<Date>`now()`)
      .executeTakeFirst();
    return row?.response as CachedAnswer | undefined;
  }

  async writeCache(entry: {
    tenant: Tenant;
    key: string;
    path: Path;
    queryNormalized: string;
    answer: CachedAnswer;
    dataKind: DataKind;
    ttlMs: number;
  }): Promise<void> {
    const expiresAt = sql<Date>`now() + ${`${Math.round(entry.ttlMs)} milliseconds`}::interval`;
    const values = {
      entity_id: entry.tenant.entityId,
      org_id: entry.tenant.orgId,
      cache_key: entry.key,
      path: entry.path,
      query_normalized: entry.queryNormalized,
      response: JSON.stringify(entry.answer),
      data_kind: entry.dataKind,
      expires_at: expiresAt,
    };
    await this.db
      .insertInto('response_cache')
      .values(values)
      .onConflict((oc) =>
        oc.columns(['entity_id', 'org_id', 'cache_key']).doUpdateSet({
          response: values.response,
          data_kind: values.data_kind,
          expires_at: expiresAt,
          created_at: sql<Date>`now()`,
        }),
      )
      .execute();
  }

  /**
   * Drops every cached answer of a tenant (a write changed its books) and leaves a marker row
   * saying when, so an answer computed before the write and finished after it is not cached.
   * Returns how many answers were dropped.
   */
  async invalidateTenant(tenant: Tenant, markerTtlMs: number): Promise<number> {
    return this.transaction(async (tx) => {
      await tx.lockTenant(tenant);
      const result = await tx.db
        .deleteFrom('response_cache')
        .where('entity_id', '=', tenant.entityId)
        .where('org_id', '=', tenant.orgId)
        .executeTakeFirst();
      await tx.mark(tenant, markerTtlMs);
      return Number(result.numDeletedRows);
    });
  }

  /**
   * Drops every tenant's cached answers (not the write markers): the intents changed, and an answer
   * may have been built with an old one. Leaves a marker for every tenant, so an answer routed
   * before the change and finished after it is not cached either. Returns how many were dropped.
   */
  async forgetAnswers(markerTtlMs: number): Promise<number> {
    return this.transaction(async (tx) => {
      await sql`select pg_advisory_xact_lock(${EVERY_TENANT_LOCK[0]}, ${EVERY_TENANT_LOCK[1]})`.execute(
        tx.db,
      );
      const result = await tx.db
        .deleteFrom('response_cache')
        .where('cache_key', '<>', INVALIDATION_MARKER)
        .executeTakeFirst();
      await tx.mark(EVERY_TENANT, markerTtlMs);
      return Number(result.numDeletedRows);
    });
  }

  /** Records, for `ttlMs`, that the answers of a tenant (or every tenant) computed before now are stale. */
  private async mark(tenant: Tenant, ttlMs: number): Promise<void> {
    const expiresAt = sql<Date>`now() + ${`${Math.round(ttlMs)} milliseconds`}::interval`;
    await this.db
      .insertInto('response_cache')
      .values({
        entity_id: tenant.entityId,
        org_id: tenant.orgId,
        cache_key: INVALIDATION_MARKER,
        path: 'write',
        query_normalized: '',
        response: '{}',
        data_kind: INVALIDATION_MARKER,
        expires_at: expiresAt,
      })
      .onConflict((oc) =>
        oc
          .columns(['entity_id', 'org_id', 'cache_key'])
          .doUpdateSet({ expires_at: expiresAt, created_at: sql<Date>`now()` }),
      )
      .execute();
  }

  /**
   * When the tenant's cached answers last went stale, by a write to its books or a change of the
   * intents, if within the marker's life.
   */
  async lastInvalidation(tenant: Tenant): Promise<Date | undefined> {
    const row = await this.db
      .selectFrom('response_cache')
      .select(['created_at'])
      .where((eb) =>
        eb.or([
          eb.and([eb('entity_id', '=', tenant.entityId), eb('org_id', '=', tenant.orgId)]),
          eb.and([eb('entity_id', '=', EVERY_TENANT.entityId), eb('org_id', '=', EVERY_TENANT.orgId)]),
        ]),
      )
      .where('cache_key', '=', INVALIDATION_MARKER)
      .where('expires_at', '>', sql<Date>`now()`)
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
    return row?.created_at;
  }

  /**
   * Serialises cache writes and invalidations of one tenant until the transaction ends, and holds
   * off an intent change's drop of every tenant's answers until then. (`/` is in no id, so the
   * lock's text names one tenant; two tenants whose hashes collide merely wait for each other.)
   */
  async lockTenant(tenant: Tenant): Promise<void> {
    const name = `${tenant.entityId}/${tenant.orgId}`;
    await sql`select pg_advisory_xact_lock_shared(${EVERY_TENANT_LOCK[0]}, ${EVERY_TENANT_LOCK[1]}), pg_advisory_xact_lock(${CACHE_LOCK_SPACE}, hashtext(${name}))`.execute(
      this.db,
    );
  }

  /** One fast-path outcome of an intent at a confidence bucket. */
  async recordIntentOutcome(intentId: string, bucket: number, success: boolean, ms: number): Promise<void> {
    const ok = success ? 1 : 0;
    await this.db
      .insertInto('intent_routing_stats')
      .values({
        intent_id: intentId,
        confidence_bucket: bucket,
        total_attempts: 1,
        successful_attempts: ok,
        failed_attempts: 1 - ok,
        avg_response_ms: ms,
      })
      .onConflict((oc) =>
        oc.columns(['intent_id', 'confidence_bucket']).doUpdateSet({
          total_attempts: sql<number>`intent_routing_stats.total_attempts + 1`,
          successful_attempts: sql<number>`intent_routing_stats.successful_attempts + ${ok}`,
          failed_attempts: sql<number>`intent_routing_stats.failed_attempts + ${1 - ok}`,
          avg_response_ms: sql<number>`(intent_routing_stats.avg_response_ms * intent_routing_stats.total_attempts + ${ms}) / (intent_routing_stats.total_attempts + 1)`,
          updated_at: sql<Date>`now()`,
        }),
      )
      .execute();
  }

  /** Keeps what was counted for a request, once, in the transaction that counted it. */
  async recordOutcome(outcome: CountedOutcome): Promise<void> {
    await this.db
      .insertInto('routing_outcomes')
      .values({
        request_id: outcome.requestId,
        entity_id: outcome.tenant.entityId,
        org_id: outcome.tenant.orgId,
        intent_id: outcome.intent?.id ?? null,
        confidence_bucket: outcome.intent?.bucket ?? null,
        answered: outcome.answered,
        pattern_hash: outcome.patternHash,
      })
      .onConflict((oc) => oc.column('request_id').doNothing())
      .execute();
  }

  /** Attempts and successes per intent over all its buckets. */
  async intentOutcomes(): Promise<Map<string, IntentOutcomes>> {
    const rows = await this.db
      .selectFrom('intent_routing_stats')
      .select((eb) => [
        'intent_id',
        eb.fn.sum<string>('total_attempts').as('attempts'),
        eb.fn.sum<string>('successful_attempts').as('successes'),
      ])
      .groupBy('intent_id')
      .execute();
    return new Map(
      rows.map((r) => [r.intent_id, { attempts: Number(r.attempts), successes: Number(r.successes) }]),
    );
  }

  /** Counts one more occurrence of an LLM-path query (repeats become intent suggestions). */
  async recordLlmPattern(entry: {
    hash: string;
    queryText: string;
    tools: string[];
    strategy: string;
    ms: number;
  }): Promise<PatternCount> {
    const row = await this.db
      .insertInto('llm_path_patterns')
      .values({
        query_hash: entry.hash,
        query_text: entry.queryText,
        tools_used: entry.tools,
        strategy: entry.strategy,
        occurrence_count: 1,
        avg_response_ms: entry.ms,
      })
      .onConflict((oc) =>
        oc.column('query_hash').doUpdateSet({
          occurrence_count: sql<number>`llm_path_patterns.occurrence_count + 1`,
          tools_used: sql<
            string[]
          >`(select coalesce(array_agg(distinct t), '{}') from unnest(llm_path_patterns.tools_used || excluded.tools_used) t)`,
          strategy: sql<string>`excluded.strategy`,
          avg_response_ms: sql<number>`(llm_path_patterns.avg_response_ms * llm_path_patterns.occurrence_count + ${entry.ms}) / (llm_path_patterns.occurrence_count + 1)`,
          last_seen_at: sql<Date>`now()`,
        }),
      )
      .returning(['occurrence_count', 'avg_feedback_score'])
      .executeTakeFirstOrThrow();
    return { occurrences: row.occurrence_count, avgFeedbackScore: row.avg_feedback_score };
  }

  /** A pending suggestion for a frequent pattern; one per pattern. */
  async suggestIntent(entry: {
    hash: string;
    name: string;
    phrases: string[];
    tools: string[];
  }): Promise<void> {
    await this.db
      .insertInto('suggested_intents')
      .values({
        pattern_hash: entry.hash,
        name: entry.name,
        training_phrases: JSON.stringify(entry.phrases),
        tools: JSON.stringify(entry.tools),
        status: 'pending',
      })
      .onConflict((oc) => oc.column('pattern_hash').doNothing())
      .execute();
  }

  /** Drops expired cache rows and routes whose outcome never came. */
  async prune(routeMaxAgeMs: number): Promise<void> {
    await this.db.deleteFrom('response_cache').where('expires_at', '<=', sql<Date>`now()`).execute();
    await this.db
      .deleteFrom('router_routes')
      .where('created_at', '<', sql<Date>`now() - ${`${Math.round(routeMaxAgeMs)} milliseconds`}::interval`)
      .execute();
  }
}
