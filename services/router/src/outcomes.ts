import { type AgentEvent, type EventPayload, isWriteResult, type Message } from '@munim/contracts';
import type { Logger } from '@munim/kit';
import {
  type CacheTtls,
  cacheKey,
  dataKindOf,
  isCacheableAnswer,
  patternHash,
  succeededWrites,
  toCachedAnswer,
  ttlFor,
} from './cache.ts';
import { confidenceBucket, suggestedIntentName, worthSuggesting } from './learning.ts';
import type { CountedOutcome, RouteRow, RouterStore, Tenant } from './store.ts';

export interface OutcomeConfig {
  cacheEnabled: boolean;
  ttls: CacheTtls;
}

/**
 * What the router learns when a request ends (its `complete` or `error` event): it caches an
 * answered read, drops the tenant's cached answers after a write, counts the intent's fast-path
 * outcome and the LLM-path pattern, and keeps what it counted for the feedback still to come. The
 * request's route row is removed in the same transaction as the counting, so a redelivered event
 * counts once.
 */
export function outcomeHandler(store: RouterStore, log: Logger, config: OutcomeConfig) {
  return async (message: Message<AgentEvent>): Promise<void> => {
    const event = message.data;
    if (event.type !== 'complete' && event.type !== 'error') return;
    const { requestId, entityId, orgId } = message;
    const tenant = { entityId, orgId };

    if (event.type === 'complete') {
      const writes = succeededWrites(event.payload);
      // Every cached answer of the tenant goes: a payment changes invoices, reports and balances alike.
      if (writes.length > 0) {
        const markerTtl = Math.max(config.ttls.volatileMs, config.ttls.reportMs, config.ttls.staticMs);
        const dropped = await store.invalidateTenant(tenant, markerTtl);
        log.debug({ requestId, entityId, orgId, writes, dropped }, 'cache invalidated by a write');
      }
    }

    // Answered from the cache: the router recorded no route for it, so there is nothing to settle,
    // count or cache (and a write it could have invalidated for has no cached answer).
    if (event.type === 'complete' && event.payload.path === 'cached') return;

    const answered = event.type === 'complete' && event.payload.status === 'answered';
    // Most routes are settled and counted in one statement; an LLM-path one (a pattern to count)
    // and a repeat (nothing to settle) go on to the transaction.
    if (event.type === 'error' || event.payload.path !== 'llm') {
      const route = await store.settleFastRoute(requestId, tenant, {
        answered,
        counts: answered || event.type === 'error',
      });
      if (route) {
        if (
          event.type === 'complete' &&
          route.cacheable &&
          config.cacheEnabled &&
          isCacheableAnswer(event.payload)
        )
          await store.transaction((tx) =>
            cacheAnswer(tx, { tenant, route, requestId }, event.payload, config.ttls),
          );
        return;
      }
    }

    await store.transaction(async (tx) => {
      const route = await tx.settleRoute(requestId);
      if (!route) return;
      const ms = Math.max(0, Date.now() - route.created_at.getTime());
      const counted: CountedOutcome = { requestId, tenant, answered, intent: null, patternHash: null };
      if (route.path === 'fast' && route.intent_id !== null && route.confidence !== null) {
        if (answered || event.type === 'error')
          counted.intent = { id: route.intent_id, bucket: confidenceBucket(route.confidence) };
      }
      if (event.type === 'complete') {
        if (route.cacheable && config.cacheEnabled && isCacheableAnswer(event.payload)) {
          await cacheAnswer(tx, { tenant, route, requestId }, event.payload, config.ttls);
        }
        if (route.path === 'llm' && route.category === 'unified' && route.cacheable) {
          counted.patternHash = await countPattern(tx, route, event.payload, ms);
        }
      }
      // Feedback on the answer, arriving later, turns what was counted here around (the logger applies it).
      if (counted.intent || counted.patternHash) await tx.recordOutcome(counted);
      // Last: every answer of an intent updates the same row, whose lock is held until the commit.
      if (counted.intent)
        await tx.recordIntentOutcome(counted.intent.id, counted.intent.bucket, answered, ms);
    });
  };
}

/** Caches an answered read for its tenant, unless the tenant's books or the intents changed since it was routed. */
async function cacheAnswer(
  tx: RouterStore,
  { tenant, route, requestId }: { tenant: Tenant; route: RouteRow; requestId: string },
  complete: EventPayload<'complete'>,
  ttls: CacheTtls,
): Promise<void> {
  await tx.lockTenant(tenant);
  const lastStale = await tx.lastInvalidation(tenant);
  // Computed before a write to the same books finished, it may show them as they were; routed
  // before the intents changed, it may follow an old flow: either way, not cached.
  if (lastStale && lastStale >= route.created_at) return;
  const dataKind = dataKindOf(complete.dataSources);
  await tx.writeCache({
    tenant,
    key: cacheKey(route.query_normalized, complete.path),
    path: complete.path,
    queryNormalized: route.query_normalized,
    answer: toCachedAnswer(complete, requestId),
    dataKind,
    ttlMs: ttlFor(dataKind, ttls),
  });
}

/** Counts one more occurrence of an LLM-path query and suggests an intent for it when it is worth one; returns its hash. */
async function countPattern(
  tx: RouterStore,
  route: RouteRow,
  complete: EventPayload<'complete'>,
  ms: number,
): Promise<string> {
  const hash = patternHash(route.query_normalized);
  const tools = [...new Set(complete.mcpToolResults.map((r) => r.tool))];
  const pattern = await tx.recordLlmPattern({
    hash,
    queryText: route.query_normalized,
    tools,
    strategy: route.strategy,
    ms,
  });
  // Intents run without confirmation, so a question answered with a write never becomes one.
  if (worthSuggesting(pattern) && tools.length > 0 && !complete.mcpToolResults.some(isWriteResult)) {
    await tx.suggestIntent({
      hash,
      name: suggestedIntentName(route.query_normalized, hash),
      phrases: [route.query_normalized],
      tools,
    });
  }
  return hash;
}
