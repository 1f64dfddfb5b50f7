import type { RouterDeps } from './context.ts';

/**
 * The router's tables kept small and true: open routes whose request never ended are pruned on a
 * timer, and the cached answers go when the intents change.
 */
export function routeUpkeep(deps: RouterDeps) {
  const { log, config, store } = deps;
  let pruner: NodeJS.Timeout | undefined;
  const pruneEveryMs = Math.max(60_000, config.routeMaxAgeMs / 4);

  const prune = () =>
    store.prune(config.routeMaxAgeMs).catch((error: unknown) => log.warn({ err: error }, 'prune failed'));

  return {
    prune,
    /**
     * The intents changed: the cached answers go, and an answer routed before now is not cached, since
     * it may have been built with the old intents (the marker outlives every route open now).
     */
    async forgetAnswers() {
      if (!config.cacheEnabled) return;
      try {
        const dropped = await store.forgetAnswers(config.routeMaxAgeMs + pruneEveryMs);
        log.debug({ dropped }, 'cached answers dropped after an intent change');
      } catch (error) {
        log.warn({ err: error }, 'could not drop cached answers after an intent change');
      }
    },
    start() {
      pruner = setInterval(() => void prune(), pruneEveryMs);
      pruner.unref();
    },
    stop() {
      if (pruner) clearInterval(pruner);
    },
  };
}
