/**
 * What the sources of a turn hold and give: every number in them, in any format, and the figures
 * a correct answer may derive from them (a list's total, a group's, a difference, a percentage
 * change, a margin, a share, a count). Sources are untrusted input: what is read of them and
 * derived from them is bounded.
 */
import { isRecord } from '@munim/contracts';
import { numbersIn } from './figures.ts';

const LIMITS = {
  /** JSON nodes visited across all sources. */
  nodes: 50_000,
  depth: 24,
  /** Characters of free text read for numbers, across all sources. */
  textChars: 400_000,
  /** Characters of JSON held in strings parsed, across all sources. */
  jsonChars: 4_000_000,
  /** Values of one field (across records and results) compared with each other. */
  series: 12,
  /** Numeric fields of one object compared with each other. */
  siblings: 16,
  /** An array longer than this has its objects' fields summed, not compared pairwise. */
  smallArray: 12,
  /** The largest values and groups of a list whose shares of its total are taken. */
  shares: 5,
  /** Records of one list summed and counted. */
  records: 1_000,
  /** Numeric and category fields of a list summed and counted by. */
  measures: 16,
  categories: 12,
  categoryValues: 50,
  /** Headline figures (the user's words, computed facts, lists' totals) compared with each other. */
  headline: 32,
  /** Derived values in all. */
  derived: 100_000,
};

/** A date or timestamp: its digits are no figure an answer states. */
const DATE =
  /^(?:\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\/Date\(-?\d+(?:[+-]\d{4})?\)\/)$/;
/** Fields that order records in time: a list of them is a series, compared period to period. */
const PERIOD_KEY = /^(month|period|quarter|year|fy|fiscalyear|financialyear|taxperiod|monthname|week)$/i;

/** Numbers and numeric strings a source field may hold: "1,17,634.20", "₹5,000", "12.5%", "1.2 lakh". */
const NUMERIC_STRING = /^[^\p{L}\d]{0,4}\d[\d,]*(?:\.\d+)?\s?(?:%|lakhs?|crores?|cr|k|l|[a-z]{3})?$/iu;

/** Which figures two figures give. */
interface Give {
  differences?: boolean;
  sums?: boolean;
  ratios?: boolean;
}
/** A field that holds a rate: applied to the amounts beside it (GST at 18% of the taxable value). */
const RATE_KEY = /rate|percent|pct|gst|tax|tds|discount|margin/i;
/** Two figures compared: what changed, by how much, one as a share of the other, both together. */
const COMPARED: Give = { differences: true, sums: true, ratios: true };

/** Fields that hold a percentage or a ratio: their numbers may be stated with a % sign. */
const PERCENT_KEY =
  /rate|percent|pct|%|margin|growth|change|share|ratio|yield|gst|tax|tds|discount|return|roi|markup|var|yoy|mom|qoq|cagr|proportion|contribution|utili[sz]ation/i;
/** Fields whose totals are no amount a share is taken of. */
const NOT_SHARED = /days|qty|quantity|rate|percent|pct|page|count|number|no$/i;
/** Fields that hold a count of things. */
const COUNT_KEY = /count|total|number|num|qty|quantity|items|records|size|length|pages|no$/i;

/** How a source number was given. */
interface Given {
  /** Its field's name, lower case. */
  key?: string | undefined;
  /** Compared with the same field's values elsewhere (not inside a list of records). */
  series?: boolean;
  /** Written in text (the user's words, a fact line, a field's "12.5%"): any kind of figure. */
  text?: boolean;
}

/** The values a stated figure may be checked against: amounts, percentages and counts. */
class Pool {
  readonly amounts: number[] = [];
  readonly percents: number[] = [];
  readonly counts: number[] = [];
  derived = 0;
  nodes = 0;
  textChars = 0;
  jsonChars = 0;
  readonly series = new Map<string, Set<number>>();
  readonly headline: number[] = [];
  /** The totals of the top-level lists: added up and set against each other ("receivables less payables"). */
  readonly totals: number[] = [];
  /** Rates the turn's own words and facts state ("18% GST"), applied to the headline figures. */
  readonly rates: number[] = [];

