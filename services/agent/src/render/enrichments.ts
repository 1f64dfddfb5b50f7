import { isRecord } from '@munim/contracts';
/**
 * Auto-enrichments: facts computed from the tool results by code, so the answer's
 * figures never depend on the LLM's arithmetic. Each one must mean something to a finance reader:
 * a trend only across a series of months, quarters or years; a total only of records of one kind,
 * and of the whole list or explicitly of one page; a ranking by a named measure; an alert that
 * counts the records it names.
 */
import { classify, type FetchedResult, type RenderOptions } from './format.ts';
import { mixedKinds } from './list.ts';
import { type Formats, formatsFor } from './locale.ts';
import { periodOf, periodSeries } from './periods.ts';
import {
  amount,
  CONTACT_NAME_KEYS,
  keyOf,
  num,
  type Paging,
  paging,
  pick,
  type Rec,
  records,
  str,
} from './shape.ts';
import { readSection, sum } from './statement.ts';
import { capitalise, codeWords, count, label, nounOf } from './words.ts';

export interface Enrichment {
  type: 'trend' | 'currency' | 'ranking' | 'alert';
  description: string;
  /** The computed facts, one per line, ready for the prompt or the answer. */
  lines: string[];
}

type Noun = { one: string; many: string };

/** Whole rupees in the Indian system, with the lakh or crore figure when large. */
export function formatInr(value: number): string {
  return formatsFor().large(value);
}

const MEASURES = [
  ['AmountDue', 'BalanceDue'],
  ['OutstandingBalance', 'Outstanding'],
  ['Total', 'TotalAmt', 'TotalAmount'],
  ['Amount'],
  ['Balance'],
  ['NetTax', 'NetGST'],
  ['Revenue', 'Sales', 'Income', 'TotalIncome'],
  ['NetProfit', 'NetIncome', 'Profit'],
  ['Expenses', 'Expense'],
];
const PERIOD_KEY = /^(month|period|quarter|year|fy|fiscalyear|financialyear|taxperiod|monthname)$/i;
const CONTACT_NAME = [...CONTACT_NAME_KEYS, 'CustomerRef', 'VendorRef'];
const SALES = /invoice|credit note|sale|estimate|receivable|customer|receipt/;
const PURCHASES = /bill|purchase|expense|payable|vendor|supplier/;

/** The measure the records are about: the first of the usual ones every record has as a number, not all zero. */
function measureOf(rows: Rec[]): string | undefined {
  for (const aliases of MEASURES) {
    const key = keyOf(rows[0] ?? {}, aliases);
    if (!key) continue;
    const values = rows.map((r) => amount(r[key]));
    if (values.every((v) => v !== undefined) && values.some((v) => v !== 0)) return key;
  }
  return undefined;
}

/** Records of one kind: "asset accounts", but "payments received". */
function kindNoun(noun: Noun, kind?: string): Noun {
  if (!kind) return noun;
  const after = /(ed|out)$/.test(kind);
  const add = (n: string) => (after ? `${n} ${kind}` : `${kind} ${n}`);
  return { one: add(noun.one), many: add(noun.many) };
}

/** Which records these are: all there are ("all 13 invoices"), or one page ("the 50 invoices on page 1 of 2 (81 in all)"). */
function scope(n: number, p: Paging, noun: Noun): { whole: boolean; words: string } {
  const whole =
    !(p.cutFrom && p.cutFrom > n) &&
    p.hasMore !== true &&
    !(p.total && p.total > n) &&
    !(p.page && p.pages && p.page < p.pages) &&
    !(p.page && p.page > 1);
  if (whole)
    return {
      whole,
      words: n === 1 ? `the ${noun.one}` : n === 2 ? `both ${noun.many}` : `all ${count(n, noun)}`,
    };
  const of = p.page && p.pages ? `page ${p.page} of ${p.pages}` : 'this page';
  const all = p.total ?? p.cutFrom;
  return { whole, words: `the ${count(n, noun)} on ${of}${all ? ` (${all} in all)` : ''}` };
}

function arrow(change: number): string {
  if (change > 0.5) return '▲';
  if (change < -0.5) return '▼';
  return '►';
}

/** Period-on-period change, only across rows that are a series of months, quarters or years. */
function trend(rows: Rec[], fmt: Formats, currency: string): Enrichment | undefined {
  const periodKey = Object.keys(rows[0] ?? {}).find(
    (k) => PERIOD_KEY.test(k) || periodOf(rows[0]?.[k])?.hasYear,
  );
  if (!periodKey || rows.length < 2) return undefined;
  const series = periodSeries(rows, periodKey);
  const measure = series && measureOf(rows);
  if (!series || !measure) return undefined;
  const name = label(measure);
  const lines: string[] = [];
  for (let i = 1; i < series.length; i++) {
    const prev = num(series[i - 1]!.row, [measure]) ?? 0;
    const cur = num(series[i]!.row, [measure]) ?? 0;
    if (prev === 0) continue;
    const change = ((cur - prev) / Math.abs(prev)) * 100;
    lines.push(
      `${arrow(change)} ${name} ${series[i]!.period.words}: ${fmt.large(cur, currency)} (${change >= 0 ? '+' : ''}${change.toFixed(1)}% vs ${series[i - 1]!.period.words})`,
    );
  }
  const grain = series[0]!.period.grain;
  return lines.length
    ? {
        type: 'trend',
        description: `Change in ${name.toLowerCase()} ${grain} on ${grain}`,
        lines: lines.slice(-6),
      }
    : undefined;
}

