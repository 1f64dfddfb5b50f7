import { isRecord } from '@munim/contracts';
import { companyOf, coverage, currencyOf, hint, type RenderInput } from './input.ts';
import { heading } from './markdown.ts';
import { keyOf, num, type Rec, records } from './shape.ts';
import { type Block, readSection, sectionTotal, statementTable, sum } from './statement.ts';
import { label } from './words.ts';

export interface Part {
  title: string;
  section: readonly string[];
  total: readonly string[];
  sign: 1 | -1;
}

/** The parts of a profit and loss statement, each with its section and total aliases. */
export const PARTS: Part[] = [
  {
    title: 'Income',
    section: ['Income', 'Revenue', 'Revenues', 'Sales', 'OperatingIncome', 'TradingIncome'],
    total: ['TotalIncome', 'TotalRevenue', 'TotalRevenues', 'TotalSales', 'TotalOperatingIncome'],
    sign: 1,
  },
  {
    title: 'Cost of sales',
    section: ['CostOfSales', 'CostOfGoodsSold', 'COGS', 'DirectCosts', 'DirectExpenses', 'CostOfRevenue'],
    total: [
      'TotalCostOfSales',
      'TotalCostOfGoodsSold',
      'TotalCOGS',
      'TotalDirectCosts',
      'TotalDirectExpenses',
    ],
    sign: -1,
  },
  {
    title: 'Operating expenses',
    section: ['OperatingExpenses', 'Expenses', 'IndirectExpenses', 'Overheads', 'OperatingCosts'],
    total: ['TotalOperatingExpenses', 'TotalExpenses', 'TotalIndirectExpenses', 'TotalOverheads'],
    sign: -1,
  },
  {
    title: 'Other income',
    section: ['OtherIncome', 'NonOperatingIncome'],
    total: ['TotalOtherIncome', 'TotalNonOperatingIncome'],
    sign: 1,
  },
  {
    title: 'Other expenses',
    section: ['OtherExpenses', 'NonOperatingExpenses', 'FinanceCosts'],
    total: ['TotalOtherExpenses', 'TotalNonOperatingExpenses', 'TotalFinanceCosts'],
    sign: -1,
  },
  { title: 'Tax', section: ['TaxExpense', 'IncomeTaxExpense', 'IncomeTax'], total: ['TotalTax'], sign: -1 },
];

/** A part as read from a result: its lines, if given, and its total. */
interface Read {
  title: string;
  sign: 1 | -1;
  read: ReturnType<typeof readSection>;
  total: number | undefined;
}

const GROSS = ['GrossProfit', 'GrossProfitLoss'];
const OPERATING_PROFIT = ['OperatingProfit', 'EBIT', 'NetOperatingIncome', 'OperatingProfitLoss'];
const BEFORE_TAX = ['ProfitBeforeTax', 'NetProfitBeforeTax', 'EarningsBeforeTax'];
export const NET = [
  'NetProfit',
  'NetIncome',
  'NetProfitLoss',
  'ProfitAfterTax',
  'NetEarnings',
  'ProfitForThePeriod',
];

const profitWord = (base: string, n: number) => (n < 0 ? base.replace(/profit/i, 'loss') : base);

/** A profit and loss statement: income, cost of sales, gross profit, expenses, net profit. */
export function renderProfitAndLoss(input: RenderInput): string | undefined {
  const { result, fmt } = input;
  if (!isRecord(result)) return undefined;
  const used = new Set<string>();
  const readPart = (p: Part): Read => {
    const key = keyOf(result, p.section);
    const totalKey = keyOf(result, p.total);
    // A figure under a section's name is its total (e.g. `OperatingIncome: 5000` of a summary).
    const read = key ? readSection(result[key]) : undefined;
    if (key && read) used.add(key);
    if (totalKey) used.add(totalKey);
    const given = (totalKey ? num(result, [totalKey]) : undefined) ?? read?.total;
    const total = given ?? (read ? sectionTotal(read) : undefined);
    return { title: p.title, sign: p.sign, read, total };
  };
  const parts: Read[] = PARTS.map(readPart);
  const [inc, cos, opex, otherIncome, otherExpenses, tax] = parts as [Read, Read, Read, Read, Read, Read];
  const found = parts.filter((p) => p.total !== undefined).length;
  const net = num(result, NET);
  const isPnl = /profit|loss|income statement|pnl|p l/.test(hint(input));
  if (!(inc.total !== undefined && (found >= 2 || net !== undefined)) && !(isPnl && found >= 1))
    return undefined;
  for (const k of [...GROSS, ...OPERATING_PROFIT, ...BEFORE_TAX, ...NET]) {
    const key = keyOf(result, [k]);
    if (key) used.add(key);
  }

  const currency = currencyOf(result, fmt);
  const money = (n: number) => fmt.money(n, currency);
  const blocks: Block[] = [];
  const section = (p: Read) => {
    if (p.total === undefined && !p.read) return;
    blocks.push({ kind: 'section', title: p.title, lines: p.read?.lines ?? [], total: p.total });
  };
  section(inc);
  section(cos);
  let gross = num(result, GROSS);
  // Gross profit is defined by the two sections above it; computed only when the books gave both.
  if (gross === undefined && inc.total !== undefined && cos.total !== undefined)
    gross = sum([inc.total, -cos.total]);
  if (gross !== undefined && cos.total !== undefined)
    blocks.push({ kind: 'figure', label: profitWord('Gross profit', gross), amount: gross });
  section(opex);
  const operating = num(result, OPERATING_PROFIT);
  if (operating !== undefined)
    blocks.push({ kind: 'figure', label: profitWord('Operating profit', operating), amount: operating });
  section(otherIncome);
  section(otherExpenses);
  const beforeTax = num(result, BEFORE_TAX);
  if (beforeTax !== undefined)
    blocks.push({ kind: 'figure', label: profitWord('Profit before tax', beforeTax), amount: beforeTax });
  section(tax);
  // Sections this renderer does not know are shown, not dropped; then no net profit is worked out.
  const unknown = Object.entries(result).filter(([k, v]) => !used.has(k) && records(v)?.length);
  for (const [k, v] of unknown) {
    const s = readSection(v);
    if (s) blocks.push({ kind: 'section', title: label(k), lines: s.lines });
  }
  let netProfit = net;
  if (netProfit === undefined && unknown.length === 0)
    netProfit = sum(parts.filter((p) => p.total !== undefined).map((p) => p.sign * (p.total as number)));
  if (netProfit !== undefined)
    blocks.push({ kind: 'figure', label: profitWord('Net profit', netProfit), amount: netProfit });

  const title = heading('Profit and loss', [companyOf(result, fmt), coverage(result as Rec, fmt), currency]);
  const notes: string[] = [];
  if (netProfit !== undefined && inc.total) {
    const margins = [
      gross !== undefined && cos.total !== undefined
        ? `gross margin ${fmt.percent(gross / inc.total)}`
        : undefined,
      `net margin ${fmt.percent(netProfit / inc.total)}`,
    ].filter(Boolean);
    notes.push(
      `${profitWord('Net profit', netProfit)} of ${fmt.large(Math.abs(netProfit), currency)} on income of ${fmt.large(inc.total, currency)}: ${margins.join(', ')}.`,
    );
  }
  return [title, statementTable(blocks, money), ...notes].join('\n\n');
}
