import { snakeToolName } from '@munim/contracts';

/**
 * The tool groups (invoices, payments, reports, …), shared by the router (which groups to offer for a query) and
 * the validator (one container per group).
 */
/** One tool group: query keywords, and name stems that place a tool in it. */
export interface ToolGroup {
  name: string;
  /** Query words that call for the group. */
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

/**
 * Whether a tool's name contains one of the group's name stems, in whatever style it is written:
 * stems are matched against the name's words in snake_case (`createCreditNote`, `credit-notes.list`).
 */
export function isInToolGroup(group: ToolGroup, name: string): boolean {
  const snake = snakeToolName(name);
  return group.stems.some((stem) => snake.includes(stem));
}

/** The groups whose name stems a tool's name contains, in table order (a tool may be in several). */
export function groupsOfToolName(name: string): string[] {
  return TOOL_GROUPS.filter((g) => isInToolGroup(g, name)).map((g) => g.name);
}

/**
 * The one group a tool is filed under (`tool_registry.tool_group`): that of the longest stem its
 * name contains, so the most specific wins (`get_aged_payables_report` is `reports_payables`, not
 * `aging_reports`), the earlier group in the table on a tie. Null when no stem fits: such a tool is
 * in no group for the router's stem match or the validator's containers either.
 */
export function primaryToolGroup(name: string): string | null {
  const snake = snakeToolName(name);
  let best: { group: string; length: number } | undefined;
  for (const group of TOOL_GROUPS) {
    for (const stem of group.stems) {
      if (snake.includes(stem) && stem.length > (best?.length ?? 0))
        best = { group: group.name, length: stem.length };
    }
  }
  return best?.group ?? null;
}
