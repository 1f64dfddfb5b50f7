import type { Category, ToolDefinition } from '@munim/contracts';
import { DOC_NUMBER } from './canonical.ts';
import { normalize } from './text.ts';

/** One tool group of seed 003 §4.3: query keywords, and name stems that place a tool in it. */
export interface ToolGroup {
  name: string;
  keywords: string[];
  /** A tool whose name contains one of these belongs to the group, listed or not. */
  stems: string[];
}

export const TOOL_GROUPS: readonly ToolGroup[] = [
  { name: 'invoices', keywords: ['invoice', 'invoices', 'sales', 'revenue', 'bikri'], stems: ['invoice'] },
  { name: 'bills', keywords: ['bill', 'bills', 'purchase', 'purchases', 'payable'], stems: ['bill'] },
  { name: 'payments', keywords: ['payment', 'payments', 'paid', 'receipt', 'pay'], stems: ['payment'] },
  {
    name: 'customers',
    keywords: ['customer', 'customers', 'client', 'clients', 'buyer'],
    stems: ['customer', 'contact'],
  },
  { name: 'vendors', keywords: ['vendor', 'vendors', 'supplier', 'suppliers'], stems: ['vendor', 'contact'] },
  { name: 'credit_notes', keywords: ['credit note', 'credit notes', 'refund'], stems: ['credit_note'] },
  {
    name: 'accounts',
    keywords: ['account', 'accounts', 'ledger', 'coa', 'chart of accounts'],
    stems: ['account'],
  },
  {
    name: 'transactions',
    keywords: ['bank', 'reconcile', 'statement', 'transaction', 'transactions'],
    stems: ['transaction'],
  },
  {
    name: 'aging_reports',
    keywords: ['aging', 'ageing', 'overdue', 'ar', 'ap', 'past due', 'baaki'],
    stems: ['aged_', 'aging'],
  },
  { name: 'delivery_challans', keywords: ['challan', 'challans', 'dispatch'], stems: ['challan'] },
  { name: 'expenses', keywords: ['expense', 'expenses', 'spending', 'kharcha'], stems: ['expense'] },
  { name: 'banking', keywords: ['bank', 'reconcile', 'bank statement'], stems: ['bank'] },
  {
    name: 'inventory',
    keywords: ['stock', 'product', 'products', 'sku', 'inventory'],
    stems: ['product', 'stock'],
  },
  { name: 'journal', keywords: ['journal', 'day book', 'daybook'], stems: ['journal'] },
  {
    name: 'gst_actions',
    keywords: ['gstr', 'e invoice', 'einvoice', 'file gst'],
    stems: ['gstr', 'einvoice'],
  },
  {
    name: 'reports_pnl',
    keywords: ['p&l', 'profit', 'loss', 'margin', 'naafa', 'nafa'],
    stems: ['profit_loss', 'revenue_breakdown', 'expense_breakdown'],
  },
  {
    name: 'reports_balance',
    keywords: ['balance sheet', 'trial balance'],
    stems: ['balance_sheet', 'trial_balance'],
  },
  {
    name: 'reports_cashflow',
    keywords: ['cash flow', 'cashflow', 'liquidity', 'cash', 'bank balance', 'cash balance'],
    stems: ['cash_flow', 'cash_position'],
  },
  {
    name: 'reports_payables',
    keywords: ['ap aging', 'overdue bills', 'payables'],
    stems: ['ap_aging', 'aged_payables'],
  },
  {
    name: 'reports_gst',
    keywords: ['gst', 'gst summary', 'itc', 'tax'],
    stems: ['gst_summary', 'itc', 'gstr1_data', 'gstr3b'],
  },
  { name: 'kpi_dashboard', keywords: ['kpi', 'dashboard', 'health', 'healthy'], stems: ['kpi'] },
  {
    name: 'trends_analysis',
    keywords: ['compare', 'trend', 'forecast'],
    stems: ['compare_periods', 'forecast', 'trend', 'anomaly'],
  },
];

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
 * How tools are chosen (seed 003 §4.4). `dynamic` picks, per query, `keyword_matched_dynamic`,
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
  const byStem = TOOL_GROUPS.filter((g) => g.stems.some((stem) => toolName.includes(stem))).map(
    (g) => g.name,
  );
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

/** Tool selection of seed 003 §4.4. */
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
      const nameWords = t.name.split('_').filter((w) => w.length > 3 && w !== 'all');
      return nameWords.length > 1 && nameWords.filter((w) => queryWords.has(w)).length >= 2;
    })
    .map((t) => t.name);
  if (tools.length === 0) return { strategy: 'all_tools_fallback', groups, tools: all };
  return { strategy, groups, tools };
}