  raw(v: number, given: Given = {}): void {
    const a = Math.abs(v);
    if (!Number.isFinite(a)) return;
    const { key, text } = given;
    this.amounts.push(a);
    // A report's own small figures are often its ratios (a KPI's value), a record's seldom (a quantity).
    const percentish =
      text || (key !== undefined && PERCENT_KEY.test(key)) || (given.series === true && a <= 100);
    if (percentish) this.percents.push(a);
    // A fraction or ratio stated as a percentage: 0.185 is 18.5%.
    if (percentish || (a <= 1 && !Number.isInteger(a))) this.percents.push(a * 100);
    if (Number.isInteger(a) && (text || (key !== undefined && COUNT_KEY.test(key)))) this.counts.push(a);
    if (key && given.series) {
      const set = this.series.get(key) ?? new Set<number>();
      this.series.set(key, set);
      if (set.size < LIMITS.series) set.add(a);
    }
  }

  amount(v: number): void {
    if (this.derived++ < LIMITS.derived && Number.isFinite(v)) this.amounts.push(Math.abs(v));
  }

  percent(v: number): void {
    if (this.derived++ < LIMITS.derived && Number.isFinite(v)) this.percents.push(Math.abs(v));
  }

  /** A count of records: of a list, of a group, of those with a value. */
  count(n: number): void {
    this.counts.push(n);
    this.amounts.push(n);
  }

  /** What any two of `values` give (see `pair`). */
  pairs(values: readonly number[], give: Give = COMPARED): void {
    for (let i = 0; i < values.length; i++) {
      for (let j = i + 1; j < values.length; j++) this.pair(values[i]!, values[j]!, give);
    }
  }

  /**
   * What two figures give: their difference, sum, the change from one to the other and one as a
   * share of the other — those `give` asks for.
   */
  pair(a: number, b: number, give: Give): void {
    if (this.derived >= LIMITS.derived) return;
    if (give.differences) this.amount(a - b);
    if (give.sums) this.amount(a + b);
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      if (give.ratios && y !== 0) {
        this.percent((x / y) * 100);
        this.percent(((x - y) / y) * 100);
      }
    }
  }

  /** A rate applied to an amount: 18% of ₹50,000, and ₹50,000 with it. */
  rate(amount: number, rate: number): void {
    if (rate > 100) return;
    this.amount((amount * rate) / 100);
    this.amount(amount * (1 + rate / 100));
    this.amount(amount / (1 + rate / 100));
  }

  headlineAdd(v: number): void {
    if (this.headline.length < LIMITS.headline) this.headline.push(Math.abs(v));
  }
}

const numericOf = (v: unknown): number | undefined => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.length <= 40 && NUMERIC_STRING.test(v.trim())) {
    const n = numbersIn(v);
    return n.length > 0 ? n[n.length - 1] : undefined;
  }
  return undefined;
};

/** The numbers of free text; those of the turn's own words and facts (`headline`) are compared with each other too. */
function text(pool: Pool, s: string, headline: boolean): void {
  const room = LIMITS.textChars - pool.textChars;
  if (room <= 0) return;
  const part = s.slice(0, room);
  pool.textChars += part.length;
  for (const v of numbersIn(part)) {
    pool.raw(v, { text: headline });
    if (headline) pool.headlineAdd(v);
    if (headline && Math.abs(v) <= 100 && pool.rates.length < LIMITS.siblings) pool.rates.push(Math.abs(v));
  }
}

/** The category a field's value puts a record in: a name, a status, a flag, the month of a date. */
function categoryOf(v: unknown): unknown {
  if (typeof v === 'string') return /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 7) : v;
  if (typeof v === 'boolean') return v;
  if (isRecord(v)) return v.name ?? v.Name ?? v.DisplayName ?? v.value;
  return undefined;
}

/**
 * Totals, averages, counts, the largest few and shares of a list of records, also by each category
 * field's values (per customer, per status, per month); a list in time is compared period to period.
 */
