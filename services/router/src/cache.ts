import { createHash } from 'node:crypto';
import { type EventPayload, isWriteResult, type Path } from '@munim/contracts';
import { normalize } from './text.ts';
import { groupsOfTool } from './tool-groups.ts';

/** How long an answer stays fresh, by the kind of data it was built from. */
export type DataKind = 'volatile' | 'report' | 'static';

export interface CacheTtls {
  volatileMs: number;
  reportMs: number;
  staticMs: number;
}

/** 5 min for volatile data (balances, invoices), 15 min for reports, 1 h for static lookups. */
export const DEFAULT_TTLS: CacheTtls = {
  volatileMs: 5 * 60_000,
  reportMs: 15 * 60_000,
  staticMs: 60 * 60_000,
};

/** Strategies whose answer depends on the conversation so far: never served from or written to the cache. */
export const CONVERSATION_STRATEGIES: ReadonlySet<string> = new Set([
  'confirmation',
  'pagination',
  'filter',
  'follow_up_reuse',
]);

/** Words that ask for a change: such a query is never answered from (or stored in) the cache, even when its answer was a question back. */
const WRITE_WORDS =
  /(^| )(create|record|add|make|new|update|edit|change|modify|delete|remove|void|cancel|approve|send|email|file|import|merge|adjust|reconcile|pay|mark|issue|raise|post|banao|bana|banado|bhejo|bhej|hatao|mitao|jodo|daalo|dalo|likho|karo|kar do|kardo)( |$)/;

/** Whether a query asks for a change rather than a read (by its words; the tools decide later). */
export function expressesWrite(queryNormalized: string): boolean {
  return WRITE_WORDS.test(queryNormalized);
}

/** Groups whose data changes with every document (lists, balances): the volatile kind. */
const VOLATILE_GROUPS = new Set([
  'invoices',
  'bills',
  'payments',
  'credit_notes',
  'transactions',
  'banking',
  'delivery_challans',
  'expenses',
  'journal',
  'inventory',
]);
/** Groups that are computed reports. */
const REPORT_GROUPS = new Set([
  'aging_reports',
  'reports_pnl',
  'reports_balance',
  'reports_cashflow',
  'reports_payables',
  'reports_gst',
  'kpi_dashboard',
  'trends_analysis',
]);

/** The query as the cache keys it: {@link normalize}d, so case, punctuation and digit scripts do not matter. */
export const cacheQuery = (query: string): string => normalize(query);

/** SHA-256 (hex) of the normalised query and the path; with the tenant (entity and org) it is the cache key. */
export function cacheKey(queryNormalized: string, path: Path): string {
  return createHash('sha256').update(`${path}\n${queryNormalized}`).digest('hex');
}

/** Hash that groups repeats of one LLM-path query, to suggest an intent for it. */
export function patternHash(queryNormalized: string): string {
  return createHash('sha256').update(queryNormalized).digest('hex');
}

/** The most volatile kind among the groups of the tools an answer used; no tools → static. */
export function dataKindOf(tools: readonly string[]): DataKind {
  const groups = tools.flatMap((t) => groupsOfTool(t));
  if (groups.some((g) => VOLATILE_GROUPS.has(g))) return 'volatile';
  if (groups.some((g) => REPORT_GROUPS.has(g))) return 'report';
  // A tool no group knows could hold anything: assume it changes often.
  if (tools.length > 0 && groups.length === 0) return 'volatile';
  return 'static';
}

export function ttlFor(kind: DataKind, ttls: CacheTtls): number {
  return kind === 'volatile' ? ttls.volatileMs : kind === 'report' ? ttls.reportMs : ttls.staticMs;
}

/** The write tools that succeeded in a finished request. */
export function succeededWrites(complete: EventPayload<'complete'>): string[] {
  return complete.mcpToolResults.filter((r) => r.success && isWriteResult(r)).map((r) => r.tool);
}

/**
 * Whether a finished request's answer may be cached: an answered, unguarded read whose every
 * tool call succeeded (a partial failure would be served again after it is fixed).
 */
export function isCacheableAnswer(complete: EventPayload<'complete'>): boolean {
  return (
    complete.status === 'answered' &&
    complete.category === 'unified' &&
    (complete.path === 'fast' || complete.path === 'llm') &&
    complete.response.trim().length > 0 &&
    (complete.guardrails ?? []).length === 0 &&
    complete.mcpToolResults.every((r) => r.success && !isWriteResult(r))
  );
}

/** What the cache keeps of an answer, and how a hit replays it. */
export interface CachedAnswer {
  response: string;
  matchedIntent: EventPayload<'complete'>['matchedIntent'];
  extractedEntities: Record<string, unknown>;
  pipelineSteps: EventPayload<'complete'>['pipelineSteps'];
  responseFormat: string;
  dataSources: string[];
  category: EventPayload<'complete'>['category'];
  /** When the answer was built (ISO time). */
  answeredAt: string;
  /** The request that built it. */
  requestId: string;
}

export function toCachedAnswer(complete: EventPayload<'complete'>, requestId: string): CachedAnswer {
  return {
    response: complete.response,
    matchedIntent: complete.matchedIntent,
    extractedEntities: complete.extractedEntities,
    pipelineSteps: complete.pipelineSteps,
    responseFormat: complete.responseFormat,
    dataSources: complete.dataSources,
    category: complete.category,
    answeredAt: new Date().toISOString(),
    requestId,
  };
}

/**
 * The `complete` of a cache hit: the cached answer for this query, with no tool call, no LLM
 * call and no usage — `dataSources` still names where the data came from.
 */
export function cachedComplete(query: string, cached: CachedAnswer): EventPayload<'complete'> {
  return {
    query,
    path: 'cached',
    category: cached.category,
    matchedIntent: cached.matchedIntent,
    extractedEntities: cached.extractedEntities,
    reasoning: `cached answer of ${cached.answeredAt}`,
    pipelineSteps: cached.pipelineSteps,
    enrichments: [],
    responseFormat: cached.responseFormat,
    response: cached.response,
    mcpToolResults: [],
    dataSources: cached.dataSources,
    llmModel: '',
    iterationCount: 0,
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    status: 'answered',
  };
}
