import { type Category, parseToolName, type ToolDefinition } from '@munim/contracts';
import { groupsOfToolName, TOOL_GROUPS } from '@munim/kit';
import { DOC_NUMBER } from './canonical.ts';
import { normalize } from './text.ts';

const DOC_GROUPS: Readonly<Record<string, string>> = {
  inv: 'invoices',
  bill: 'bills',
  pay: 'payments',
  cn: 'credit_notes',
  je: 'journal',
};

/** Groups offered when a financial query names no group. */
const DEFAULT_GROUPS = ['invoices', 'bills', 'payments', 'customers', 'vendors', 'reports_pnl'];

/**
 * How tools are chosen for the model. `dynamic` picks, per query, `keyword_matched_dynamic`,
 * `default_unified_dynamic` or `all_tools_fallback`; the others force that strategy.
 */
export const TOOL_STRATEGIES = [
  'dynamic',
  'direct_llm_all_mcp_tools',
  'keyword_matched_dynamic',
  'default_unified_dynamic',
  'all_tools_fallback',
] as const;
export type ToolStrategy = (typeof TOOL_STRATEGIES)[number];

export interface ToolSelection {
  strategy: string;
  groups: string[];
  tools: string[];
}

export interface SelectOptions {
  strategy?: ToolStrategy;
  /** Use these groups instead of the query's keywords (follow-ups, pagination). */
  groups?: readonly string[];
  /** Overdue queries prefer the aging tools. */
  overdue?: boolean;
}

const memo = new WeakMap<readonly ToolDefinition[], Map<string, string[]>>();

function words(text: string): Set<string> {
  return new Set(normalize(text.replace(/_/g, ' ')).split(' '));
}

/**
 * The groups a tool belongs to: by the name stems of its groups, else by the group keywords
 * its name and description use most (dynamic scoring: a tool no group lists still finds one).
 */
export function groupsOfTool(toolName: string, description = ''): string[] {
  const byStem = groupsOfToolName(toolName);
  if (byStem.length > 0 || !description) return byStem;
  const text = ` ${normalize(`${toolName.replace(/_/g, ' ')} ${description}`)} `;
  let best = 0;
  let groups: string[] = [];
  for (const g of TOOL_GROUPS) {
    const hits = g.keywords.filter((k) => text.includes(` ${k} `)).length;
    if (hits > best) {
      best = hits;
      groups = [g.name];
    } else if (hits === best && hits > 0) groups.push(g.name);
  }
  return groups;
}

function groupIndex(registry: readonly ToolDefinition[]): Map<string, string[]> {
  let index = memo.get(registry);
  if (!index) {
    index = new Map(
      registry.map((t) => [t.name, groupsOfTool(t.name, `${t.title ?? ''} ${t.description ?? ''}`)]),
    );
    memo.set(registry, index);
  }
  return index;
}

/** The groups a query names by keyword. */
export function groupsOfQuery(query: string): string[] {
  const text = ` ${normalize(query)} `;
  const groups = TOOL_GROUPS.filter((g) => g.keywords.some((k) => text.includes(` ${k} `))).map(
    (g) => g.name,
  );
  // A document number names its kind: INV-0042 is an invoice, BILL-0007 a bill.
  for (const m of query.matchAll(DOC_NUMBER)) {
    const group = DOC_GROUPS[(m[1] as string).toLowerCase()];
    if (group && !groups.includes(group)) groups.push(group);
  }
  return groups;
}

/** The tools offered to the model for a query: by keyword groups, the default groups, or all. */
export function selectTools(
  query: string,
  category: Category,
  registry: readonly ToolDefinition[],
  opts: SelectOptions = {},
): ToolSelection {
  if (category === 'general_chat') return { strategy: 'none', groups: [], tools: [] };
  const all = registry.map((t) => t.name);
  const forced = opts.strategy ?? 'dynamic';
  if (forced === 'direct_llm_all_mcp_tools' || forced === 'all_tools_fallback')
    return { strategy: forced, groups: [], tools: all };
  const index = groupIndex(registry);
  let groups = opts.groups
    ? [...opts.groups]
    : forced === 'default_unified_dynamic'
      ? []
      : groupsOfQuery(query);
  if (opts.overdue && !groups.includes('aging_reports')) groups.push('aging_reports');
  const strategy = groups.length > 0 ? 'keyword_matched_dynamic' : 'default_unified_dynamic';
  if (groups.length === 0) groups = [...DEFAULT_GROUPS];
  // Tools the query names by their own words (name or description) join the groups' tools.
  const queryWords = words(query);
  const tools = registry
    .filter((t) => {
      if ((index.get(t.name) ?? []).some((g) => groups.includes(g))) return true;
      const nameWords = parseToolName(t.name).words.filter((w) => w.length > 3 && w !== 'all');
      return nameWords.length > 1 && nameWords.filter((w) => queryWords.has(w)).length >= 2;
    })
    .map((t) => t.name);
  if (tools.length === 0) return { strategy: 'all_tools_fallback', groups, tools: all };
  return { strategy, groups, tools };
}
