import type { Bus } from '@munim/bus';
import type { Logger, ToolCatalog } from '@munim/kit';
import type { CacheTtls } from './cache.ts';
import type { ConversationSource } from './conversation.ts';
import type { BusinessCalendar } from './finance/clock.ts';
import type { IntentSource } from './intents.ts';
import type { RouterStore } from './store.ts';
import type { ToolStrategy } from './tool-groups.ts';

/**
 * Routing slower than this announces `understanding_started` on its own. Quicker routing sends it
 * with the routing steps, one stream message instead of two: well under what a person notices
 * between two steps, and the gateway's `connected` already said the question was taken.
 */
export const ANNOUNCE_UNDERSTANDING_AFTER_MS = 100;

/** The router's settings, from the environment. */
export interface RouterConfig {
  fastPathThreshold: number;
  intentsRefreshMs: number;
  concurrency: number;
  /** How soon another instance takes over a query this one got and did not acknowledge (default 30 s). */
  ackWaitMs?: number;
  toolStrategy: ToolStrategy;
  /** Serve and write the response cache of answered reads. */
  cacheEnabled: boolean;
  cacheTtls: CacheTtls;
  /** Open routes older than this (their request never ended) are dropped. */
  routeMaxAgeMs: number;
  /**
   * Routing slower than this announces `understanding_started` on its own message; quicker routing
   * sends it with the routing steps (default {@link ANNOUNCE_UNDERSTANDING_AFTER_MS}).
   */
  announceUnderstandingAfterMs?: number;
}

/** What `buildRouter` is given. */
export interface RouterDeps {
  bus: Bus;
  log: Logger;
  intents: IntentSource;
  tools: ToolCatalog;
  conversations: ConversationSource;
  store: RouterStore;
  config: RouterConfig;
  /** A tenant's today and financial year; without it, finance questions are not computed by code. */
  calendar?: ((tenant: { entityId: string; orgId: string }) => Promise<BusinessCalendar>) | undefined;
}
