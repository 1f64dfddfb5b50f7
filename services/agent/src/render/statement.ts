import { isRecord } from '@munim/contracts';
import { bold, table } from './markdown.ts';
import { num, type Rec, records, rowsOf, str } from './shape.ts';

/** One line of a statement: an account or item and its amount. */
export interface Line {
  label: string;
  amount?: number | undefined;
  depth?: number;
}

/** A titled group of lines and its total, or one figure standing alone (gross profit, net profit). */
export type Block =
  | { kind: 'section'; title: string; lines: Line[]; total?: number | undefined; totalLabel?: string }
  | { kind: 'figure'; label: string; amount: number };

const NAME = ['Name', 'AccountName', 'Account', 'Description', 'Label', 'Title', 'Particulars', 'LineItem'];
const AMOUNT = ['Amount', 'Balance', 'Total', 'Value', 'NetAmount', 'Net'];
const ITEMS = [
  'Items',
  'Lines',
  'Accounts',
  'Rows',
  'Details',
  'Children',
  'SubAccounts',
  'AccountTransactions',
  'LineItems',
];
const TOTAL = ['Total', 'NetCash', 'Net', 'Subtotal', 'Amount'];

const sum = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) * 100) / 100;

function linesOf(rows: Rec[], depth: number): Line[] {
  return rows.flatMap((row) => {
    const label = str(row, NAME);
    const children = rowsOf(row, ITEMS);
    const own = num(row, AMOUNT);
    if (!label && own === undefined) return [];
    const line: Line = { label: label ?? '', amount: own, ...(depth > 0 ? { depth } : {}) };
    return [line, ...(children ? linesOf(children, depth + 1) : [])];
  });
}

/**
 * A section given as a list of accounts, as `{ Items, Total }`, or as a bare figure; undefined
 * when `value` is none of those.
 */
export function readSection(value: unknown): { lines: Line[]; total?: number } | undefined {
  if (typeof value === 'number') return { lines: [], total: value };
  const rows = records(value);
  if (rows) return { lines: linesOf(rows, 0) };
  if (!isRecord(value)) return undefined;
  const items = rowsOf(value, ITEMS);
  const total = num(value, TOTAL);
  if (!items && total === undefined) return undefined;
  return { lines: items ? linesOf(items, 0) : [], ...(total !== undefined ? { total } : {}) };
}

/** A section's total: the one the books give, else the sum of its top-level lines. */
export function sectionTotal(section: { lines: Line[]; total?: number | undefined }): number | undefined {
  if (section.total !== undefined) return section.total;
  const top = section.lines.filter((l) => !l.depth && l.amount !== undefined);
  return top.length > 0 ? sum(top.map((l) => l.amount as number)) : undefined;
}

/** A statement as one two-column table: section titles, their lines, totals and figures in bold. */
export function statementTable(blocks: Block[], money: (n: number) => string, head = 'Account'): string {
  const rows: string[][] = [];
  for (const b of blocks) {
    if (b.kind === 'figure') {
      rows.push([bold(b.label), bold(money(b.amount))]);
      continue;
    }
    rows.push([bold(b.title), '']);
    if (b.lines.length === 0) rows.push(['None', '']);
    for (const l of b.lines)
      rows.push([
        `${'\u00a0\u00a0'.repeat(l.depth ?? 0)}${l.label}`,
        l.amount === undefined ? '' : money(l.amount),
      ]);
    const total = sectionTotal(b);
    if (total !== undefined)
      rows.push([bold(b.totalLabel ?? `Total ${b.title.toLowerCase()}`), bold(money(total))]);
  }
  return table([head, 'Amount'], rows, [false, true]);
}

export { sum };
