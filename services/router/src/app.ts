import type { Bus, MessageContext, RunningConsumer } from '@munim/bus';
import type { AgentEvent, Message, QuerySubmitted, RequestScope, RouteDecision } from '@munim/contracts';
import { type Logger, lazyCounter, type ToolCatalog } from '@munim/kit';
import {
  type CacheTtls,
  CONVERSATION_STRATEGIES,
  cachedComplete,
  cacheKey,
  cacheQuery,
  expressesWrite,
} from './cache.ts';
import type { ConversationSource } from './conversation.ts';
import { IntentMatcher, type IntentSource } from './intents.ts';
import { adaptiveThreshold, DEFAULT_RULES, type IntentOutcomes } from './learning.ts';
import { outcomeHandler } from './outcomes.ts';
import { NO_CONVERSATION, routeQuery } from './route.ts';
import type { RouterStore } from './store.ts';
import type { ToolStrategy } from './tool-groups.ts';

const routes = lazyCounter('munim.routes', 'Routed queries by path and category');

export interface RouterConfig {
  fastPathThreshold: number;
  intentsRefreshMs: number;
  concurrency: number;
  /** How soon another instance takes over a query this one got and did not acknowledge (default 30 s). */
  ackWaitMs?: number;
  toolStrategy: ToolStrategy;
  /** Serve and write the response cache (seed 003 §6.13). */
  cacheEnabled: boolean;
  cacheTtls: CacheTtls;
  /** Open routes older than this (their request never ended) are dropped. */
  routeMaxAgeMs: number;
}

export interface RouterDeps {
  bus: Bus;
  log: Logger;
  intents: IntentSource;
  tools: ToolCatalog;
  conversations: ConversationSource;
  store: RouterStore;
  config: RouterConfig;
}

/**
 * Routes every submitted query without calling an LLM (seed 003 §3) and hands it to the agent,
 * or answers it from the response cache; learns from how each request ended (seed 003 §8).
 */