function records(pool: Pool, list: Record<string, unknown>[], nested: boolean): void {
  const rows = list.slice(0, LIMITS.records);
  const keys = [...new Set(rows.slice(0, 20).flatMap((r) => Object.keys(r).slice(0, 64)))].slice(0, 64);
  const measures = keys
    .filter((k) => rows.some((r) => numericOf(r[k]) !== undefined))
    .slice(0, LIMITS.measures);
  const categories = keys
    .filter((k) => k.toLowerCase() !== 'id' && !/(Id|ID|_id)$/.test(k))
    .map((k) => ({ k, values: new Set(rows.map((r) => categoryOf(r[k])).filter((v) => v !== undefined)) }))
    .filter(
      ({ values }) => values.size >= 1 && values.size <= LIMITS.categoryValues && values.size < rows.length,
    )
    .slice(0, LIMITS.categories);
  for (const { values } of categories) pool.count(values.size);
  // A row labelled as a ratio ("Net margin %", "Growth"): its figures may be stated as percentages.
  for (const r of rows) {
    const values = keys.map((k) => r[k]);
    if (values.some((v) => typeof v === 'string' && v.length <= 80 && PERCENT_KEY.test(v)))
      for (const v of values.map(numericOf)) if (v !== undefined) pool.percent(v);
  }
  const series = keys.some((k) => PERIOD_KEY.test(k));
  const totals = new Map<string, number>();
  for (const k of measures) {
    const values = rows.map((r) => numericOf(r[k])).filter((v): v is number => v !== undefined);
    const total = values.reduce((s, v) => s + v, 0);
    totals.set(k, total);
    pool.amount(total);
    // A list inside a record of a list (an invoice's lines) is totalled and counted, no more.
    if (nested) {
      pool.count(values.filter((v) => v > 0).length);
      continue;
    }
    pool.totals.push(total);
    // A few records: any two of them together or apart ("cash and bank: ₹14.25 lakh").
    if (values.length <= LIMITS.smallArray) pool.pairs(values, series ? COMPARED : { sums: true });
    // Period to period, and first to last.
    else if (series) {
      for (let i = 1; i < Math.min(values.length, 200); i++) pool.pair(values[i - 1]!, values[i]!, COMPARED);
      if (values.length > 2) pool.pair(values[0]!, values[values.length - 1]!, COMPARED);
    }
    pool.amount(values.reduce((s, v) => s + Math.abs(v), 0));
    pool.amount(values.length > 0 ? total / values.length : 0);
    pool.count(values.filter((v) => v > 0).length);
    pool.count(values.filter((v) => v === 0).length);
    // The largest few, alone and together ("the top 3 owe ₹X, 80% of it").
    const largest = values.map(Math.abs).sort((a, b) => b - a);
    const shared = total !== 0 && !NOT_SHARED.test(k);
    if (shared) for (const v of largest.slice(0, LIMITS.shares)) pool.percent((v / total) * 100);
    let top = largest[0] ?? 0;
    for (let n = 1; n < Math.min(largest.length, 10); n++) {
      top += largest[n]!;
      pool.amount(top);
      if (shared && n < LIMITS.shares) pool.percent((top / total) * 100);
    }
  }
  // What the list's totals are of each other: the unpaid share of what was invoiced, tax on sales.
  if (!nested) pool.pairs([...totals.values()].slice(0, LIMITS.measures), { ratios: true });
  // A group's share of a total: the largest ones ("Acme is 38% of receivables").
  const shares: number[] = [];
  for (const { k: c } of nested ? [] : categories) {
    const groups = new Map<unknown, Record<string, unknown>[]>();
    for (const r of rows) {
      const key = categoryOf(r[c]);
      const group = groups.get(key);
      if (group) group.push(r);
      else groups.set(key, [r]);
    }
    const bySize = [...groups.values()].sort((a, b) => b.length - a.length);
    for (const [rank, group] of bySize.entries()) {
      pool.count(group.length);
      if (rank < LIMITS.shares) pool.percent((group.length / rows.length) * 100);
      for (const { k: other } of categories)
        if (other !== c) pool.count(new Set(group.map((r) => categoryOf(r[other]))).size);
      for (const k of measures) {
        const sum = group.reduce((s, r) => s + (numericOf(r[k]) ?? 0), 0);
        pool.amount(sum);
        const total = totals.get(k) ?? 0;
        if (total !== 0 && !NOT_SHARED.test(k)) shares.push((sum / total) * 100);
      }
    }
  }
  for (const share of shares.sort((a, b) => b - a).slice(0, 4 * LIMITS.shares)) pool.percent(share);
}

