/**
 * Auto-enrichments of seed 003 §7: facts computed from the tool results by code (trends, Indian
 * amounts, rankings, overdue alerts), so the answer's figures never depend on the LLM's arithmetic.
 */

export interface Enrichment {
  type: 'trend' | 'currency' | 'ranking' | 'alert';
  description: string;
  /** The computed facts, one per line, ready for the prompt or the answer. */
  lines: string[];
}

type Row = Record<string, unknown>;

const MONEY = /amount|total|balance|revenue|income|expense|profit|sales|value|due$|paid$/i;
const NOT_MONEY = /days|count|rate|quantity|number|percent/i;
const PERIOD = /^(month|period|quarter|year|date)$/i;
const NAME = /^(name|contactname|customername|vendorname|accountname|description)$/i;

/** ₹ in the Indian system: 12,34,567 and, when large, the lakh or crore figure. */
export function formatInr(value: number): string {
  const grouped = new Intl.NumberFormat('en-IN', {
    style: 'currency',
    currency: 'INR',
    maximumFractionDigits: 0,
  }).format(value);
  const abs = Math.abs(value);
  if (abs >= 1e7) return `${grouped} (${(value / 1e7).toFixed(2)} crore)`;
  if (abs >= 1e5) return `${grouped} (${(value / 1e5).toFixed(2)} lakh)`;
  return grouped;
}

function arraysOf(value: unknown, depth = 0): Row[][] {
  if (depth > 3) return [];
  if (Array.isArray(value)) {
    const rows = value.filter((v): v is Row => !!v && typeof v === 'object' && !Array.isArray(v));
    return rows.length > 0 ? [rows] : [];
  }
  if (value && typeof value === 'object') return Object.values(value).flatMap((v) => arraysOf(v, depth + 1));
  return [];
}

function moneyKey(rows: Row[]): string | undefined {
  const keys = Object.keys(rows[0] ?? {});
  const preferred = ['AmountDue', 'Total', 'Amount', 'Balance', 'NetProfit', 'Revenue'];
  return (
    preferred.find((k) => keys.includes(k) && rows.every((r) => typeof r[k] === 'number')) ??
    keys.find((k) => MONEY.test(k) && !NOT_MONEY.test(k) && rows.every((r) => typeof r[k] === 'number'))
  );
}

function arrow(change: number): string {
  if (change > 0.5) return '▲';
  if (change < -0.5) return '▼';
  return '►';
}

function trend(rows: Row[]): Enrichment | undefined {
  const periodKey = Object.keys(rows[0] ?? {}).find((k) => PERIOD.test(k));
  const key = moneyKey(rows);
  if (!periodKey || !key || rows.length < 2) return undefined;
  const lines: string[] = [];
  for (let i = 1; i < rows.length; i++) {
    const prev = Number(rows[i - 1]?.[key]);
    const cur = Number(rows[i]?.[key]);
    if (prev === 0) continue;
    const change = ((cur - prev) / Math.abs(prev)) * 100;
    lines.push(
      `${arrow(change)} ${key} ${String(rows[i]?.[periodKey])}: ${formatInr(cur)} (${change >= 0 ? '+' : ''}${change.toFixed(1)}% vs ${String(rows[i - 1]?.[periodKey])})`,
    );
  }
  return lines.length
    ? { type: 'trend', description: `Period-on-period change of ${key}`, lines: lines.slice(-6) }
    : undefined;
}

function ranking(rows: Row[]): Enrichment | undefined {
  const key = moneyKey(rows);
  const nameKey = Object.keys(rows[0] ?? {}).find((k) => NAME.test(k));
  if (!key || !nameKey || rows.length < 3) return undefined;
  const byName = new Map<string, number>();
  for (const r of rows)
    byName.set(String(r[nameKey]), (byName.get(String(r[nameKey])) ?? 0) + Number(r[key]));
  const sorted = [...byName.entries()].sort((a, b) => b[1] - a[1]);
  if (sorted.length < 3) return undefined;
  const top = sorted.slice(0, 3).map(([n, v], i) => `${i + 1}. ${n}: ${formatInr(v)}`);
  const bottom = sorted.at(-1);
  return {
    type: 'ranking',
    description: `Top and bottom by ${key}`,
    lines: [...top, ...(bottom ? [`Lowest: ${bottom[0]}: ${formatInr(bottom[1])}`] : [])],
  };
}

function currency(rows: Row[]): Enrichment | undefined {
  const key = moneyKey(rows);
  if (!key) return undefined;
  const total = rows.reduce((s, r) => s + Number(r[key]), 0);
  return {
    type: 'currency',
    description: 'Indian number formatting (lakhs/crores)',
    lines: [`Total ${key} across ${rows.length} record(s): ${formatInr(total)}`],
  };
}

function alert(rows: Row[]): Enrichment | undefined {
  const overdue = rows.filter((r) => r.IsOverdue === true || Number(r.DaysOverdue ?? 0) > 0);
  if (overdue.length === 0) return undefined;
  const key = moneyKey(overdue) ?? 'AmountDue';
  const sum = overdue.reduce((s, r) => s + Number(r[key] ?? 0), 0);
  const critical = overdue.filter((r) => Number(r.DaysOverdue ?? 0) > 90).length;
  return {
    type: 'alert',
    description: 'Overdue items needing attention',
    lines: [
      `⚠️ ${overdue.length} overdue item(s) totalling ${formatInr(sum)}`,
      ...(critical > 0 ? [`🔴 ${critical} more than 90 days overdue`] : []),
    ],
  };
}

/** The enrichments the results call for, at most one of each type, from the largest list. */
export function planEnrichments(results: unknown[]): Enrichment[] {
  const lists = results.flatMap((r) => arraysOf(r)).sort((a, b) => b.length - a.length);
  const found = new Map<Enrichment['type'], Enrichment>();
  for (const rows of lists) {
    for (const make of [trend, currency, ranking, alert]) {
      const e = make(rows);
      if (e && !found.has(e.type)) found.set(e.type, e);
    }
  }
  return [...found.values()];
}

/** The prompt section of seed 003 §7.2, with the computed facts. */
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
