/**
 * A finance question the router planned as an analytic, answered from its pipeline's results: the
 * measure computed by code, in words for the business, and the facts a model may word it from.
 */
import { type AnalyticRequest, AnalyticRequestSchema, isRecord, type PlannedCall } from '@munim/contracts';
import { currencyOf } from '../render/input.ts';
import type { Formats } from '../render/locale.ts';
import { paging, type Rec } from '../render/shape.ts';
import type { Run } from '../run/run.ts';
import { toolStep } from '../tool-step/tool-step.ts';
import type { Computed } from './common.ts';
import { compute } from './compute.ts';
import { payload } from './inputs.ts';
import { rowsIn } from './records.ts';
import { analyticWords } from './words.ts';

/** The analytic a route carries (`extractedEntities.analytic`), when it is one. */
export function analyticOf(entities: Record<string, unknown> | undefined): AnalyticRequest | undefined {
  const parsed = AnalyticRequestSchema.safeParse(entities?.analytic);
  return parsed.success ? parsed.data : undefined;
}

/** An analytic answered: what was computed, its words, and the facts a model is given. */
export interface AnalyticAnswer {
  computed: Computed;
  words: string;
  /** True when the words decline (an input unreadable, a party not found or not one). */
  declined: boolean;
}

/** The measure of `request` from the results of its pipeline, in order. */
export function answerAnalytic(
  request: AnalyticRequest,
  results: readonly unknown[],
  fmt: Formats,
): AnalyticAnswer {
  const computed = compute(
    request,
    request.inputs.map((input, i) => ({ input, result: results[i] })),
    fmt.business.currencySymbol,
    fmt.business.fyStartMonth,
  );
  // Money in the books' own currency when they state one other than the business's.
  const stated = results.map(payload).find(isRecord);
  const currency = stated ? currencyOf(stated, fmt) : fmt.business.currency;
  const money: Formats =
    currency === fmt.business.currency
      ? fmt
      : { ...fmt, money: (v, c = currency) => fmt.money(v, c), large: (v, c = currency) => fmt.large(v, c) };
  return { computed, words: analyticWords(computed, request, money), declined: computed.kind === 'decline' };
}

/** Pages read of one list at most: 20 of 50 records. */
const MAX_PAGES = 20;
const LIST_ROLES = new Set(['invoices', 'bills', 'payments']);

/**
 * A list's later pages, fetched so a figure is worked out from every record: the records of each
 * page joined into the first page's list. Stops at the last page, or when a page fails or adds
 * nothing; the result then says it is incomplete (its paging as the last page read).
 */
export async function allPages(run: Run, step: PlannedCall, role: string, first: unknown): Promise<unknown> {
  if (!LIST_ROLES.has(role)) return first;
  const value = payload(first);
  if (!isRecord(value)) return first;
  const rows = rowsIn(value);
  const key = Object.keys(value).find(
    (k) =>
      value[k] !== undefined && Array.isArray(value[k]) && (value[k] as unknown[]).length === rows?.length,
  );
  if (!rows || !key) return first;
  const all = [...rows];
  let p = paging(value);
  const moreAfter = (page: number) =>
    p.hasMore === true ||
    (p.pages !== undefined && page <= p.pages) ||
    (p.total !== undefined && all.length < p.total);
  let page = (p.page ?? 1) + 1;
  if (!moreAfter(page)) return first;
  const def = (await run.ctx.tools.list(run.scope, run.traceparent)).find((t) => t.name === step.tool);
  const properties = def?.inputSchema.properties;
  const pageKey = isRecord(properties)
    ? Object.keys(properties).find((k) =>
        /^(page|pagenumber|pageno|pagenum)$/.test(k.toLowerCase().replace(/[^a-z]/g, '')),
      )
    : undefined;
  const seen = new Set(rows.map((r) => JSON.stringify(r)));
  for (; pageKey && page <= MAX_PAGES && moreAfter(page); page++) {
    const outcome = await toolStep(run, step.tool, { ...step.args, [pageKey]: page }, { mayConfirm: false });
    if (outcome.kind !== 'executed' || !outcome.success) break;
    const next = payload(outcome.content);
    const nextRows = rowsIn(next);
    // A server that ignores the page asked for gives the same records again: not more of them.
    if (!isRecord(next) || !nextRows?.length || nextRows.some((r) => seen.has(JSON.stringify(r)))) break;
    for (const r of nextRows) seen.add(JSON.stringify(r));
    all.push(...nextRows);
    p = paging(next as Rec);
  }
  // Every page read: one list. Some left unread: the list says so, and a figure needing all declines.
  if (!moreAfter(page)) return { [key]: all };
  return { [key]: all, truncated: true, total_items: p.total ?? all.length + 1 };
}
