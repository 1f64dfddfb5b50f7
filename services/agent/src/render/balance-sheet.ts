import { isRecord } from '@munim/contracts';
import { companyOf, coverage, currencyOf, hint, type RenderInput } from './input.ts';
import { heading } from './markdown.ts';
import { keyOf, num, type Rec } from './shape.ts';
import { type Block, type Line, readSection, sectionTotal, statementTable, sum } from './statement.ts';

/** Each side of the balance sheet: the whole section, its parts, and its total. */
export const SIDES = [
  {
    title: 'Assets',
    section: ['Assets'],
    parts: ['CurrentAssets', 'NonCurrentAssets', 'FixedAssets', 'Investments', 'OtherAssets'],
    total: ['TotalAssets'],
  },
  {
    title: 'Liabilities',
    section: ['Liabilities'],
    parts: ['CurrentLiabilities', 'NonCurrentLiabilities', 'LongTermLiabilities', 'OtherLiabilities'],
    total: ['TotalLiabilities'],
  },
  {
    title: 'Equity',
    section: ['Equity', 'ShareholdersEquity', 'StockholdersEquity', 'OwnersEquity', 'CapitalAndReserves'],
    parts: [],
    total: ['TotalEquity', 'TotalShareholdersEquity', 'TotalStockholdersEquity', 'TotalOwnersEquity'],
  },
] as const;

const BOTH = [
  'TotalLiabilitiesAndEquity',
  'TotalEquityAndLiabilities',
  'TotalLiabilitiesAndShareholdersEquity',
  'TotalLiabilitiesAndStockholdersEquity',
];

const words = (k: string) => k.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

/** One side: its lines (parts as sub-headings when the books split it) and its total. */
function side(result: Rec, s: (typeof SIDES)[number]): { lines: Line[]; total?: number } | undefined {
  const whole = keyOf(result, s.section);
  const read = whole ? readSection(result[whole]) : undefined;
  const lines: Line[] = [...(read?.lines ?? [])];
  const partTotals: number[] = [];
  for (const p of s.parts) {
    const key = keyOf(result, [p]);
    const part = key ? readSection(result[key]) : undefined;
    if (!part) continue;
    const total = sectionTotal(part);
    lines.push({ label: words(p).replace(/^./, (c) => c.toUpperCase()), amount: total });
    lines.push(...part.lines.map((l) => ({ ...l, depth: (l.depth ?? 0) + 1 })));
    if (total !== undefined) partTotals.push(total);
  }
  const given = num(result, s.total) ?? read?.total;
  if (!read && partTotals.length === 0 && given === undefined) return undefined;
  const total = given ?? (read ? sectionTotal({ lines }) : partTotals.length ? sum(partTotals) : undefined);
  return { lines, ...(total !== undefined ? { total } : {}) };
}

/** A balance sheet: assets, liabilities and equity with their totals, and whether they balance. */
export function renderBalanceSheet(input: RenderInput): string | undefined {
  const { result, fmt } = input;
  if (!isRecord(result)) return undefined;
  const [assets, liabilities, equity] = SIDES.map((s) => side(result, s));
  const named = /balance sheet|balancesheet|financial position/.test(hint(input));
  if (!assets || (!liabilities && !equity) || (!named && !(liabilities && equity))) return undefined;

  const currency = currencyOf(result, fmt);
  const money = (n: number) => fmt.money(n, currency);
  const blocks: Block[] = [];
  for (const [i, s] of [assets, liabilities, equity].entries()) {
    const title = SIDES[i]?.title ?? '';
    if (s) blocks.push({ kind: 'section', title, lines: s.lines, total: s.total });
  }
  const both =
    num(result, BOTH) ??
    (liabilities?.total !== undefined && equity?.total !== undefined
      ? sum([liabilities.total, equity.total])
      : undefined);
  if (both !== undefined)
    blocks.push({ kind: 'figure', label: 'Total liabilities and equity', amount: both });

  const out = [
    heading('Balance sheet', [companyOf(result, fmt), coverage(result, fmt), currency]),
    statementTable(blocks, money),
  ];
  if (assets.total !== undefined && both !== undefined) {
    const gap = sum([assets.total, -both]);
    out.push(
      Math.abs(gap) < 0.01
        ? `✓ Balanced: total assets equal total liabilities and equity (${money(assets.total)}).`
        : `⚠️ Out of balance: total assets are ${money(assets.total)} but liabilities and equity ${money(both)}, a difference of ${money(Math.abs(gap))}.`,
    );
  }
  return out.join('\n\n');
}
