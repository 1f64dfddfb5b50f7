/**
 * The books' reports and lists, read by meaning into the inputs of `@munim/finance`: whatever a
 * server calls its fields (any naming style, any envelope), a result becomes profit and loss lines,
 * cash accounts, open documents, settlements, movements or GST figures — or undefined when it
 * cannot be read as that, so an answer is declined rather than guessed.
 */
import { isRecord } from '@munim/contracts';
import type { CashAccount, Movement, OpenDoc, PnlLine, PnlSection, Settlement } from '@munim/finance';
import { bucketOf, bucketsOf, CONTACT, DAYS, DOC_NUMBER, DUE } from '../render/aging.ts';
import { SIDES } from '../render/balance-sheet.ts';
import { ACTIVITIES } from '../render/cash-flow.ts';
import { CONTACT_KEYS, NUMBER_KEYS } from '../render/document.ts';
import { NET as GST_NET, INPUT, OUTPUT, side } from '../render/gst.ts';
import { complete } from '../render/list.ts';
import { NET, PARTS } from '../render/pnl.ts';
import { keyOf, num, paging, pick, type Rec, records, str, unwrap } from '../render/shape.ts';
import { type Line, readSection, sectionTotal } from '../render/statement.ts';
import { fromRowLayout } from './row-layout.ts';

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
  return fromRowLayout(inner) ?? inner;
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
  /receivable|payable|gst|tax|tds|loan|overdraft facility|deposit with|equivalents?$|charges|clearing|undeposited/i;
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