/** Totals of the measure, per kind of record when the records are of several kinds. */
function totals(rows: Rec[], p: Paging, noun: Noun, fmt: Formats, currency: string): Enrichment | undefined {
  const measure = measureOf(rows);
  if (!measure) return undefined;
  const kindKey = mixedKinds(rows)[0];
  const groups = new Map<string, Rec[]>();
  for (const r of rows) {
    const k = kindKey ? (str(r, [kindKey]) ?? '') : '';
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  if (groups.size > 6) return undefined;
  const name = label(measure).toLowerCase();
  const lines = [...groups].map(([k, group]) => {
    const isCurrency = kindKey && /currency/i.test(kindKey);
    const kind = kindKey && k ? (isCurrency ? k : codeWords(k).toLowerCase()) : undefined;
    const total = sum(group.map((r) => num(r, [measure]) ?? 0));
    const what = name === 'total' ? 'Total' : group.length === 1 ? capitalise(name) : `Total ${name}`;
    return `${what} of ${scope(group.length, p, kindNoun(noun, kind)).words}: ${fmt.large(total, isCurrency ? k : currency)}`;
  });
  const system = fmt.business.numberSystem === 'indian' ? 'lakhs and crores' : 'thousands and millions';
  return { type: 'currency', description: `Totals in ${currency}, in ${system}`, lines };
}

/** The largest and smallest by a named measure, per contact or name, among records of one kind. */
function ranking(rows: Rec[], p: Paging, noun: Noun, fmt: Formats, currency: string): Enrichment | undefined {
  const measure = measureOf(rows);
  const contactKey = keyOf(rows[0] ?? {}, CONTACT_NAME);
  const nameKey = contactKey ?? keyOf(rows[0] ?? {}, ['Name', 'DisplayName', 'AccountName']);
  if (!measure || !nameKey || mixedKinds(rows).length > 0) return undefined;
  const by = new Map<string, number>();
  for (const r of rows) {
    const who = str(r, [nameKey]);
    if (who) by.set(who, (by.get(who) ?? 0) + (num(r, [measure]) ?? 0));
  }
  const sorted = [...by].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
  if (sorted.length < 3) return undefined;
  const who = contactKey
    ? SALES.test(noun.many)
      ? 'customers'
      : PURCHASES.test(noun.many)
        ? 'vendors'
        : 'contacts'
    : noun.many;
  const name = label(measure).toLowerCase();
  const of = scope(rows.length, p, noun);
  const where = of.whole ? '' : `, among ${of.words}`;
  const top = sorted.slice(0, 3).map(([n, v], i) => `${i + 1}. ${n} ${fmt.large(v, currency)}`);
  const [lowName, low] = sorted.at(-1) as [string, number];
  return {
    type: 'ranking',
    description: `${capitalise(who)} ranked by ${name}`,
    lines: [
      `Top ${who} by ${name}${where}: ${top.join('; ')}`,
      `Lowest ${name}: ${lowName} ${fmt.large(low, currency)}`,
    ],
  };
}

/** Overdue documents, counted as what they are, or contacts with overdue balances. */
function overdueAlert(
  rows: Rec[],
  p: Paging,
  noun: Noun,
  fmt: Formats,
  currency: string,
): Enrichment | undefined {
  const days = (r: Rec) => num(r, ['DaysOverdue', 'DaysPastDue']) ?? (r.IsOverdue === true ? 1 : 0);
  const docs = rows.some((r) => keyOf(r, ['DaysOverdue', 'DaysPastDue', 'IsOverdue']) !== undefined);
  if (docs) {
    const overdue = rows.filter((r) => days(r) > 0);
    if (overdue.length === 0) return undefined;
    const due = sum(overdue.map((r) => num(r, ['AmountDue', 'BalanceDue', 'Balance', 'Total']) ?? 0));
    const old = overdue.filter((r) => days(r) > 90).length;
    const of = scope(rows.length, p, noun);
    const head = of.whole
      ? `⚠️ ${count(overdue.length, noun)} overdue, ${fmt.large(due, currency)} due`
      : `⚠️ ${overdue.length} of ${of.words} ${overdue.length === 1 ? 'is' : 'are'} overdue, ${fmt.large(due, currency)} due`;
    return {
      type: 'alert',
      description: `Overdue ${noun.many} needing attention`,
      lines: [head, ...(old > 0 ? [`🔴 ${old} of them more than 90 days overdue`] : [])],
    };
  }
  const withOverdue = rows.filter((r) => (num(r, ['OverdueBalance', 'Overdue']) ?? 0) > 0);
  if (withOverdue.length === 0) return undefined;
  const total = sum(withOverdue.map((r) => num(r, ['OverdueBalance', 'Overdue']) ?? 0));
  const of = scope(rows.length, p, noun);
  const among = of.whole ? `the ${count(rows.length, noun)}` : of.words;
  return {
    type: 'alert',
    description: `${capitalise(noun.many)} with overdue balances`,
    lines: [
      `⚠️ ${withOverdue.length} of ${among} ${withOverdue.length === 1 ? 'has an overdue balance' : 'have overdue balances'}, ${fmt.large(total, currency)} in all`,
    ],
  };
}

/** The largest expenses of a profit and loss statement, each with its share of the expenses. */
function largestExpenses(result: Rec, fmt: Formats, currency: string): Enrichment | undefined {
  const key = keyOf(result, ['OperatingExpenses', 'Expenses', 'IndirectExpenses', 'Overheads']);
  const lines = key
    ? readSection(result[key])?.lines.filter((l) => !l.depth && (l.amount ?? 0) > 0)
    : undefined;
  if (!lines || lines.length < 3) return undefined;
  const total = sum(lines.map((l) => l.amount as number));
  const top = [...lines].sort((a, b) => (b.amount as number) - (a.amount as number)).slice(0, 3);
  const name = label(key as string).toLowerCase();
  return {
    type: 'ranking',
    description: `Largest ${name}`,
    lines: [
      `Largest ${name}, with their share of the total: ${top.map((l) => `${l.label} ${fmt.large(l.amount as number, currency)}, ${fmt.percent((l.amount as number) / total)}`).join('; ')}`,
    ],
  };
}

/** The enrichments of one result, by what kind of result it is. */
function enrichmentsOf(fetched: FetchedResult, opts: RenderOptions): Enrichment[] {
  const { kind, input } = classify(fetched, opts);
  const fmt = input.fmt;
  const value = input.result;
  const container: Rec = isRecord(value) ? value : { Records: value };
  const currency =
    pick(container, ['CurrencyCode', 'Currency'], (v) =>
      typeof v === 'string' && /^[A-Z]{3}$/.test(v) ? v : undefined,
    ) ?? fmt.business.currency;
  // Reports carry their own totals and checks: only what they do not say is added.
  if (kind === 'profit-and-loss')
    return [largestExpenses(container, fmt, currency)].filter((e) => e !== undefined);
  if (kind === 'gst') {
    const months = records(pick(container, ['ByMonth', 'Months', 'Monthly', 'ByPeriod'], (v) => v));
    return months ? [trend(months, fmt, currency)].filter((e) => e !== undefined) : [];
  }
  if (kind === 'aging') {
    const docs = Object.entries(container).find(([, v]) =>
      records(v)?.some((r) => keyOf(r, ['DaysOverdue', 'DaysPastDue']) !== undefined),
    );
    const rows = docs ? (records(docs[1]) as Rec[]) : [];
    return [overdueAlert(rows, {}, nounOf(docs?.[0] ?? 'invoices'), fmt, currency)].filter(
      (e) => e !== undefined,
    );
  }
  if (kind !== 'list' && kind !== 'other') return [];
  const p = paging(container);
  const out: Enrichment[] = [];
  for (const [key, v] of Object.entries(container)) {
    const rows = records(v);
    if (!rows || rows.length < 2 || rows.length !== (v as unknown[]).length) continue;
    const noun = nounOf(/^records$/i.test(key) ? (input.under ?? key) : key);
    for (const e of [
      trend(rows, fmt, currency),
      totals(rows, p, noun, fmt, currency),
      ranking(rows, p, noun, fmt, currency),
      overdueAlert(rows, p, noun, fmt, currency),
    ])
      if (e) out.push(e);
  }
  return out;
}

const isFetched = (x: unknown): x is FetchedResult =>
  isRecord(x) &&
  typeof x.tool === 'string' &&
  'result' in x &&
  Object.keys(x).every((k) => ['tool', 'args', 'result'].includes(k));

/** The enrichments the results call for, at most one of each type, the first result's first. */
export function planEnrichments(results: unknown[], formats: Formats = formatsFor()): Enrichment[] {
  const found = new Map<Enrichment['type'], Enrichment>();
  for (const r of results) {
    const fetched = isFetched(r) ? r : { tool: '', result: r };
    for (const e of enrichmentsOf(fetched, { formats })) if (!found.has(e.type)) found.set(e.type, e);
  }
  return [...found.values()];
}

/** The prompt section that hands the model the computed facts, to use as they are. */
export function enrichmentPrompt(enrichments: Enrichment[]): string {
  if (enrichments.length === 0) return '';
  return `AUTO-ENRICHMENTS TO APPLY (computed from the data; use these figures, do not recompute):\n${enrichments
    .map((e) => `- ${e.type.toUpperCase()}: ${e.description}\n${e.lines.map((l) => `  ${l}`).join('\n')}`)
    .join('\n')}`;
}

/** The computed facts as a markdown section of a deterministic answer. */
export function enrichmentMarkdown(enrichments: Enrichment[]): string {
  if (enrichments.length === 0) return '';
  return `\n\n**Highlights**\n${enrichments.flatMap((e) => e.lines.map((l) => `- ${l}`)).join('\n')}`;
}
