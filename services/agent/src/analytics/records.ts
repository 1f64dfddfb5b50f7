/**
 * Documents and payments of the books, read by meaning: invoice and bill lists and aged reports as
 * open documents (party, number, due date, amount due) and settlements, payment lists as movements.
 */

import { isRecord } from '@munim/contracts';
import type { Movement, OpenDoc, Settlement } from '@munim/finance';
import { bucketOf, bucketsOf, CONTACT, DAYS, DOC_NUMBER, DUE } from '../render/aging.ts';
import { CONTACT_KEYS, NUMBER_KEYS } from '../render/document.ts';
import { complete } from '../render/list.ts';
import { keyOf, num, paging, pick, type Rec, records, str } from '../render/shape.ts';
import { dayOf, payload } from './inputs.ts';

const day = (obj: Rec, aliases: readonly string[]) => pick(obj, aliases, dayOf);
const cents = (n: number) => Math.round(n * 100);

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
  'IssuedOn',
  'DocDate',
  'TransactionDate',
];
const DUE_DATE = ['DueDate', 'PaymentDueDate', 'DueOn', 'DateDue', 'DueBy'];
const TOTAL = [
  'Total',
  'TotalAmt',
  'TotalAmount',
  'GrandTotal',
  'InvoiceTotal',
  'BillTotal',
  'InvoiceAmount',
  'BillAmount',
  'Amount',
];
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
  'DueAmount',
  'AmountUnpaid',
  'PendingAmount',
  'OpenAmount',
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
  'BuyerName',
  'Buyer',
  'SellerName',
  'Seller',
  'CounterpartyName',
  'Counterparty',
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
const NUMBER = [
  ...NUMBER_KEYS,
  ...DOC_NUMBER,
  'Number',
  'No',
  'InvoiceNo',
  'BillNo',
  'DocNo',
  'VoucherNumber',
  'VoucherNo',
  'RefNumber',
];
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

const PAY_DATE = [
  'Date',
  'PaymentDate',
  'TxnDate',
  'TransactionDate',
  'ValueDate',
  'PaidOn',
  'ReceivedOn',
  'DateReceived',
];
const PAY_AMOUNT = ['Amount', 'TotalAmt', 'TotalAmount', 'PaymentAmount', 'AmountPaid', 'Total'];
const DIRECTION = ['Type', 'Direction', 'PaymentType', 'TransactionType', 'Kind', 'Flow'];
const IN =
  /^(receive|received|receipt|in|inflow|incoming|customer ?payment|deposit|credit|money ?in|sales ?payment|payment ?received|inbound|receivable|sale|sales|accrecpayment|arpayment)$/i;
const OUT =
  /^(spend|spent|paid|out|outflow|outgoing|vendor ?payment|bill ?payment|supplier ?payment|debit|money ?out|expense|payment ?made|purchase ?payment|outbound|payable|purchase|purchases|accpaypayment|appayment)$/i;
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
