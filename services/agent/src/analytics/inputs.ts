/**
 * The books' statements read by meaning into the inputs of `@munim/finance`: whatever a server
 * calls its fields (any naming style, any envelope, rows of cells), a profit and loss becomes its
 * lines, a balance sheet its cash accounts and current totals, a GST summary its output, input and
 * net, a cash flow its money in and out — or undefined when it cannot be read as that, so an
 * answer is declined rather than guessed. Documents and payments are read in records.ts.
 */
import { isRecord } from '@munim/contracts';
import type { CashAccount, PnlLine, PnlSection } from '@munim/finance';
import { SIDES } from '../render/balance-sheet.ts';
import { ACTIVITIES } from '../render/cash-flow.ts';
import { NET as GST_NET, INPUT, OUTPUT, side } from '../render/gst.ts';
import { NET, PARTS } from '../render/pnl.ts';
import { keyOf, num, pick, type Rec, str, unwrap } from '../render/shape.ts';
import { type Line, readSection, sectionTotal } from '../render/statement.ts';
import { fromNamedSections, fromRowLayout } from './row-layout.ts';

const ISO = /^(\d{4}-\d{2}-\d{2})/;

/** A `YYYY-MM-DD` day of a date field in any usual form (ISO date or timestamp, `/Date(ms)/`). */
export function dayOf(v: unknown): string | undefined {
  if (typeof v === 'string') {
    const iso = ISO.exec(v);
    if (iso) return iso[1];
    const ms = /^\/Date\((-?\d+)/.exec(v);
    if (ms) return new Date(Number(ms[1])).toISOString().slice(0, 10);
    const dmy = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(v);
    if (dmy) return `${dmy[3]}-${dmy[2]?.padStart(2, '0')}-${dmy[1]?.padStart(2, '0')}`;
  }
  return undefined;
}
const day = (obj: Rec, aliases: readonly string[]) => pick(obj, aliases, dayOf);

/** The payload of a result, out of its envelope and MCP's text wrapper. */
export function payload(result: unknown): unknown {
  let value = result;
  if (isRecord(value) && Array.isArray(value.content) && value.structuredContent === undefined) {
    const first = (value.content as unknown[])[0];
    if (isRecord(first) && typeof first.text === 'string') {
      try {
        value = JSON.parse(first.text);
      } catch {
        return undefined;
      }
    }
  }
  if (isRecord(value) && isRecord(value.structuredContent)) value = value.structuredContent;
  const inner = unwrap(value).value;
  return fromRowLayout(inner) ?? fromNamedSections(inner) ?? inner;
}

// ── profit and loss ─────────────────────────────────────────────────────────

const PART_SECTION: Readonly<Record<string, PnlSection>> = {
  Income: 'income',
  'Cost of sales': 'cost_of_sales',
  'Operating expenses': 'expense',
  'Other income': 'other_income',
  'Other expenses': 'other_expense',
  Tax: 'other_expense',
};

/** Leaves of a statement's lines: a heading with lines under it is not counted beside them. */
function leaves(lines: Line[]): Line[] {
  return lines.filter((l, i) => {
    const next = lines[i + 1];
    return l.amount !== undefined && !(next && (next.depth ?? 0) > (l.depth ?? 0));
  });
}

const cents = (n: number) => Math.round(n * 100);

/** A profit and loss report as its lines by section; undefined when no section can be read. */
export function readPnl(result: unknown): PnlLine[] | undefined {
  const report = payload(result);
  if (!isRecord(report)) return undefined;
  const lines: PnlLine[] = [];
  let found = 0;
  for (const part of PARTS) {
    const section = PART_SECTION[part.title] as PnlSection;
    const key = keyOf(report, part.section);
    const read = key ? readSection(report[key]) : undefined;
    const total = num(report, part.total) ?? read?.total ?? (read ? sectionTotal(read) : undefined);
    if (!read && total === undefined) continue;
    found++;
    const own = leaves(read?.lines ?? []).map((l) => ({
      section,
      name: l.label || part.title,
      amount: l.amount as number,
    }));
    const sum = own.reduce((s, l) => s + cents(l.amount), 0);
    lines.push(...own);
    // A total the books state beyond the lines they list is kept, never dropped.
    if (total !== undefined && cents(total) !== sum)
      lines.push({
        section,
        name: own.length ? `Other ${part.title.toLowerCase()}` : part.title,
        amount: (cents(total) - sum) / 100,
      });
  }
  if (found === 0) return undefined;
  const net = num(report, NET);
  if (net !== undefined) {
    const t = { income: 0, cost_of_sales: 0, expense: 0, other_income: 0, other_expense: 0 };
    for (const l of lines) t[l.section] += cents(l.amount);
    const computed = t.income - t.cost_of_sales - t.expense + t.other_income - t.other_expense;
    const gap = cents(net) - computed;
    if (gap !== 0)
      lines.push({
        section: gap > 0 ? 'other_income' : 'other_expense',
        name: 'Other items, as the books report them',
        amount: Math.abs(gap) / 100,
      });
  }
  return lines;
}

// ── balance sheet ───────────────────────────────────────────────────────────

const CASH_NAME =
  /\b(bank|banks|cash|petty|imprest|till|checking|chequing|savings?|current a\/?c|current account|hdfc|icici|sbi|axis|kotak)\b/i;
const NOT_CASH =
  /receivable|payable|gst|tax|tds|loan|overdraft facility|deposit with|charges|clearing|undeposited/i;
const NON_CURRENT_ASSET =
  /fixed|equipment|furniture|fixture|vehicle|building|land|plant|machinery|computer|depreciation|intangible|goodwill|investment|long[- ]term|non[- ]current|capital work|security deposit|property/i;
const NON_CURRENT_LIABILITY =
  /long[- ]term|term loan|secured loan|unsecured loan|debenture|non[- ]current|deferred tax|bond/i;

/** The balance sheet's cash position and current totals, with which lines were counted. */
export interface BalanceRead {
  accounts: CashAccount[];
  currentAssets?: number;
  currentLiabilities?: number;
  /** Which asset and liability lines were taken as current (when the books do not group them). */
  counted: { current: string[]; nonCurrent: string[] };
  asOf?: string;
}

function sideLines(report: Rec, s: (typeof SIDES)[number]): Line[] {
  const out: Line[] = [];
  const whole = keyOf(report, s.section);
  const read = whole ? readSection(report[whole]) : undefined;
  if (read) out.push(...read.lines);
  for (const p of s.parts) {
    const key = keyOf(report, [p]);
    const part = key ? readSection(report[key]) : undefined;
    if (part)
      out.push({ label: p, depth: 0 }, ...part.lines.map((l) => ({ ...l, depth: (l.depth ?? 0) + 1 })));
  }
  return out;
}

/** A part of a side the books name (`CurrentAssets`) and its total. */
function partTotal(report: Rec, names: readonly string[]): number | undefined {
  const key = keyOf(report, names);
  if (key === undefined) return undefined;
  const v = report[key];
  const read = readSection(v);
  return read ? sectionTotal(read) : undefined;
}

const KIND = ['Type', 'SubType', 'AccountType', 'AccountSubType', 'Category', 'Class', 'Group'];

/** Names of the accounts a report marks as bank or cash by their type, at any depth. */
function cashByType(value: unknown, out = new Set<string>(), depth = 0): Set<string> {
  if (depth > 8) return out;
  for (const r of Array.isArray(value) ? value : isRecord(value) ? Object.values(value) : []) {
    if (!isRecord(r)) {
      if (Array.isArray(r)) cashByType(r, out, depth + 1);
      continue;
    }
    const kind = str(r, KIND);
    const name = str(r, ['Name', 'AccountName', 'Account', 'Description', 'Label', 'Title']);
    if (name && kind && /\b(bank|cash|bank ?account)\b/i.test(kind.replace(/_/g, ' '))) out.add(name);
    cashByType(r, out, depth + 1);
  }
  return out;
}

/** A balance sheet's cash and bank accounts and current assets and liabilities; undefined when it is none. */
export function readBalanceSheet(result: unknown): BalanceRead | undefined {
  const report = payload(result);
  if (!isRecord(report)) return undefined;
  const [assetSide, liabilitySide] = SIDES;
  const assets = sideLines(report, assetSide);
  const liabilities = sideLines(report, liabilitySide);
  if (assets.length === 0) return undefined;
  const counted = { current: [] as string[], nonCurrent: [] as string[] };
  const typed = cashByType(report);
  const accounts = leaves(assets)
    .filter((l) => typed.has(l.label) || (CASH_NAME.test(l.label) && !NOT_CASH.test(l.label)))
    .map((l) => ({ name: l.label, balance: l.amount as number }));
  const classify = (lines: Line[], nonCurrent: RegExp) => {
    let total = 0;
    for (const l of lines.filter((x) => !x.depth && x.amount !== undefined)) {
      if (nonCurrent.test(l.label)) counted.nonCurrent.push(l.label);
      else {
        counted.current.push(l.label);
        total += cents(l.amount as number);
      }
    }
    return total / 100;
  };
  const currentAssets =
    partTotal(report, ['CurrentAssets', 'TotalCurrentAssets']) ?? classify(assets, NON_CURRENT_ASSET);
  const currentLiabilities =
    partTotal(report, ['CurrentLiabilities', 'TotalCurrentLiabilities']) ??
    (liabilities.length ? classify(liabilities, NON_CURRENT_LIABILITY) : undefined);
  const asOf = day(report, ['AsOfDate', 'AsAt', 'AsOf', 'ReportDate', 'Date', 'ToDate']);
  return {
    accounts,
    currentAssets,
    ...(currentLiabilities !== undefined ? { currentLiabilities } : {}),
    counted,
    ...(asOf ? { asOf } : {}),
  };
}

// ── GST and cash flow ───────────────────────────────────────────────────────

/** A side of a GST summary: its total tax, or the sum of its parts (CGST, SGST, IGST, cess). */
function taxSide(value: unknown): { total: number } | undefined {
  const given = side(value);
  if (given) return given;
  if (!isRecord(value)) return undefined;
  const parts = ['CGST', 'SGST', 'UTGST', 'IGST', 'Cess'].map((k) => num(value, [k]));
  if (parts.every((p) => p === undefined)) return undefined;
  return { total: parts.reduce<number>((s, p) => s + cents(p ?? 0), 0) / 100 };
}

/** A GST summary's output tax, input tax credit and net payable (output less input). */
export function readGst(
  result: unknown,
): { output: number; input: number; net: number; netGiven: boolean } | undefined {
  const report = payload(result);
  if (!isRecord(report)) return undefined;
  const output = pick(report, [...OUTPUT, 'TotalOutputTax', 'TotalOutputGST'], taxSide);
  const input = pick(report, [...INPUT, 'TotalInputTax', 'TotalInputTaxCredit', 'TotalITC'], taxSide);
  const given = num(report, [...GST_NET, 'GSTPayable', 'NetTaxLiability', 'NetGSTLiability']);
  if (!output || !input) return undefined;
  const net = given ?? (cents(output.total) - cents(input.total)) / 100;
  return { output: output.total, input: input.total, net, netGiven: given !== undefined };
}

/** Cash in and out over a cash flow statement's period (each line in or out); undefined when it is none. */
export function readCashFlow(result: unknown): { inflow: number; outflow: number } | undefined {
  const report = payload(result);
  if (!isRecord(report)) return undefined;
  let inflow = 0;
  let outflow = 0;
  let found = 0;
  for (const a of ACTIVITIES) {
    const key = keyOf(report, a.aliases);
    const read = key ? readSection(report[key]) : undefined;
    if (!read) continue;
    found++;
    const lines = leaves(read.lines);
    const amounts = lines.length
      ? lines.map((l) => l.amount as number)
      : read.total !== undefined
        ? [read.total]
        : [];
    for (const n of amounts)
      if (n >= 0) inflow += cents(n);
      else outflow -= cents(n);
  }
  return found ? { inflow: inflow / 100, outflow: outflow / 100 } : undefined;
}
