/**
 * Reports laid out as rows (Xero's `Rows` of sections and cells, QuickBooks' `Rows.Row` of
 * `ColData`) as the nested records the analytic readers take: a statement as sections of items
 * with their totals and the figures between them (gross profit, net income); a table of columns
 * (aged receivables) as one record per row, keyed by the column titles.
 */
import { isRecord } from '@munim/contracts';
import { bucketOf } from '../render/aging.ts';
import { SIDES } from '../render/balance-sheet.ts';
import { NET, PARTS } from '../render/pnl.ts';
import { readRowReport } from '../render/row-report.ts';
import { amount, norm, num, type Rec, records, str } from '../render/shape.ts';

interface Node {
  title: string;
  items: Rec[];
  total?: number;
  depth: number;
}

const title = (t: string) => t.trim().replace(/^less\s+/i, '');

/** A row report as records; undefined when `result` is no row report. */
export function fromRowLayout(result: unknown): Rec | undefined {
  const report = readRowReport(result);
  if (!report || report.rows.length === 0) return undefined;
  // A table of age columns: one record per row, keyed by the column titles.
  if (report.head.filter((h) => bucketOf(h)).length >= 2) {
    const rows = report.rows
      .filter((r) => r.style === 'row' && r.cells[0])
      .map((r) =>
        Object.fromEntries(
          report.head.map((h, i) => [
            i === 0 ? 'ContactName' : h,
            i === 0 ? r.cells[0] : (amount(r.cells[i]) ?? 0),
          ]),
        ),
      );
    return { ReportName: report.name, Contacts: rows };
  }
  const root: Rec = { ReportName: report.name };
  const open: Node[] = [];
  const close = (depth: number) => {
    while (open.length && (open.at(-1) as Node).depth >= depth) {
      const node = open.pop() as Node;
      const entry = {
        Name: node.title,
        Items: node.items,
        ...(node.total !== undefined ? { Total: node.total } : {}),
      };
      const parent = open.at(-1);
      if (parent) parent.items.push(entry);
      else root[node.title] = entry;
    }
  };
  for (const row of report.rows) {
    const label = (row.cells[0] ?? '').trim();
    const value = amount(row.cells[1]);
    if (row.style === 'title') {
      close(row.depth);
      open.push({ title: title(label), items: [], depth: row.depth });
      continue;
    }
    // "Total Income" closes the section of that name (Xero puts it inside, QuickBooks beside it).
    if (row.style === 'summary' && /^total\b/i.test(label)) {
      const of = title(label.replace(/^total\s*/i, '')).toLowerCase();
      const node =
        [...open].reverse().find((n) => n.title.toLowerCase() === of) ??
        [...open].reverse().find((n) => n.depth <= row.depth);
      if (node) {
        if (value !== undefined) node.total = value;
        close(node.depth);
      }
      continue;
    }
    close(row.depth);
    const node = open.at(-1);
    if (node && row.style === 'row') node.items.push({ Name: label, Amount: value });
    else if (label && value !== undefined) root[label] = value;
  }
  close(0);
  // "Liabilities and Equity" holds both sides: each is also read at the top.
  for (const [key, v] of Object.entries(root))
    if (/\band\b/i.test(key) && v && typeof v === 'object')
      for (const child of (v as { Items: Rec[] }).Items ?? [])
        if (typeof child.Name === 'string' && !(child.Name in root)) root[child.Name] = child;
  return root;
}

/** Section names a statement's readers look up, by their key without case, separators or plural. */
const SECTION_KEYS = new Map<string, string>(
  [...PARTS.flatMap((p) => p.section), ...SIDES.flatMap((s) => [...s.section, ...s.parts])].map((k) => [
    norm(k).replace(/s$/, ''),
    k,
  ]),
);
const FIGURES = new Map<string, string>([...NET, 'GrossProfit', 'GrossProfitLoss'].map((k) => [norm(k), k]));

/**
 * A statement given as a list of named sections (`[{ name: "Operating Income", total, account_transactions }]`)
 * as one record keyed by the sections' names; undefined when the list is not of sections.
 */
export function fromNamedSections(value: unknown): Rec | undefined {
  const base: Rec = isRecord(value) ? value : {};
  const lists = isRecord(value) ? Object.values(value).map(records) : [records(value)];
  for (const list of lists) {
    if (!list?.length) continue;
    const named = list.map((r) => ({ r, name: str(r, ['Name', 'Title', 'Section', 'Label']) }));
    const known = named.filter((n) => n.name && SECTION_KEYS.has(norm(n.name).replace(/s$/, '')));
    if (known.length < 2) continue;
    const out: Rec = { ...base };
    for (const { r, name } of named) {
      if (!name) continue;
      const figure = FIGURES.get(norm(name));
      if (figure) out[figure] = num(r, ['Total', 'Amount', 'Value', 'Balance']);
      else out[SECTION_KEYS.get(norm(name).replace(/s$/, '')) ?? name] = r;
    }
    return out;
  }
  return undefined;
}