export async function buildRouter(deps: RouterDeps) {
  const { bus, log, config, store } = deps;
  const matcher = new IntentMatcher();
  let outcomes = new Map<string, IntentOutcomes>();
  let consumer: RunningConsumer | undefined;
  let outcomeConsumer: RunningConsumer | undefined;
  let refresher: NodeJS.Timeout | undefined;
  let pruner: NodeJS.Timeout | undefined;
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

  const pruneEveryMs = Math.max(60_000, config.routeMaxAgeMs / 4);
  /**
   * The intents changed: the cached answers go, and an answer routed before now is not cached, since
   * it may have been built with the old intents (the marker outlives every route open now).
   */
  const forgetAnswers = async () => {
    if (!config.cacheEnabled) return;
    try {
      const dropped = await store.forgetAnswers(config.routeMaxAgeMs + pruneEveryMs);
      log.debug({ dropped }, 'cached answers dropped after an intent change');
    } catch (error) {
      log.warn({ err: error }, 'could not drop cached answers after an intent change');
    }
  };

  const prune = () =>
    store.prune(config.routeMaxAgeMs).catch((error: unknown) => log.warn({ err: error }, 'prune failed'));

  const route = async (message: Message<QuerySubmitted>, ctx: MessageContext) => {
    const scope: RequestScope = message;
    const { query, mcqResponse, attachmentIds, channel, debug } = message.data;
    const passed = { ...(channel ? { channel } : {}), ...(debug ? { debug } : {}) };
    const attachments = (attachmentIds?.length ?? 0) > 0;
    const emit = (event: AgentEvent) =>
      bus.emit(scope, event, ctx.traceparent, `${scope.requestId}:router:${event.type}`);
    // The steps of routing happen within a millisecond of each other: sent as one message.
    const emitAll = (events: AgentEvent[], what: string) =>
      bus.emitAll(scope, events, ctx.traceparent, `${scope.requestId}:router:${what}`);

    // The gateway opens the request after submitting it and may have died in between. Every
    // delivery opens it (one message id: it is stored once), the router's bus role reading no events.
    await bus.open(scope, ctx.traceparent);

    if (mcqResponse) {
      await bus.publish(
        'queryRouted',
        scope,
        { query, mcqResponse, route: confirmationRoute(), ...passed },
        { msgID: `${scope.requestId}:routed`, traceparent: ctx.traceparent },
      );
      return;
    }

    await emit({ type: 'understanding_started', payload: { query } });
    const registry = await deps.tools.list(scope, ctx.traceparent).catch((error: unknown) => {
      log.warn(
        { err: error, requestId: scope.requestId },
        'tool registry unavailable; routing without tools',
      );
      return [];
    });
    const conversation = await deps.conversations.load(scope, registry).catch((error: unknown) => {
      log.warn({ err: error, requestId: scope.requestId }, 'conversation unavailable; routing without it');
      return NO_CONVERSATION;
    });
    const steps: AgentEvent[] = [
      { type: 'route_started', payload: { intentCount: matcher.size, toolCount: registry.length } },
    ];

    const { classification, match, entities, selection, decision, order } = routeQuery({
      query,
      matcher,
      registry,
      thresholdFor,
      strategy: config.toolStrategy,
      conversation,
      attachments,
    });
    const { tier, reasoning } = decision;
    const queryNormalized = cacheQuery(query);
    // Conversation-dependent queries mean something else in every conversation, and a change
    // must reach the agent even when the last answer to the same words was a question back.
    const cacheable =
      !attachments &&
      decision.category === 'unified' &&
      decision.path !== 'cached' &&
      !CONVERSATION_STRATEGIES.has(decision.strategy) &&
      !expressesWrite(queryNormalized) &&
      !order;

    if (config.cacheEnabled && cacheable) {
      const cached = await store
        .cached(scope, cacheKey(queryNormalized, decision.path))
        .catch((error: unknown) => {
          log.warn({ err: error, requestId: scope.requestId }, 'response cache unavailable; routing');
          return undefined;
        });
      if (cached) {
        routes().add(1, { 'munim.path': 'cached', 'munim.category': decision.category });
        await emitAll(
          [
            ...steps,
            {
              type: 'route_classified',
              payload: {
                path: 'cached',
                category: decision.category,
                confidence: decision.confidence,
                tier,
                reasoning: `cached answer of ${cached.answeredAt}`,
              },
            },
            { type: 'response_generating', payload: {} },
            { type: 'response_chunk', payload: { text: cached.response } },
            { type: 'complete', payload: cachedComplete(query, cached) },
          ],
          'cached',
        );
        log.debug({ requestId: scope.requestId, from: cached.requestId }, 'answered from the cache');
        return;
      }
    }

    if (classification.crossover) {
      steps.push({
        type: 'mode_switch',
        payload: {
          from: 'general_chat',
          to: 'unified',
          reason: 'greeting together with a financial question',
        },
      });
    }
    steps.push({ type: 'intent_detecting', payload: { intentCount: matcher.size } });
    steps.push({
      type: 'intent_detected',
      payload: { intent: match?.intent ?? null, confidence: match?.intent.confidence ?? 0 },
    });
    steps.push({ type: 'entities_extracted', payload: { entities } });
    routes().add(1, { 'munim.path': decision.path, 'munim.category': decision.category });
    steps.push({
      type: 'route_classified',
      payload: {
        path: decision.path,
        category: decision.category,
        confidence: decision.confidence,
        tier,
        reasoning,
      },
    });
    steps.push({
      type: 'tools_filtered',
      payload: {
        strategy: selection.strategy,
        groups: selection.groups,
        tools: selection.tools,
        count: selection.tools.length,
      },
    });
    await emitAll(steps, 'routed');
    // Recorded before the agent can finish, so the outcome always finds its route.
    await store
      .recordRoute({
        request_id: scope.requestId,
        entity_id: scope.entityId,
        org_id: scope.orgId,
        query_normalized: queryNormalized,
        path: decision.path,
        category: decision.category,
        strategy: decision.strategy,
        cacheable,
        intent_id: decision.path === 'fast' ? (decision.intent?.id ?? null) : null,
        confidence: decision.path === 'fast' ? (decision.intent?.confidence ?? null) : null,
      })
      .catch((error: unknown) =>
        log.warn(
          { err: error, requestId: scope.requestId },
          'could not record the route; nothing learnt from it',
        ),
      );
    await bus.publish(
      'queryRouted',
      scope,
      { query, route: decision, ...(attachments ? { attachmentIds } : {}), ...passed },
      { msgID: `${scope.requestId}:routed`, traceparent: ctx.traceparent },
    );
    log.debug({ requestId: scope.requestId, path: decision.path, intent: match?.intent.name }, 'routed');
  };

  return {
    matcher,
    /** The fast-path threshold of an intent now (adaptive, seed 003 §8.2). */
    thresholdFor,
    /** Re-reads intents and routing stats now (also done on a timer). */
    refresh,
    async start() {
      await refresh();
      await prune();
      refresher = setInterval(() => void refresh(), config.intentsRefreshMs);
      refresher.unref();
      // An admin changed the intents: use them now rather than at the next timed refresh.
      // The cached answers go too, once the new set is in use: an edited flow must not be answered
      // from what the old one found.
      intentsChangedSub = bus.listen('intentsChanged', (message) => {
        log.info({ ...message.data }, 'intents changed; reloading');
        void refresh().then(forgetAnswers);
      });
      pruner = setInterval(() => void prune(), pruneEveryMs);
      pruner.unref();
      outcomeConsumer = await bus.consume(
        'requestEvents',
        outcomeHandler(store, log, { cacheEnabled: config.cacheEnabled, ttls: config.cacheTtls }),
        {
          durable: 'router-cache',
          concurrency: config.concurrency,
          // An observer of every request's events: it neither reports their problems nor replays history.
          reportMalformed: false,
          startAt: 'new',
          traced: false,
          onGiveUp: async (message, error) => {
            log.warn({ err: error, requestId: message.requestId }, 'outcome of a request not recorded');
          },
        },
      );
      consumer = await bus.consume('querySubmitted', route, {
        durable: 'router',
        concurrency: config.concurrency,
        ackWaitMs: config.ackWaitMs ?? 30_000,
        onGiveUp: async (message) => {
          await bus.emit(message, {
            type: 'error',
            payload: { code: 'INTERNAL', message: 'Sorry, I could not process that question right now.' },
          });
        },
      });
    },
    async stop() {
      if (refresher) clearInterval(refresher);
      if (pruner) clearInterval(pruner);
      intentsChangedSub?.unsubscribe();
      await consumer?.stop();
      await outcomeConsumer?.stop();
    },
  };
}

/** The answer to a pending confirmation goes straight to the agent that owns the conversation state. */
function confirmationRoute(): RouteDecision {
  return {
    path: 'llm',
    category: 'unified',
    confidence: 1,
    tier: 'cheap',
    intent: null,
    extractedEntities: {},
    strategy: 'confirmation',
    toolGroups: [],
    tools: [],
    pipeline: [],
    reasoning: 'answer to a pending confirmation',
  };
}
