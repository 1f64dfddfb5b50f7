import type { Bus } from '@munim/bus';
import type { Logger, ToolCatalog } from '@munim/kit';
import type { CacheTtls } from './cache.ts';
import type { ConversationSource } from './conversation.ts';
import type { BusinessCalendar } from './finance/clock.ts';
import type { IntentSource } from './intents.ts';
import type { RouterStore } from './store.ts';
import type { ToolStrategy } from './tool-groups.ts';

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
