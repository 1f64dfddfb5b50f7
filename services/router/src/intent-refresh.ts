import type { Bus } from '@munim/bus';
import type { RouterDeps } from './context.ts';
import { IntentMatcher } from './intents.ts';
import { adaptiveThreshold, DEFAULT_RULES, type IntentOutcomes } from './learning.ts';

/**
 * The intents the router matches and the routing stats their thresholds adapt to: read at start,
 * on a timer, and at once when an admin changes the intents.
 */
export function intentRefresh(deps: RouterDeps, afterChange: () => Promise<void>) {
  const { bus, log, config, store } = deps;
  const matcher = new IntentMatcher();
  let outcomes = new Map<string, IntentOutcomes>();
  let refresher: NodeJS.Timeout | undefined;
  let intentsChangedSub: ReturnType<Bus['nc']['subscribe']> | undefined;
  const rules = { defaultThreshold: config.fastPathThreshold, ...DEFAULT_RULES };
  const thresholdFor = (intentId: string) => adaptiveThreshold(outcomes.get(intentId), rules);

  const load = async () => {
    try {
      matcher.replace(await deps.intents.load());
    } catch (error) {
      log.warn({ err: error }, 'could not refresh intents; keeping the previous set');
    }
    try {
      outcomes = await store.intentOutcomes();
    } catch (error) {
      log.warn({ err: error }, 'could not refresh intent routing stats; keeping the previous ones');
    }
  };
  // One refresh at a time, in order: a slow timed refresh that read the table before an admin
  // change must not replace the set the change's own refresh loaded after it.
  let refreshing = Promise.resolve();
  const refresh = (): Promise<void> => {
    refreshing = refreshing.then(load);
    return refreshing;
  };

  return {
    matcher,
    thresholdFor,
    refresh,
    /** Starts the timed refresh and the reload on an admin's change (the first refresh is the caller's). */
    start() {
      refresher = setInterval(() => void refresh(), config.intentsRefreshMs);
      refresher.unref();
      // An admin changed the intents: use them now rather than at the next timed refresh, and only
      // then run `afterChange` (the cached answers go once the new set is in use).
      intentsChangedSub = bus.listen('intentsChanged', (message) => {
        log.info({ ...message.data }, 'intents changed; reloading');
        void refresh().then(afterChange);
      });
    },
    stop() {
      if (refresher) clearInterval(refresher);
      intentsChangedSub?.unsubscribe();
    },
  };
}

export type IntentRefresh = ReturnType<typeof intentRefresh>;
