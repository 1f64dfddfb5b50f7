import { singular } from '@munim/contracts';
import { norm } from './shape.ts';

/** Field names in the words a finance reader uses, by normalised key (any naming style). */
const LABELS: Record<string, string> = {
  invoicenumber: 'Invoice #',
  billnumber: 'Bill #',
  paymentnumber: 'Payment #',
  creditnotenumber: 'Credit note #',
  journalnumber: 'Journal #',
  docnumber: 'Number',
  documentnumber: 'Number',
  contactname: 'Contact',
  customername: 'Customer',
  vendorname: 'Vendor',
  suppliername: 'Supplier',
  accountname: 'Account',
  txndate: 'Date',
  invoicedate: 'Date',
  issuedate: 'Date',
  duedate: 'Due date',
  paymentstatus: 'Payment',
  subtotal: 'Subtotal',
  totaltax: 'Tax',
  totalamt: 'Total',
  amountpaid: 'Paid',
  amountcredited: 'Credited',
  amountdue: 'Amount due',
  balancedue: 'Amount due',
  daysoverdue: 'Days overdue',
  outstandingbalance: 'Outstanding',
  overduebalance: 'Overdue',
  unappliedamount: 'Unapplied',
  totaldebit: 'Debit',
  totalcredit: 'Credit',
  debitamount: 'Debit',
  creditamount: 'Credit',
  paymentmode: 'Mode',
  paymenttermsdays: 'Terms (days)',
  placeofsupply: 'Place of supply',
  contacttype: 'Type',
  subtype: 'Sub-type',
  currencycode: 'Currency',
  taxrate: 'Tax %',
  unitprice: 'Rate',
  lineamount: 'Amount',
  taxamount: 'Tax',
  outputtax: 'Output tax',
  inputtax: 'Input tax',
  inputtaxcredit: 'Input tax credit',
  nettax: 'Net tax',
  netgstpayable: 'Net GST payable',
  taxablevalue: 'Taxable value',
  sentto: 'Sent to',
  senttocontact: 'Sent',
};

const ACRONYMS = new Set([
  'gst',
  'gstin',
  'pan',
  'cgst',
  'sgst',
  'igst',
  'utgst',
  'vat',
  'tds',
  'tcs',
  'itc',
  'hsn',
  'sac',
  'upi',
  'neft',
  'rtgs',
  'imps',
  'ifsc',
  'fy',
  'po',
  'ar',
  'ap',
]);

/** "AmountDue", "amount_due", "amountDue" → ["amount", "due"]. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-zA-Z])(\d)/g, '$1 $2')
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

function sentence(words: string[]): string {
  const text = words.map((w) => (ACRONYMS.has(w) ? w.toUpperCase() : w)).join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A column or field label in words. */
export function label(key: string): string {
  return LABELS[norm(key)] ?? sentence(keyWords(key));
}

/** Codes of accounting systems in words, by normalised code. */
const CODES: Record<string, string> = {
  authorised: 'Approved',
  authorized: 'Approved',
  submitted: 'Awaiting approval',
  draft: 'Draft',
  paid: 'Paid',
  unpaid: 'Unpaid',
  partiallypaid: 'Partly paid',
  partpaid: 'Partly paid',
  overdue: 'Overdue',
  voided: 'Void',
  void: 'Void',
  deleted: 'Deleted',
  sent: 'Sent',
  open: 'Open',
  closed: 'Closed',
  active: 'Active',
  inactive: 'Inactive',
  posted: 'Posted',
  receive: 'Received',
  received: 'Received',
  spend: 'Paid out',
  customer: 'Customer',
  vendor: 'Vendor',
  supplier: 'Supplier',
  asset: 'Asset',
  liability: 'Liability',
  equity: 'Equity',
  revenue: 'Revenue',
  income: 'Income',
  expense: 'Expense',
  costofsales: 'Cost of sales',
  operating: 'Operating',
  fixedasset: 'Fixed asset',
  otherincome: 'Other income',
  retainedearnings: 'Retained earnings',
  cheque: 'Cheque',
  banktransfer: 'Bank transfer',
  current: 'Current',
  days1to30: '1–30 days',
  days31to60: '31–60 days',
  days61to90: '61–90 days',
  over90days: 'Over 90 days',
};

/** A status or type code in words: AUTHORISED → Approved, PARTIALLY_PAID → Partly paid, UPI → UPI. */
export function codeWords(value: string): string {
  const known = CODES[norm(value)];
  if (known) return known;
  if (ACRONYMS.has(value.toLowerCase())) return value.toUpperCase();
  if (/^[A-Z0-9_ -]+$/.test(value) || /^[a-z0-9]+(_[a-z0-9]+)+$/.test(value))
    return sentence(value.toLowerCase().split(/[_\s-]+/));
  return value;
}

/** Keys whose values are codes of a closed list (statuses, types, modes), not free text. */
export const CODE_KEY = /status|type|mode|kind|class|category|bucket|method/i;

/** A noun for records held under `key` ("CreditNotes" → credit notes / credit note). */
export function nounOf(key: string): { one: string; many: string } {
  const words = keyWords(key).filter((w) => !['all', 'list', 'get', 'items', 'data', 'results'].includes(w));
  if (words.length === 0) return { one: 'record', many: 'records' };
  const last = words.at(-1) ?? '';
  const one = [...words.slice(0, -1), singular(last)].join(' ');
  const many = [...words.slice(0, -1), singular(last) === last ? `${last}s` : last].join(' ');
  return { one, many };
}

/** "3 invoices", "1 invoice". */
export function count(n: number, noun: { one: string; many: string }): string {
  return `${n} ${n === 1 ? noun.one : noun.many}`;
}

export function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
