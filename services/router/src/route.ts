import type { PlannedCall, RouteDecision, ToolDefinition } from '@munim/contracts';
import { type Classification, classify } from './classifier.ts';
import { extractEntities, fillArgs } from './entities.ts';
import type { BusinessCalendar } from './finance/clock.ts';
import { type AnalyticPlan, financeRoute } from './finance/route.ts';
import type { IntentMatch, IntentMatcher } from './intents.ts';
import { ordersChange } from './orders.ts';
import { normalize } from './text.ts';
import { selectTier } from './tier.ts';
import { selectTools, type ToolSelection, type ToolStrategy } from './tool-groups.ts';

/** What the router knows of the conversation so far (empty when there is no history). */
export interface ConversationContext {
  /** Tool groups the previous turn used or was offered. */
  previousGroups: string[];
  /** The previous turn proposed an action and waits for a yes. */
  pendingAction: boolean;
  /** Turns so far. */
  turns: number;
}

export const NO_CONVERSATION: ConversationContext = { previousGroups: [], pendingAction: false, turns: 0 };

export interface RouteInput {
  query: string;
  matcher: IntentMatcher;
  registry: readonly ToolDefinition[];
  /** Fast-path threshold for an intent (adapted to how its fast answers ended). */
  thresholdFor: (intentId: string) => number;
  strategy: ToolStrategy;
  conversation?: ConversationContext;
  /** The query comes with files: only the model can read them, so no fast path. */
  attachments?: boolean;
  /** The business's today and financial year: with it, finance questions are answered by code. */
  calendar?: BusinessCalendar | undefined;
}

export interface RouteResult {
  classification: Classification;
  match: IntentMatch | null;
  entities: Record<string, unknown>;
  selection: ToolSelection;
  decision: RouteDecision;
  /** The query orders a change to the books. */
  order: boolean;
}

const CONFIRMATION =
  /^(yes|yeah|yep|yup|sure|ok|okay|confirm|confirmed|go ahead|do it|proceed|haan|han|haa|ha|ji|ji haan|theek|thik|theek hai|thik hai|kar do|kardo|karo|kar dijiye|ho jaye|chalo|bilkul|हाँ|हां|ठीक है|कर दो)( (please|pls|ji|kar do|karo|go ahead|do it|haan|create|create it|send it|theek hai|bilkul))*$/u;
const PAGINATION =
  /^(show |load |give |get )?(more|next|next page|aur|aur dikhao|aur batao|aage|agla|agla page|aage dikhao|more please|see more|page \d+)( please| pls| dikhao)?$/u;
const FILTER = /^(filter|only|sirf|just) /u;