/** A balance sheet's cash and bank accounts and current assets and liabilities; undefined when it is none. */
export function readBalanceSheet(result: unknown): BalanceRead | undefined {
  const report = payload(result);
  if (!isRecord(report)) return undefined;
  const [assetSide, liabilitySide] = SIDES;
  const assets = sideLines(report, assetSide);
  const liabilities = sideLines(report, liabilitySide);
  if (assets.length === 0) return undefined;
  const counted = { current: [] as string[], nonCurrent: [] as string[] };
  const accounts = leaves(assets)
    .filter((l) => CASH_NAME.test(l.label) && !NOT_CASH.test(l.label))
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

// ── documents ───────────────────────────────────────────────────────────────

const DATE = [
  'Date',
  'TxnDate',
  'InvoiceDate',
  'BillDate',
  'IssueDate',
  'DocumentDate',
  'IssuedDate',
  'DateIssued',
];
const DUE_DATE = ['DueDate', 'PaymentDueDate', 'DueOn', 'DateDue'];
const TOTAL = ['Total', 'TotalAmt', 'TotalAmount', 'GrandTotal', 'InvoiceTotal', 'BillTotal', 'Amount'];
const NET_OF_TAX = [
  'SubTotal',
  'Subtotal',
  'TaxableAmount',
  'TaxableValue',
  'NetAmount',
  'TotalExcludingTax',
  'AmountExcludingTax',
];
const OUTSTANDING = [
  ...DUE,
  'AmountOutstanding',
  'UnpaidAmount',
  'OpenBalance',
  'Remaining',
  'AmountRemaining',
  'BalanceAmount',
];
const PAID = ['AmountPaid', 'PaidAmount', 'Paid', 'TotalPaid'];
const PAID_DATE = [
  'PaidDate',
  'FullyPaidOnDate',
  'DatePaid',
  'PaidOn',
  'SettledDate',
  'LastPaymentDate',
  'PaymentDate',
];
const STATUS = ['Status', 'InvoiceStatus', 'BillStatus', 'DocumentStatus', 'State'];
const PARTY = [
  ...CONTACT_KEYS,
  ...CONTACT,
  'SupplierName',
  'Supplier',
  'Party',
  'PartyName',
  'Client',
  'ClientName',
  'BillTo',
  'Payee',
];
const NUMBER = [...NUMBER_KEYS, ...DOC_NUMBER, 'Number', 'No', 'InvoiceNo', 'BillNo', 'RefNumber'];
const ID = ['InvoiceId', 'BillId', 'DocumentId', 'Id', 'ID', 'TxnId', 'Uuid'];

const DEAD = /^(draft|void|voided|deleted|cancel+ed|submitted|pending ?approval|awaiting ?approval)$/i;
const PAID_STATUS = /^(paid|closed|settled|fully ?paid)$/i;

/** The records of a list or report: the first array of records it holds. */
export function rowsIn(result: unknown, wanted?: (rows: Rec[]) => boolean): Rec[] | undefined {
  const value = payload(result);
  const direct = records(value);
  if (direct) return direct;
  if (!isRecord(value)) return undefined;
  for (const v of Object.values(value)) {
    const rows = records(v);
    if (rows && Array.isArray(v) && rows.length === v.length && (!wanted || wanted(rows))) return rows;
  }
  return undefined;
}

/** Whether a list result holds every record there is (not one page of more). */
export function isComplete(result: unknown): boolean {
  const value = payload(result);
  const rows = rowsIn(value);
  return !isRecord(value) || !rows || complete(rows.length, paging(value));
}

/** One document read: what it is and what it says of its payment. */
interface DocRead {
  doc: OpenDoc;
  status?: string;
  ids: string[];
  paidDate?: string;
}

function readDoc(row: Rec, kind: 'invoice' | 'bill', asOf: string | undefined): DocRead | undefined {
  const party = str(row, PARTY);
  if (!party) return undefined;
  const total = num(row, TOTAL);
  const paid = num(row, PAID);
  const due =
    num(row, OUTSTANDING) ??
    (total !== undefined && paid !== undefined ? (cents(total) - cents(paid)) / 100 : undefined);
  if (due === undefined) return undefined;
  const days = num(row, DAYS);
  let dueDate = day(row, DUE_DATE);
  if (!dueDate && days !== undefined && asOf)
    dueDate = new Date(Date.parse(asOf) - days * 86_400_000).toISOString().slice(0, 10);
  const date = day(row, DATE) ?? dueDate ?? asOf;
  if (!date) return undefined;
  const number = str(row, NUMBER);
  const status = str(row, STATUS);
  const ids = [number, ...ID.map((k) => str(row, [k]))].filter((x): x is string => !!x);
  const paidDate = day(row, PAID_DATE);
  return {
    doc: {
      kind,
      party,
      date,
      ...(dueDate ? { dueDate } : {}),
      total: total ?? due,
      due,
      ...(number ? { number } : {}),
    },
    ...(status ? { status } : {}),
    ids,
    ...(paidDate ? { paidDate } : {}),
  };
}

const isDocRows = (rows: Rec[]) =>
  rows.length > 0 && rows.every((r) => str(r, PARTY) && num(r, OUTSTANDING) !== undefined);

/**
 * An aged receivables or payables report as open documents: its documents when it lists them,
 * else one document per party and age column (due that many days before the report's date).
 */
export function readAging(result: unknown, kind: 'invoice' | 'bill', today: string): OpenDoc[] | undefined {
  const report = payload(result);
  if (!isRecord(report) && !records(report)) return undefined;
  const asOf =
    (isRecord(report) ? day(report, ['AsOfDate', 'AsAt', 'AsOf', 'ReportDate', 'Date']) : undefined) ?? today;
  const docs = rowsIn(report, isDocRows);
  if (docs) {
    const read = docs.map((r) => readDoc(r, kind, asOf));
    return read.every((r) => r !== undefined) ? read.map((r) => (r as DocRead).doc) : undefined;
  }
  const byParty = rowsIn(report, (rows) => rows.length > 0 && rows.every((r) => bucketsOf(r).length >= 2));
  if (!byParty) {
    // A report whose lists are all empty: nothing is open.
    const lists = isRecord(report) ? Object.values(report).filter(Array.isArray) : [report];
    return lists.length > 0 && lists.every((l) => Array.isArray(l) && l.length === 0) ? [] : undefined;
  }
  const out: OpenDoc[] = [];
  for (const row of byParty) {
    const party = str(row, PARTY);
    if (!party) return undefined;
    for (const key of Object.keys(row)) {
      const bucket = bucketOf(key);
      const amount = bucket ? num(row, [key]) : undefined;
      if (!bucket || !amount) continue;
      const dueDate = new Date(Date.parse(asOf) - bucket.from * 86_400_000).toISOString().slice(0, 10);
      out.push({ kind, party, date: dueDate, dueDate, total: amount, due: amount });
    }
  }
  return out;
}

/** What an invoice or bill list gives: its open documents and the ones paid in full. */
export interface DocumentsRead {
  open: OpenDoc[];
  paid: { doc: OpenDoc; ids: string[]; paidDate?: string }[];
  /** Every live document (not draft or void), for sales of a period. */
  all: { doc: OpenDoc; net?: number }[];
}

/** An invoice or bill list; undefined when its records are not documents. */
export function readDocuments(
  result: unknown,
  kind: 'invoice' | 'bill',
  today: string,
): DocumentsRead | undefined {
  const rows = rowsIn(result);
  if (!rows) return undefined;
  const out: DocumentsRead = { open: [], paid: [], all: [] };
  for (const row of rows) {
    const read = readDoc(row, kind, today);
    if (!read) return undefined;
    if (read.status && DEAD.test(read.status.replace(/_/g, ' '))) continue;
    const net = num(row, NET_OF_TAX);
    out.all.push({ doc: read.doc, ...(net !== undefined ? { net } : {}) });
    if (cents(read.doc.due) > 0 && !(read.status && PAID_STATUS.test(read.status))) out.open.push(read.doc);
    else if (cents(read.doc.due) <= 0)
      out.paid.push({ doc: read.doc, ids: read.ids, ...(read.paidDate ? { paidDate: read.paidDate } : {}) });
  }
  return out;
}

// ── payments ────────────────────────────────────────────────────────────────

const PAY_DATE = ['Date', 'PaymentDate', 'TxnDate', 'TransactionDate', 'ValueDate'];
const PAY_AMOUNT = ['Amount', 'TotalAmt', 'TotalAmount', 'PaymentAmount', 'AmountPaid', 'Total'];
const DIRECTION = ['Type', 'Direction', 'PaymentType', 'TransactionType', 'Kind', 'Flow'];
const IN =
  /^(receive|received|receipt|in|inflow|incoming|customer ?payment|deposit|credit|money ?in|sales ?payment|payment ?received)$/i;
const OUT =
  /^(spend|spent|paid|out|outflow|outgoing|vendor ?payment|bill ?payment|supplier ?payment|debit|money ?out|expense|payment ?made|purchase ?payment)$/i;
const APPLIED = ['Applications', 'Allocations', 'LinkedTxn', 'AppliedTo', 'Invoices', 'Bills', 'Lines'];

const FROM_CUSTOMER = ['CustomerName', 'Customer', 'CustomerRef', 'CustomerId', 'InvoiceNumber', 'InvoiceId'];
const TO_VENDOR = [
  'VendorName',
  'Vendor',
  'VendorRef',
  'VendorId',
  'SupplierName',
  'Supplier',
  'BillNumber',
  'BillId',
];

/** Money in (+1) from a customer or out (−1) to a vendor, by whom a payment names; 0 when it names neither. */
function sideOf(row: Rec, applied: Rec[]): number {
  const names = (r: Rec, keys: string[]) => keyOf(r, keys) !== undefined;
  const inward = names(row, FROM_CUSTOMER) || applied.some((a) => names(a, ['InvoiceNumber', 'InvoiceId']));
  const outward = names(row, TO_VENDOR) || applied.some((a) => names(a, ['BillNumber', 'BillId']));
  return inward === outward ? 0 : inward ? 1 : -1;
}

/** A payment read: its movement, and the documents it settles (by number or id). */
export interface PaymentRead {
  movement: Movement;
  settles: string[];
}

/** A payments list as movements (in +, out −); undefined when a payment's direction cannot be told. */
export function readPayments(result: unknown): PaymentRead[] | undefined {
  const rows = rowsIn(result);
  if (!rows) return undefined;
  const out: PaymentRead[] = [];
  for (const row of rows) {
    const status = str(row, STATUS);
    if (status && /^(void|voided|deleted|cancel+ed|failed|bounced)$/i.test(status)) continue;
    const date = day(row, PAY_DATE);
    const amount = num(row, PAY_AMOUNT);
    if (!date || amount === undefined) return undefined;
    const direction = str(row, DIRECTION)?.replace(/_/g, ' ');
    const applied = pick(row, APPLIED, (v) => records(v)) ?? [];
    const sign =
      amount < 0
        ? -1
        : direction && IN.test(direction)
          ? 1
          : direction && OUT.test(direction)
            ? -1
            : sideOf(row, applied);
    if (sign === 0) return undefined;
    const party = str(row, PARTY);
    const account = str(row, ['AccountName', 'BankAccount', 'Account', 'DepositToAccountRef']);
    const category = str(row, ['Category', 'ExpenseCategory', 'ExpenseAccount']);
    const settles = applied.flatMap((a) =>
      [str(a, NUMBER), ...ID.map((k) => str(a, [k]))].filter((x): x is string => !!x),
    );
    out.push({
      movement: {
        date,
        amount: sign * Math.abs(amount),
        ...(party ? { party } : {}),
        ...(account ? { account } : {}),
        ...(category ? { category } : {}),
      },
      settles,
    });
  }
  return out;
}

/** Documents paid in full, with the day the last payment against them was made. */
export function settlementsOf(paid: DocumentsRead['paid'], payments: readonly PaymentRead[]): Settlement[] {
  const last = new Map<string, string>();
  for (const p of payments)
    for (const ref of p.settles) if ((last.get(ref) ?? '') < p.movement.date) last.set(ref, p.movement.date);
  return paid.flatMap(({ doc, ids, paidDate }) => {
    const when =
      paidDate ??
      ids
        .map((id) => last.get(id))
        .filter((d): d is string => !!d)
        .sort()
        .at(-1);
    if (!when) return [];
    return [
      {
        kind: doc.kind,
        party: doc.party,
        date: doc.date,
        ...(doc.dueDate ? { dueDate: doc.dueDate } : {}),
        paidDate: when,
        amount: doc.total,
      },
    ];
  });
}

// ── GST and cash flow ───────────────────────────────────────────────────────

/** A GST summary's output tax, input tax credit and net payable (output less input). */
export function readGst(
  result: unknown,
): { output: number; input: number; net: number; netGiven: boolean } | undefined {
  const report = payload(result);
  if (!isRecord(report)) return undefined;
  const output = pick(report, OUTPUT, side);
  const input = pick(report, INPUT, side);
  const given = num(report, GST_NET);
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
