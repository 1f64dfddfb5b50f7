import { isRecord } from '@munim/contracts';
import { renderAging } from './aging.ts';
import { renderBalanceSheet } from './balance-sheet.ts';
import { renderCashFlow } from './cash-flow.ts';
import { renderDocument } from './document.ts';
import { renderGeneric } from './generic.ts';
import { renderGst } from './gst.ts';
import type { Renderer, RenderInput } from './input.ts';
import { renderList } from './list.ts';
import { type Formats, formatsFor } from './locale.ts';
import { renderProfitAndLoss } from './pnl.ts';
import { renderRowReport } from './row-report.ts';
import { type Rec, unwrap } from './shape.ts';
import { renderTrialBalance } from './trial-balance.ts';

/** One fetched result: the tool that gave it and the arguments it was called with. */
export interface FetchedResult {
  tool: string;
  args?: Record<string, unknown>;
  result: unknown;
}

export interface RenderOptions {
  formats?: Formats;
  /** The user's question: "overdue" in it puts the overdue part of a list or aging first. */
  query?: string;
  /** The matched intent's name, when the question was routed to one. */
  intent?: string | undefined;
}

/** The kinds of result there are renderers for, in the order they are tried. */
export type ResultKind =
  | 'row-report'
  | 'profit-and-loss'
  | 'balance-sheet'
  | 'trial-balance'
  | 'cash-flow'
  | 'aging'
  | 'gst'
  | 'document'
  | 'list'
  | 'other';

/**
 * Reports first, most specific shape first; then one document, then lists; anything else is shown
 * whole by the generic renderer.
 */
const RENDERERS: [ResultKind, Renderer][] = [
  ['row-report', renderRowReport],
  ['profit-and-loss', renderProfitAndLoss],
  ['balance-sheet', renderBalanceSheet],
  ['trial-balance', renderTrialBalance],
  ['cash-flow', renderCashFlow],
  ['aging', renderAging],
  ['gst', renderGst],
  ['document', renderDocument],
  ['list', renderList],
];

const OVERDUE = /overdue|past due|late pay|\bbaaki\b|बकाया/i;

/** What a renderer is given for one fetched result. */
export function renderInput(fetched: FetchedResult, opts: RenderOptions = {}): RenderInput {
  const { value, under } = unwrap(fetched.result);
  return {
    tool: fetched.tool,
    args: isRecord(fetched.args) ? (fetched.args as Rec) : {},
    result: value,
    under,
    fmt: opts.formats ?? formatsFor(),
    overdue: OVERDUE.test(`${opts.query ?? ''} ${opts.intent ?? ''}`),
  };
}

type Classified = { kind: ResultKind; text: string; input: RenderInput };

/**
 * What a result was classified as, by result, formats and whether overdue was asked: an answer's
 * enrichments and its text classify the same results (a long list renders in milliseconds).
 * Results are read, never changed, so a result classified once stays so.
 */
const classified = new WeakMap<FetchedResult, WeakMap<RenderInput['fmt'], Map<boolean, Classified>>>();

/** A result's kind and its markdown, by the first renderer that knows its shape. */
export function classify(fetched: FetchedResult, opts: RenderOptions = {}): Classified {
  const input = renderInput(fetched, opts);
  let byFormats = classified.get(fetched);
  if (!byFormats) {
    byFormats = new WeakMap();
    classified.set(fetched, byFormats);
  }
  let byOverdue = byFormats.get(input.fmt);
  if (!byOverdue) {
    byOverdue = new Map();
    byFormats.set(input.fmt, byOverdue);
  }
  const known = byOverdue.get(input.overdue);
  if (known) return known;
  let out: Classified | undefined;
  for (const [kind, render] of RENDERERS) {
    const text = render(input);
    if (text !== undefined) {
      out = { kind, text, input };
      break;
    }
  }
  out ??= { kind: 'other', text: renderGeneric(input), input };
  byOverdue.set(input.overdue, out);
  return out;
}

/** Deterministic markdown for fast-path results when no model is configured. */
export function renderResults(results: FetchedResult[], opts: RenderOptions = {}): string {
  return results.map((r) => classify(r, opts).text).join('\n\n');
}
