import type { Bus, MessageContext, RunningConsumer } from '@munim/bus';
import type { AgentEvent, Message, QuerySubmitted, RequestScope, RouteDecision } from '@munim/contracts';
import type { Logger, ToolCatalog } from '@munim/kit';
import { IntentMatcher, type IntentSource } from './intents.ts';
import { routeQuery } from './route.ts';
import type { ToolStrategy } from './tool-groups.ts';

export interface RouterConfig {
  fastPathThreshold: number;
  intentsRefreshMs: number;
  concurrency: number;
  toolStrategy: ToolStrategy;
}

export interface RouterDeps {
  bus: Bus;
  log: Logger;
  intents: IntentSource;
  tools: ToolCatalog;
  config: RouterConfig;
}

/** Routes every submitted query without calling an LLM (seed 003 §3) and hands it to the agent. */
export async function buildRouter(deps: RouterDeps) {
  const { bus, log, config } = deps;
  const matcher = new IntentMatcher();
  let consumer: RunningConsumer | undefined;
  let refresher: NodeJS.Timeout | undefined;

  const refreshIntents = async () => {
    try {
      matcher.replace(await deps.intents.load());
    } catch (error) {
      log.warn({ err: error }, 'could not refresh intents; keeping the previous set');
    }
  };

  const route = async (message: Message<QuerySubmitted>, ctx: MessageContext) => {
    const scope: RequestScope = message;
    const { query, mcqResponse } = message.data;
    const emit = (event: AgentEvent) =>
      bus.emit(scope, event, ctx.traceparent, `${scope.requestId}:router:${event.type}`);

    if (mcqResponse) {
      await bus.publish(
        'queryRouted',
        scope,
        { query, mcqResponse, route: confirmationRoute() },
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
    await emit({ type: 'route_started', payload: { intentCount: matcher.size, toolCount: registry.length } });

    const { classification, match, entities, selection, decision } = routeQuery({
      query,
      matcher,
      registry,
      thresholdFor: () => config.fastPathThreshold,
      strategy: config.toolStrategy,
    });
    if (classification.crossover) {
      await emit({
        type: 'mode_switch',
        payload: {
          from: 'general_chat',
          to: 'unified',
          reason: 'greeting together with a financial question',
        },
      });
    }
    await emit({ type: 'intent_detecting', payload: { intentCount: matcher.size } });
    await emit({
      type: 'intent_detected',
      payload: { intent: match?.intent ?? null, confidence: match?.intent.confidence ?? 0 },
    });
    await emit({ type: 'entities_extracted', payload: { entities } });
    const { tier, reasoning } = decision;
    await emit({
      type: 'route_classified',
      payload: {
        path: decision.path,
        category: decision.category,
        confidence: decision.confidence,
        tier,
        reasoning,
      },
    });
    await emit({
      type: 'tools_filtered',
      payload: {
        strategy: selection.strategy,
        groups: selection.groups,
        tools: selection.tools,
        count: selection.tools.length,
      },
    });
    await bus.publish(
      'queryRouted',
      scope,
      { query, route: decision },
      { msgID: `${scope.requestId}:routed`, traceparent: ctx.traceparent },
    );
    log.debug({ requestId: scope.requestId, path: decision.path, intent: match?.intent.name }, 'routed');
  };

  return {
    matcher,
    async start() {
      await refreshIntents();
      refresher = setInterval(() => void refreshIntents(), config.intentsRefreshMs);
      refresher.unref();
      consumer = await bus.consume('querySubmitted', route, {
        durable: 'router',
        concurrency: config.concurrency,
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
      await consumer?.stop();
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
