import { type BookRole, nameWords, singular, type ToolDefinition } from '@munim/contracts';

/**
 * Which tool of a registry serves each report or list an analytic needs, whatever the server
 * calls it: read by the words of its name (any naming style, a server prefix allowed), and for a
 * list, a tool that needs no record id. Only reads are ever chosen.
 */

type Words = ReadonlySet<string>;

/** Each role's test on the words of a tool's name (singular, lower case), strongest sign first. */
const ROLE_TESTS: Readonly<Record<BookRole, (w: Words, joined: string) => boolean>> = {
  profit_and_loss: (w, j) =>
    (w.has('profit') && w.has('loss')) || w.has('pnl') || /profitloss|profitandloss|incomestatement/.test(j),
  balance_sheet: (w, j) => (w.has('balance') && w.has('sheet')) || j.includes('balancesheet'),
  aged_receivables: (w, j) =>
    (w.has('receivable') || w.has('debtor') || j.includes('receivable')) &&
    (w.has('aged') ||
      w.has('aging') ||
      w.has('ageing') ||
      w.has('age') ||
      w.has('outstanding') ||
      j.includes('aged')),
  aged_payables: (w, j) =>
    (w.has('payable') || w.has('creditor') || j.includes('payable')) &&
    (w.has('aged') ||
      w.has('aging') ||
      w.has('ageing') ||
      w.has('age') ||
      w.has('outstanding') ||
      j.includes('aged')),
  cash_flow: (w, j) => (w.has('cash') && w.has('flow')) || j.includes('cashflow'),
  gst_summary: (w) => w.has('gst') && !w.has('invoice'),
  invoices: (w) => w.has('invoice') && !w.has('bill') && !w.has('purchase') && !w.has('credit'),
  bills: (w) => w.has('bill') || (w.has('purchase') && w.has('invoice')),
  payments: (w) => w.has('payment') && !w.has('term') && !w.has('method') && !w.has('mode'),
  accounts: (w, j) =>
    (w.has('account') && (w.has('chart') || w.has('all') || w.has('list'))) ||
    j.includes('chartsofaccount') ||
    j.includes('chartofaccount'),
  budgets: (w, j) => w.has('budget') || j.includes('budget'),
};

/** Roles that are lists of records: a tool that fetches one record by its id or number is not one. */
const LISTS: ReadonlySet<BookRole> = new Set(['invoices', 'bills', 'payments', 'accounts', 'budgets']);
const RECORD_KEY = /(^id$|id$|number$|^no$|ref$|reference$)/;

/** Words that make a tool something else than the report or list itself. */
const NOT_A_REPORT = new Set([
  'pdf',
  'email',
  'send',
  'export',
  'schedule',
  'template',
  'setting',
  'attachment',
]);

const DATE_FROM = /^(from|start|begin|since|datefrom|fromdate|startdate|periodstart|startperiod)$/;
const DATE_TO = /^(to|end|until|till|dateto|todate|enddate|periodend|endperiod)$/;
const AS_OF = /^(asof|asofdate|asat|asatdate|reportdate|date|balancedate|ason)$/;

/** A tool chosen for a role, and the names of its date arguments. */
export interface RoleTool {
  tool: string;
  from?: string;
  to?: string;
  asOf?: string;
  /** A list's page size argument and the most it allows: a figure needs every record. */
  pageSize?: { name: string; max: number };
  /** A list's argument that narrows it to a party by name (a search text, a customer's name). */
  search?: string;
}

const SEARCH =
  /^(search|q|query|text|keyword|contactname|customername|vendorname|suppliername|partyname|name|customer|vendor|party|contact)$/;

const PAGE_SIZE = /^(pagesize|perpage|limit|maxresults|pagelimit|size|count|top)$/;

/** The page size argument of a list and its largest value (200 when the schema sets none). */
function pageSizeOf(tool: ToolDefinition): RoleTool['pageSize'] {
  const props = (tool.inputSchema as { properties?: Record<string, { type?: unknown; maximum?: unknown }> })
    .properties;
  for (const [name, schema] of Object.entries(props ?? {})) {
    if (!PAGE_SIZE.test(norm(name))) continue;
    if (schema?.type !== 'integer' && schema?.type !== 'number') continue;
    const max = typeof schema.maximum === 'number' && schema.maximum >= 1 ? Math.floor(schema.maximum) : 200;
    return { name, max: Math.min(max, 1000) };
  }
  return undefined;
}

const norm = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, '');

function properties(tool: ToolDefinition): { names: string[]; required: string[] } {
  const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: unknown };
  return {
    names: Object.keys(schema.properties ?? {}),
    required: Array.isArray(schema.required)
      ? schema.required.filter((r): r is string => typeof r === 'string')
      : [],
  };
}

/** The tool of `registry` that serves `role`, with its date arguments; undefined when none does. */
export function toolForRole(role: BookRole, registry: readonly ToolDefinition[]): RoleTool | undefined {
  const candidates: { score: number; found: RoleTool }[] = [];
  for (const tool of registry) {
    if (tool.isWrite) continue;
    const local = tool.name.includes('__') ? tool.name.slice(tool.name.lastIndexOf('__') + 2) : tool.name;
    const words = new Set(nameWords(local).map(singular));
    if ([...words].some((w) => NOT_A_REPORT.has(w))) continue;
    if (!ROLE_TESTS[role](words, nameWords(local).join(''))) continue;
    const { names, required } = properties(tool);
    // `get_invoice(InvoiceId | InvoiceNumber)` fetches one; `get_all_invoices`, `invoices.search` list them.
    const rawWords = nameWords(local);
    const plural = rawWords.some(
      (w) => w !== singular(w) || ['all', 'list', 'search', 'find', 'query'].includes(w),
    );
    if (LISTS.has(role) && !plural && names.some((n) => RECORD_KEY.test(norm(n)))) continue;
    const from = names.find((n) => DATE_FROM.test(norm(n)));
    const to = names.find((n) => DATE_TO.test(norm(n)));
    const asOf = names.find((n) => AS_OF.test(norm(n)));
    // A tool that needs anything but its dates (a record id, a filter) is not the list or report.
    const dates = new Set([from, to, asOf].filter((n): n is string => n !== undefined));
    if (required.some((r) => !dates.has(r))) continue;
    // Fewer other words: `get_profit_loss` over `get_profit_loss_by_tracking_category`.
    const score = words.size + (words.has('summary') && role !== 'gst_summary' ? 2 : 0);
    const pageSize = LISTS.has(role) ? pageSizeOf(tool) : undefined;
    const search = LISTS.has(role)
      ? names.find((n) => {
          const type = (tool.inputSchema as { properties?: Record<string, { type?: unknown }> }).properties?.[
            n
          ]?.type;
          return SEARCH.test(norm(n)) && (type === undefined || type === 'string');
        })
      : undefined;
    candidates.push({
      score,
      found: {
        tool: tool.name,
        ...(from ? { from } : {}),
        ...(to ? { to } : {}),
        ...(asOf ? { asOf } : {}),
        ...(pageSize ? { pageSize } : {}),
        ...(search ? { search } : {}),
      },
    });
  }
  candidates.sort((a, b) => a.score - b.score || a.found.tool.localeCompare(b.found.tool));
  return candidates[0]?.found;
}
