import { isRecord } from '@munim/contracts';
import type { RenderInput } from './input.ts';
import { bold, heading, table } from './markdown.ts';
import { amount, pick, type Rec, records, str } from './shape.ts';
import { sum } from './statement.ts';
import { label } from './words.ts';

/**
 * Reports that carry their own layout as rows — Xero's `Reports[0].Rows` (Header, Section,
 * Row, SummaryRow with `Cells`) and QuickBooks' `Rows.Row` (Section with Header, Rows and
 * Summary of `ColData`) — shown row for row: their sections, lines and totals are the books' own.
 */

export interface Row {
  style: 'title' | 'row' | 'summary';
  depth: number;
  cells: string[];
}

const cellsOf = (v: unknown): string[] =>
  (records(v) ?? []).map(
    (c) =>
      pick(c, ['Value', 'value'], (x) =>
        typeof x === 'string' || typeof x === 'number' ? String(x) : undefined,
      ) ?? '',
  );

function xeroRows(rows: Rec[], depth: number, out: Row[], head: string[]): void {
  for (const r of rows) {
    const type = String(r.RowType ?? '');
    if (type === 'Header') head.push(...cellsOf(r.Cells));
    else if (type === 'Section') {
      const title = str(r, ['Title']);
      if (title) out.push({ style: 'title', depth, cells: [title] });
      xeroRows(records(r.Rows) ?? [], title ? depth + 1 : depth, out, head);
    } else if (type === 'SummaryRow') out.push({ style: 'summary', depth, cells: cellsOf(r.Cells) });
    else out.push({ style: 'row', depth, cells: cellsOf(r.Cells) });
  }
}

function qboRows(rows: Rec[], depth: number, out: Row[]): void {
  for (const r of rows) {
    const header = isRecord(r.Header) ? cellsOf(r.Header.ColData) : undefined;
    const inner = isRecord(r.Rows) ? records(r.Rows.Row) : undefined;
    if (header?.[0]) out.push({ style: 'title', depth, cells: header });
    if (inner) qboRows(inner, header?.[0] ? depth + 1 : depth, out);
    if (isRecord(r.Summary)) out.push({ style: 'summary', depth, cells: cellsOf(r.Summary.ColData) });
    if (r.ColData) out.push({ style: 'row', depth, cells: cellsOf(r.ColData) });
  }
}

/** The report's name, subtitle, columns and rows, from either layout; undefined for other results. */
export function readRowReport(
  result: unknown,
): { name: string; sub: string[]; head: string[]; rows: Row[]; currency?: string } | undefined {
  if (!isRecord(result)) return undefined;
  const xero =
    records(result.Reports)?.[0] ?? (Array.isArray(result.Rows) && result.ReportName ? result : undefined);
  if (xero && Array.isArray(xero.Rows)) {
    const rows: Row[] = [];
    const head: string[] = [];
    xeroRows(records(xero.Rows) ?? [], 0, rows, head);
    const titles = (Array.isArray(xero.ReportTitles) ? xero.ReportTitles : []).map(String);
    return { name: titles[0] ?? str(xero, ['ReportName']) ?? 'Report', sub: titles.slice(1), head, rows };
  }
  const header = isRecord(result.Header) ? result.Header : undefined;
  const body = isRecord(result.Rows) ? records(result.Rows.Row) : undefined;
  if (header && body) {
    const rows: Row[] = [];
    qboRows(body, 0, rows);
    const columns = isRecord(result.Columns) ? (records(result.Columns.Column) ?? []) : [];
    const name = str(header, ['ReportName']) ?? 'Report';
    return {
      name: name.includes(' ') ? name : label(name),
      sub: [],
      head: columns.map((c) => str(c, ['ColTitle']) ?? ''),
      rows,
      ...(str(header, ['Currency']) ? { currency: str(header, ['Currency']) as string } : {}),
    };
  }
  return undefined;
}

const find = (rows: Row[], pattern: RegExp) =>
  amount(rows.find((r) => pattern.test(r.cells[0]?.trim() ?? ''))?.cells[1]);

/** Whether a balance sheet's two sides agree, from its own total rows. */
function balanceCheck(rows: Row[], money: (n: number) => string): string | undefined {
  const assets = find(rows, /^total assets$/i);
  const both = find(rows, /^total liabilities and (\w+'?s?'? )?equity$/i);
  const net = find(rows, /^net assets$/i);
  const equity = find(rows, /^total (\w+'?s?'? )?equity$/i);
  const [left, right, what] =
    assets !== undefined && both !== undefined
      ? [assets, both, 'total assets equal total liabilities and equity']
      : net !== undefined && equity !== undefined
        ? [net, equity, 'net assets equal total equity']
        : [undefined, undefined, ''];
  if (left === undefined || right === undefined) return undefined;
  const gap = sum([left, -right]);
  return Math.abs(gap) < 0.01
    ? `✓ Balanced: ${what} (${money(left)}).`
    : `⚠️ Out of balance by ${money(Math.abs(gap))}.`;
}

export function renderRowReport(input: RenderInput): string | undefined {
  const report = readRowReport(input.result);
  if (!report || report.rows.length === 0) return undefined;
  const { fmt } = input;
  const currency = report.currency ?? fmt.business.currency;
  const money = (n: number) => fmt.money(n, currency);
  const width = Math.max(report.head.length, ...report.rows.map((r) => r.cells.length));
  const head = Array.from({ length: width }, (_, i) => report.head[i] || (i === 0 ? 'Account' : ''));
  const shown = (c: string | undefined) => {
    const n = amount(c);
    return n === undefined ? (c ?? '') : money(n);
  };
  const body = report.rows.map((r) => {
    const cells = Array.from({ length: width }, (_, i) =>
      i === 0 ? `${'\u00a0\u00a0'.repeat(r.depth)}${r.cells[0] ?? ''}` : shown(r.cells[i]),
    );
    return r.style === 'row' ? cells : cells.map((c) => (c.trim() ? bold(c.trim()) : c));
  });
  const header = isRecord(input.result) && isRecord(input.result.Header) ? input.result.Header : undefined;
  const period = header ? fmt.period(header.StartPeriod, header.EndPeriod) : undefined;
  const out = [
    heading(report.name, [...report.sub, period, currency]),
    table(
      head,
      body,
      head.map((_, i) => i > 0),
    ),
  ];
  if (/balance/i.test(report.name)) {
    const check = balanceCheck(report.rows, money);
    if (check) out.push(check);
  }
  return out.join('\n\n');
}