interface Place {
  /** An object no bigger than a few of its kind: its fields are compared with each other. */
  small: boolean;
  /** Inside a list of records: its values are totalled and counted there, not compared by field name. */
  listed: boolean;
}

function walk(pool: Pool, node: unknown, key: string | undefined, depth: number, at: Place): void {
  if (pool.nodes++ >= LIMITS.nodes || depth > LIMITS.depth) return;
  if (typeof node === 'number') {
    pool.raw(node, { key, series: !at.listed });
    return;
  }
  if (typeof node === 'string') {
    const s = node.trim();
    if (DATE.test(s)) return;
    if (/^[[{]/.test(s) && pool.jsonChars + s.length <= LIMITS.jsonChars) {
      pool.jsonChars += s.length;
      try {
        walk(pool, JSON.parse(s) as unknown, key, depth + 1, at);
        return;
      } catch {
        // Not JSON: read as text.
      }
    }
    const n = numericOf(s);
    if (n !== undefined) {
      const percent = s.endsWith('%');
      for (const v of numbersIn(s)) pool.raw(v, { key, text: percent });
      pool.raw(n, { key, series: !at.listed, text: percent });
      // The turn's own words and facts, given as text (not a record's field).
    } else text(pool, s, depth <= 1 && key === undefined);
    return;
  }
  if (Array.isArray(node)) {
    pool.count(node.length);
    const items = node.slice(0, LIMITS.records);
    const objects = items.filter(isRecord);
    if (objects.length > 0) records(pool, objects, at.listed);
    // A list of plain figures: their total, and, when a few, each against the others.
    const figures = items.map(numericOf).filter((v): v is number => v !== undefined);
    if (figures.length > 1) {
      pool.amount(figures.reduce((sum, v) => sum + v, 0));
      if (figures.length <= LIMITS.smallArray) pool.pairs(figures.map(Math.abs), COMPARED);
    }
    const small = node.length <= LIMITS.smallArray;
    for (const item of items) {
      if (pool.nodes >= LIMITS.nodes) return;
      walk(pool, item, key, depth + 1, { small, listed: at.listed || isRecord(item) });
    }
    return;
  }
  if (isRecord(node)) {
    // A report's figures are compared with each other (its margins); a record of a list only has its rates applied.
    if (at.small) {
      const siblings = Object.entries(node)
        .slice(0, 4 * LIMITS.siblings)
        .map(([k, v]) => ({ k, v: numericOf(v) }))
        .filter((f): f is { k: string; v: number } => f.v !== undefined)
        .map(({ k, v }) => ({ k, v: Math.abs(v) }))
        .slice(0, LIMITS.siblings);
      pool.pairs(
        siblings.map((f) => f.v),
        at.listed ? { differences: true, sums: true } : COMPARED,
      );
      for (const r of siblings.filter((f) => RATE_KEY.test(f.k)))
        for (const f of siblings) if (f !== r) pool.rate(f.v, r.v);
    }
    for (const k in node) {
      if (pool.nodes >= LIMITS.nodes) return;
      walk(pool, node[k], k.toLowerCase(), depth + 1, at);
    }
  }
}

/** Everything the sources hold and give, sorted for lookup; with `monthly`, a year's figures a month at a time too. */
export function poolOf(
  sources: readonly unknown[],
  monthly: boolean,
): { amounts: Float64Array; percents: Float64Array; counts: Float64Array } {
  const pool = new Pool();
  for (const s of sources) walk(pool, s, undefined, 0, { small: true, listed: false });
  // Figures given plainly, side by side, are compared like those of a text.
  for (const v of sources.map(numericOf)) if (v !== undefined) pool.headlineAdd(v);
  if (monthly) for (const v of pool.amounts.slice()) pool.amount(v / 12);
  // One field across results and objects (March's profit and April's): compared and added up.
  for (const values of pool.series.values()) if (values.size > 1) pool.pairs([...values], COMPARED);
  pool.pairs(pool.headline);
  pool.pairs(pool.totals.slice(0, LIMITS.headline), { differences: true, sums: true });
  for (const r of pool.rates) for (const v of pool.headline) pool.rate(v, r);
  return {
    amounts: Float64Array.from(pool.amounts).sort(),
    percents: Float64Array.from(pool.percents).sort(),
    counts: Float64Array.from(pool.counts).sort(),
  };
}