/** Routes one query without calling an LLM: the pure core of the router, shared by the service, the eval and the bench. */
export function routeQuery(input: RouteInput): RouteResult {
  const { query, matcher, registry } = input;
  const conversation = input.conversation ?? NO_CONVERSATION;
  const text = normalize(query);
  const hasHistory = conversation.turns > 0 && conversation.previousGroups.length > 0;
  let classification = classify(query);
  const entities = extractEntities(query);

  // Conversation-aware cases (a confirmation, the next page, a filter, a short follow-up): they
  // reuse the previous groups.
  let special: { strategy: string; reasoning: string } | undefined;
  if (conversation.pendingAction && CONFIRMATION.test(text)) {
    special = { strategy: 'confirmation', reasoning: 'confirmation of the pending action' };
    entities.confirmation = true;
  } else if (hasHistory && PAGINATION.test(text)) {
    special = { strategy: 'pagination', reasoning: 'next page of the previous list' };
    entities.page = 'next';
  } else if (hasHistory && FILTER.test(text)) {
    special = { strategy: 'filter', reasoning: 'filter of the previous list, from page 1' };
    entities.page = 1;
  } else if (
    hasHistory &&
    text.split(' ').length < 5 &&
    classification.category === 'general_chat' &&
    !CONFIRMATION.test(text)
  ) {
    special = { strategy: 'follow_up_reuse', reasoning: 'short follow-up: previous tool groups reused' };
  }
  if (special) classification = { ...classification, category: 'unified', crossover: false };
  // "What does this show?" about a file is a question about the books, with the tools at hand.
  if (input.attachments) classification = { ...classification, category: 'unified' };

  // An order to change the books is the model's to carry out: a read intent would answer
  // "void the invoice" with the list of voided invoices.
  const order = classification.category === 'unified' && !special && ordersChange(query);
  // A finance question munim computes by code (a figure, a ranking, a comparison) goes the fast
  // path with the calls its figures need, before any intent.
  const analytic: AnalyticPlan | undefined =
    !special && !input.attachments && !order && input.calendar
      ? financeRoute(query, registry, input.calendar)
      : undefined;
  if (analytic) {
    classification = { ...classification, category: 'unified' };
    entities.analytic = analytic.request;
  }
  const found =
    classification.category === 'unified' && !special && !input.attachments && !order && !analytic
      ? matcher.match(query)
      : null;
  // An intent holding a write (added by hand to the table, or a tool reclassified since) is skipped.
  const match = analytic ? analyticMatch(analytic) : found && !holdsWrite(found, registry) ? found : null;
  const pipeline = analytic ? analytic.pipeline : match ? fastPipeline(match, input, entities) : undefined;
  // Reading a file is analysis: the capable tier's larger answer budget.
  const tier = input.attachments ? 'capable' : selectTier(query, classification.category);

  let selection: ToolSelection;
  if (pipeline) {
    selection = { strategy: 'intent_pipeline', groups: [], tools: pipeline.map((s) => s.tool) };
  } else if (special) {
    selection = selectTools(query, 'unified', registry, {
      strategy: input.strategy,
      groups: conversation.previousGroups,
    });
    selection = { ...selection, strategy: special.strategy };
  } else {
    selection = selectTools(query, classification.category, registry, {
      strategy: input.strategy,
      overdue: entities.overdue === true,
    });
  }
  if (
    pipeline === undefined &&
    match === null &&
    !special &&
    hasHistory &&
    classification.category === 'unified'
  ) {
    if (text.split(' ').length < 5 && selection.strategy === 'default_unified_dynamic') {
      selection = {
        ...selectTools(query, 'unified', registry, {
          strategy: input.strategy,
          groups: conversation.previousGroups,
        }),
        strategy: 'follow_up_reuse',
      };
    }
  }

  const reasoning = input.attachments
    ? 'attached files: the model reads them'
    : order
      ? 'an order to change the books: the model carries it out'
      : analytic
        ? `a finance figure computed by code: ${analytic.request.measure}${analytic.request.period ? ` for ${analytic.request.period.label}` : ''}`
        : pipeline && match
          ? `matched intent ${match.intent.name} at ${match.intent.confidence} ≥ ${input.thresholdFor(match.intent.id)}`
          : special
            ? special.reasoning
            : classification.category === 'general_chat'
              ? 'no financial keywords: general chat'
              : match?.capped
                ? `best intent ${match.intent.name} at ${match.intent.confidence}: the query asks more than its pipeline answers`
                : match
                  ? `best intent ${match.intent.name} at ${match.intent.confidence} below the fast path`
                  : 'no intent matched';

  const decision: RouteDecision = {
    path: pipeline ? 'fast' : 'llm',
    category: classification.category,
    confidence: special
      ? 1
      : (match?.intent.confidence ?? (classification.category === 'general_chat' ? 1 : 0)),
    tier,
    intent: match?.intent ?? null,
    extractedEntities: entities,
    strategy: selection.strategy,
    toolGroups: selection.groups,
    tools: selection.tools,
    pipeline: pipeline ?? [],
    reasoning,
  };
  return { classification, match, entities, selection, decision, order };
}

/** The intent an analytic stands for: its measure, certain (read by rule, not by similarity). */
function analyticMatch(plan: AnalyticPlan): IntentMatch {
  const name = `analytics.${plan.request.measure}`;
  return {
    intent: {
      id: name,
      name,
      moduleId: 'analytics',
      confidence: 1,
      description: 'A figure computed by code from the books’ reports and records',
    },
    flow: plan.pipeline,
    kind: 'name',
    capped: false,
  };
}

/** Whether an intent's flow names a tool the registry knows as a write. */
function holdsWrite(match: IntentMatch, registry: readonly ToolDefinition[]): boolean {
  const writes = new Set(registry.filter((t) => t.isWrite).map((t) => t.name));
  return match.flow.some((step) => writes.has(step.tool));
}

/**
 * The intent's pipeline with its arguments filled, when it may run: confident, known read tools
 * (intents hold reads only: a write in one, however it got there, is never run on the fast path,
 * where nobody confirms it), every slot filled.
 */
function fastPipeline(
  match: IntentMatch,
  input: RouteInput,
  entities: Record<string, unknown>,
): PlannedCall[] | undefined {
  // A capped match stays off the fast path even where a good record lowered the threshold below the cap.
  if (
    match.capped ||
    match.intent.confidence < input.thresholdFor(match.intent.id) ||
    match.flow.length === 0
  )
    return undefined;
  const reads = new Set(input.registry.filter((t) => !t.isWrite).map((t) => t.name));
  const out: PlannedCall[] = [];
  for (const step of match.flow) {
    if (!reads.has(step.tool)) return undefined;
    const args = fillArgs(step.args, entities);
    if (!args) return undefined;
    out.push({ ...step, args });
  }
  return out;
}
