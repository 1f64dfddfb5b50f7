import { type AgentEvent, isWriteTool, type Message } from '@munim/contracts';
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
import { confidenceBucket, SUGGEST_AFTER, suggestedIntentName } from './learning.ts';
import type { RouterStore } from './store.ts';

export interface OutcomeConfig {
  cacheEnabled: boolean;
  ttls: CacheTtls;
}

/**
 * What the router learns when a request ends (its `complete` or `error` event): it caches an
 * answered read, drops the tenant's cached answers after a write, counts the intent's fast-path
 * outcome and the LLM-path pattern. The request's route row is removed in the same transaction
 * as the counting, so a redelivered event counts once.
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

    await store.transaction(async (tx) => {
      const route = await tx.settleRoute(requestId);
      if (!route) return;
      const ms = Math.max(0, Date.now() - route.created_at.getTime());
      if (route.path === 'fast' && route.intent_id !== null && route.confidence !== null) {
        const answered = event.type === 'complete' && event.payload.status === 'answered';
        if (answered || event.type === 'error') {
          await tx.recordIntentOutcome(route.intent_id, confidenceBucket(route.confidence), answered, ms);
        }
      }
      if (event.type !== 'complete') return;
      const complete = event.payload;
      if (route.cacheable && config.cacheEnabled && isCacheableAnswer(complete)) {
        await tx.lockTenant(tenant);
        const lastStale = await tx.lastInvalidation(tenant);
        // Computed before a write to the same books finished, it may show them as they were; routed
        // before the intents changed, it may follow an old flow: either way, not cached.
        if (!lastStale || lastStale < route.created_at) {
          const dataKind = dataKindOf(complete.dataSources);
          await tx.writeCache({
            tenant,
            key: cacheKey(route.query_normalized, complete.path),
            path: complete.path,
            queryNormalized: route.query_normalized,
            answer: toCachedAnswer(complete, requestId),
            dataKind,
            ttlMs: ttlFor(dataKind, config.ttls),
          });
        }
      }
      if (route.path === 'llm' && route.category === 'unified' && route.cacheable) {
        const hash = patternHash(route.query_normalized);
        const tools = [...new Set(complete.mcpToolResults.map((r) => r.tool))];
        const occurrences = await tx.recordLlmPattern({
          hash,
          queryText: route.query_normalized,
          tools,
          strategy: route.strategy,
          ms,
        });
        // Intents run without confirmation, so a question answered with a write never becomes one.
        if (occurrences >= SUGGEST_AFTER && tools.length > 0 && !tools.some((tool) => isWriteTool(tool))) {
          await tx.suggestIntent({
            hash,
            name: suggestedIntentName(route.query_normalized, hash),
            phrases: [route.query_normalized],
            tools,
          });
        }
      }
    });
  };
}
