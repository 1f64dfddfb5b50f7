import { readFileSync } from 'node:fs';
import type { ToolDefinition } from '@munim/contracts';
import { MORE_INTENTS, STARTER_INTENTS, type StarterIntent } from '@munim/db';
import { toolList } from '@munim/demo-books';
import { type Intent, IntentMatcher } from '../src/intents.ts';
import { routeQuery } from '../src/route.ts';

/** One labelled query of `queries.jsonl`. */
export interface LabelledQuery {
  q: string;
  category: 'unified' | 'general_chat';
  intent: string | null;
  groups: string[];
  kind: string;
  history?: { groups: string[]; pendingAction: boolean };
  /** The arguments the fast path must fill from the query, when it takes it. */
  args?: Record<string, unknown>;
}

export interface Scores {
  total: number;
  categoryAccuracy: number;
  fastPrecision: number;
  fastRecall: number;
  fastSent: number;
  fastCorrect: number;
  intentQueries: number;
  /** Fast-path threshold every intent was given. */
  threshold: number;
  /** Orders to change the books (kind `order`) answered by a read intent's fast path. */
  ordersFast: number;
  /** Filtered questions (kind `filter`) answered by a fast path that dropped the filter. */
  filtersDropped: number;
  /** Tool-definition tokens (≈ 4 characters a token) offered across the set. */
  tokens: {
    selected: number;
    all: number;
    saving: number;
    coverage: number;
    covered: number;
    needed: number;
  };
  misses: string[];
}

/** The seeded catalog (migrations 0002 and 0003) as the router loads it. */
export function seededIntents(): Intent[] {
  return [...STARTER_INTENTS, ...MORE_INTENTS].map((i: StarterIntent) => ({
    id: i.id,
    name: i.name,
    moduleId: i.moduleId,
    description: i.description,
    trainingPhrases: [...i.trainingPhrases, ...i.hinglishPhrases],
    resolutionFlow: i.resolutionFlow.map((s) => ({ ...s })),
  }));
}

/** The demo books' tools as the MCP executor publishes them. */
export function demoRegistry(): ToolDefinition[] {
  return toolList().map((t) => ({
    name: t.name,
    ...(t.title !== undefined && { title: t.title }),
    ...(t.description !== undefined && { description: t.description }),
    inputSchema: t.inputSchema as Record<string, unknown>,
    isWrite: t.annotations?.readOnlyHint === false,
  }));
}

export function loadQueries(): LabelledQuery[] {
  return readFileSync(new URL('./queries.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LabelledQuery);
}

/** A tool definition's prompt size: its name, description and JSON schema at ~4 characters a token. */
export function toolTokens(t: ToolDefinition): number {
  return Math.ceil(
    JSON.stringify({ name: t.name, description: t.description ?? '', parameters: t.inputSchema }).length / 4,
  );
}

/** Scores the router on the labelled set: category accuracy, fast-path precision/recall and the token budget. */
export function evaluate(
  queries = loadQueries(),
  registry = demoRegistry(),
  intents = seededIntents(),
  threshold = 0.85,
): Scores {
  const matcher = new IntentMatcher();
  matcher.replace(intents);
  const byName = new Map(registry.map((t) => [t.name, t]));
  const allTokens = registry.reduce((n, t) => n + toolTokens(t), 0);
  let categoryOk = 0;
  let fastSent = 0;
  let fastCorrect = 0;
  let intentQueries = 0;
  let intentHit = 0;
  let selected = 0;
  let all = 0;
  let needed = 0;
  let covered = 0;
  let ordersFast = 0;
  let filtersDropped = 0;
  const misses: string[] = [];
  for (const item of queries) {
    const { decision } = routeQuery({
      query: item.q,
      matcher,
      registry,
      thresholdFor: () => threshold,
      strategy: 'dynamic',
      ...(item.history && {
        conversation: {
          previousGroups: item.history.groups,
          pendingAction: item.history.pendingAction,
          turns: 2,
        },
      }),
    });
    if (decision.category === item.category) categoryOk++;
    else misses.push(`category ${item.q} → ${decision.category}`);
    if (item.intent) intentQueries++;
    if (decision.path === 'fast') {
      fastSent++;
      if (item.kind === 'order') ordersFast++;
      if (item.kind === 'filter') filtersDropped++;
      const argsOk = !item.args || JSON.stringify(decision.pipeline[0]?.args) === JSON.stringify(item.args);
      if (decision.intent?.name === item.intent && argsOk) {
        fastCorrect++;
        if (item.intent) intentHit++;
      } else misses.push(`wrong fast path ${item.q} → ${decision.intent?.name}`);
    } else if (item.intent)
      misses.push(
        `missed ${item.q} (${item.intent}) → ${decision.intent?.name}@${decision.intent?.confidence}`,
      );
    if (item.category !== 'unified') continue;
    // Token budget: what the agent is offered against every tool on every query.
    const offered = decision.path === 'fast' ? [] : decision.tools;
    selected += offered.reduce(
      (n, name) => n + (byName.get(name) ? toolTokens(byName.get(name) as ToolDefinition) : 0),
      0,
    );
    all += allTokens;
    if (decision.path === 'fast') {
      needed++;
      covered++;
      continue;
    }
    for (const group of item.groups) {
      needed++;
      if (
        decision.toolGroups.includes(group) ||
        (decision.strategy.includes('all') && decision.tools.length === registry.length)
      )
        covered++;
      else misses.push(`group ${group} not offered for ${item.q} (${decision.toolGroups.join(',')})`);
    }
  }
  const pct = (a: number, b: number) => (b === 0 ? 1 : a / b);
  return {
    total: queries.length,
    categoryAccuracy: pct(categoryOk, queries.length),
    fastPrecision: pct(fastCorrect, fastSent),
    fastRecall: pct(intentHit, intentQueries),
    fastSent,
    fastCorrect,
    intentQueries,
    threshold,
    ordersFast,
    filtersDropped,
    tokens: {
      selected,
      all,
      saving: 1 - pct(selected, all),
      coverage: pct(covered, needed),
      covered,
      needed,
    },
    misses,
  };
}
