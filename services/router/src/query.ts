import type { MessageContext } from '@munim/bus';
import type { AgentEvent, Message, QuerySubmitted, RequestScope, RouteDecision } from '@munim/contracts';
import { lazyCounter } from '@munim/kit';
import {
  type CachedAnswer,
  CONVERSATION_STRATEGIES,
  cachedComplete,
  cacheKey,
  cacheQuery,
  expressesWrite,
} from './cache.ts';
import { ANNOUNCE_UNDERSTANDING_AFTER_MS, type RouterDeps } from './context.ts';
import type { IntentRefresh } from './intent-refresh.ts';
import { NO_CONVERSATION, type RouteResult, routeQuery } from './route.ts';

const routes = lazyCounter('munim.routes', 'Routed queries by path and category');

/**
 * An event sent on its own once `afterMs` pass, or else with the next events: `take()` returns it
 * to send with them, or nothing once it went alone (resolving when the stream has it).
 */
function deferred(send: () => Promise<unknown>, event: AgentEvent, afterMs: number) {
  let sent: Promise<unknown> | undefined;
  const timer = setTimeout(() => {
    // Kept to be awaited by `take`, which throws the failure where the handler can nak.
    sent = send();
    sent.catch(() => {});
  }, afterMs);
  return {
    async take(): Promise<AgentEvent[]> {
      clearTimeout(timer);
      if (!sent) return [event];
      await sent;
      return [];
    },
    cancel: () => clearTimeout(timer),
  };
}

/**
 * The handler of `querySubmitted`: routes every submitted query without calling an LLM and hands it
 * to the agent, or answers it from the response cache.
 */
export function queryHandler(deps: RouterDeps, intents: IntentRefresh) {
  const { bus, log, config, store } = deps;
  const { matcher, thresholdFor } = intents;

  return async (message: Message<QuerySubmitted>, ctx: MessageContext) => {
    const scope: RequestScope = message;
    const { query, mcqResponse, approvalDecision, attachmentIds, channel, debug, newConversation } =
      message.data;
    const passed = {
      ...(channel ? { channel } : {}),
      ...(debug ? { debug } : {}),
      ...(newConversation ? { newConversation } : {}),
    };
    const attachments = (attachmentIds?.length ?? 0) > 0;
    const emit = (event: AgentEvent) =>
      bus.emit(scope, event, ctx.traceparent, `${scope.requestId}:router:${event.type}`);
    // The steps of routing happen within a millisecond of each other: sent as one message.
    const emitAll = (events: AgentEvent[], what: string) =>
      bus.emitAll(scope, events, ctx.traceparent, `${scope.requestId}:router:${what}`);

    // The gateway opens the request after submitting it and may have died in between. Every
    // delivery opens it (one message id: it is stored once), the router's bus role reading no events.
    await bus.open(scope, ctx.traceparent);

    // An answer to a confirmation, or a decision on an approval, goes straight to the agent.
    if (mcqResponse || approvalDecision) {
      await bus.publish(
        'queryRouted',
        scope,
        {
          query,
          ...(mcqResponse ? { mcqResponse } : {}),
          ...(approvalDecision ? { approvalDecision } : {}),
          route: confirmationRoute(),
          ...passed,
        },
        { msgID: `${scope.requestId}:routed`, traceparent: ctx.traceparent },
      );
      return;
    }

    const understanding: AgentEvent = { type: 'understanding_started', payload: { query } };
    const announced = deferred(
      () => emit(understanding),
      understanding,
      config.announceUnderstandingAfterMs ?? ANNOUNCE_UNDERSTANDING_AFTER_MS,
    );
    try {
      const { registry, conversation, calendar } = await routingInputs(
        deps,
        scope,
        newConversation === true,
        ctx.traceparent,
      );
      const started: AgentEvent = {
        type: 'route_started',
        payload: { intentCount: matcher.size, toolCount: registry.length },
      };

      const result = routeQuery({
        query,
        matcher,
        registry,
        thresholdFor,
        strategy: config.toolStrategy,
        conversation,
        attachments,
        calendar,
      });
      const { decision, order } = result;
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
            [...(await announced.take()), started, ...cachedSteps(query, decision, cached)],
            'cached',
          );
          log.debug({ requestId: scope.requestId, from: cached.requestId }, 'answered from the cache');
          return;
        }
      }

      routes().add(1, { 'munim.path': decision.path, 'munim.category': decision.category });
      await emitAll([...(await announced.take()), started, ...routedSteps(result, matcher.size)], 'routed');
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
      log.debug(
        { requestId: scope.requestId, path: decision.path, intent: result.match?.intent.name },
        'routed',
      );
    } finally {
      announced.cancel();
    }
  };
}

/** What routing reads besides the query; each, unreadable, is routed without (and said). */
async function routingInputs(
  deps: RouterDeps,
  scope: RequestScope,
  newConversation: boolean,
  traceparent: string | undefined,
) {
  const { log } = deps;
  const registry = await deps.tools.list(scope, traceparent).catch((error: unknown) => {
    log.warn({ err: error, requestId: scope.requestId }, 'tool registry unavailable; routing without tools');
    return [];
  });
  // A conversation the gateway has just named has nothing stored to read.
  const conversation = newConversation
    ? NO_CONVERSATION
    : await deps.conversations.load(scope, registry).catch((error: unknown) => {
        log.warn({ err: error, requestId: scope.requestId }, 'conversation unavailable; routing without it');
        return NO_CONVERSATION;
      });
  const calendar = await deps.calendar?.(scope).catch((error: unknown) => {
    log.warn({ err: error, requestId: scope.requestId }, 'business calendar unavailable; no figures by code');
    return undefined;
  });
  return { registry, conversation, calendar };
}

/** The steps of an answer from the cache after `route_started`, as the client sees them. */
function cachedSteps(query: string, decision: RouteDecision, cached: CachedAnswer): AgentEvent[] {
  return [
    {
      type: 'route_classified',
      payload: {
        path: 'cached',
        category: decision.category,
        confidence: decision.confidence,
        tier: decision.tier,
        reasoning: `cached answer of ${cached.answeredAt}`,
      },
    },
    { type: 'response_generating', payload: {} },
    { type: 'response_chunk', payload: { text: cached.response } },
    { type: 'complete', payload: cachedComplete(query, cached) },
  ];
}

/** The steps of a routed query after `route_started`, as the client sees them. */
function routedSteps(result: RouteResult, intentCount: number): AgentEvent[] {
  const { classification, match, entities, selection, decision } = result;
  const steps: AgentEvent[] = [];
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
  steps.push(
    { type: 'intent_detecting', payload: { intentCount } },
    {
      type: 'intent_detected',
      payload: { intent: match?.intent ?? null, confidence: match?.intent.confidence ?? 0 },
    },
    { type: 'entities_extracted', payload: { entities } },
    {
      type: 'route_classified',
      payload: {
        path: decision.path,
        category: decision.category,
        confidence: decision.confidence,
        tier: decision.tier,
        reasoning: decision.reasoning,
      },
    },
    {
      type: 'tools_filtered',
      payload: {
        strategy: selection.strategy,
        groups: selection.groups,
        tools: selection.tools,
        count: selection.tools.length,
      },
    },
  );
  return steps;
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
