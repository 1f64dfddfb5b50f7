import type { RunningConsumer } from '@munim/bus';
import { endRequestOnGiveUp } from '@munim/kit';
import type { RouterDeps } from './context.ts';
import { intentRefresh } from './intent-refresh.ts';
import { outcomeHandler } from './outcomes.ts';
import { queryHandler } from './query.ts';
import { routeUpkeep } from './upkeep.ts';

export type { RouterConfig, RouterDeps } from './context.ts';

/**
 * Routes every submitted query without calling an LLM and hands it to the agent, or answers it from
 * the response cache; learns from how each request ended.
 */
export async function buildRouter(deps: RouterDeps) {
  const { bus, log, config, store } = deps;
  const upkeep = routeUpkeep(deps);
  const intents = intentRefresh(deps, upkeep.forgetAnswers);
  let consumer: RunningConsumer | undefined;
  let outcomeConsumer: RunningConsumer | undefined;

  return {
    matcher: intents.matcher,
    /** The fast-path threshold of an intent now (adapted to how its fast answers ended). */
    thresholdFor: intents.thresholdFor,
    /** Re-reads intents and routing stats now (also done on a timer). */
    refresh: intents.refresh,
    async start() {
      await intents.refresh();
      await upkeep.prune();
      intents.start();
      upkeep.start();
      outcomeConsumer = await bus.consume(
        'requestEnded',
        outcomeHandler(store, log, { cacheEnabled: config.cacheEnabled, ttls: config.cacheTtls }),
        {
          durable: 'router-outcomes',
          concurrency: config.concurrency,
          // An observer of how requests end: it neither reports their problems nor replays history.
          reportMalformed: false,
          startAt: 'new',
          traced: false,
          onGiveUp: async (message, error) => {
            log.warn({ err: error, requestId: message.requestId }, 'outcome of a request not recorded');
          },
        },
      );
      consumer = await bus.consume('querySubmitted', queryHandler(deps, intents), {
        durable: 'router',
        concurrency: config.concurrency,
        ackWaitMs: config.ackWaitMs ?? 30_000,
        onGiveUp: endRequestOnGiveUp(bus, 'Sorry, I could not process that question right now.'),
      });
    },
    async stop() {
      intents.stop();
      upkeep.stop();
      await consumer?.stop();
      await outcomeConsumer?.stop();
    },
  };
}
