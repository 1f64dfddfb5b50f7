import { createLogger } from '@munim/kit';
import { seededIntents } from '../eval/evaluate.ts';
import { buildRouter } from '../src/app.ts';
import { DEFAULT_TTLS } from '../src/cache.ts';
import type { RouterConfig, RouterDeps } from '../src/context.ts';
import { NO_CONVERSATION } from '../src/route.ts';

/**
 * The router as the service tests run it: the seeded intents, no conversation history, silent
 * logs and the test configuration, over what each test gives and changes.
 */
export function buildTestRouter(
  deps: Pick<RouterDeps, 'bus' | 'tools' | 'store'> & Partial<Pick<RouterDeps, 'intents' | 'conversations'>>,
  config: Partial<RouterConfig> = {},
) {
  return buildRouter({
    log: createLogger('router', 'silent'),
    intents: { load: async () => seededIntents() },
    conversations: { load: async () => NO_CONVERSATION },
    ...deps,
    config: {
      fastPathThreshold: 0.85,
      intentsRefreshMs: 60_000,
      concurrency: 4,
      toolStrategy: 'dynamic',
      cacheEnabled: true,
      cacheTtls: DEFAULT_TTLS,
      routeMaxAgeMs: 3_600_000,
      ...config,
    },
  });
}
