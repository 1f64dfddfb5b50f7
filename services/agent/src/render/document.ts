import { isRecord, parseToolName, singular } from '@munim/contracts';
import { currencyOf, type RenderInput } from './input.ts';
import { bold, heading, table } from './markdown.ts';
import { CONTACT_NAME_KEYS, keyOf, num, type Rec, records, text } from './shape.ts';
import { display, isIdKey, isTechnicalKey, statusOf } from './values.ts';
import { capitalise, label, nounOf } from './words.ts';

/** Document number fields, each naming its kind of document. */
// Notes and payments also carry the number of the invoice they concern: their own comes first.
export const NUMBER_KEYS = [
  'CreditNoteNumber',
  'DebitNoteNumber',
  'PaymentNumber',
  'JournalNumber',
  'InvoiceNumber',
  'BillNumber',
  'EstimateNumber',
  'QuoteNumber',
  'PurchaseOrderNumber',
  'SalesOrderNumber',
  'ChallanNumber',
  'DocNumber',
  'DocumentNumber',
];
export const CONTACT_KEYS = [...CONTACT_NAME_KEYS, 'CustomerRef', 'VendorRef', 'Customer', 'Vendor'];
const LINES = ['Lines', 'LineItems', 'Line', 'Items', 'Applications', 'Allocations', 'Payments'];
const HEADER = [
  ['Date', ['Date', 'TxnDate', 'InvoiceDate', 'IssueDate', 'PaymentDate']],
  ['Due date', ['DueDate']],
  ['Type', ['Type']],
  ['Mode', ['PaymentMode', 'PaymentMethod']],
  ['Account', ['AccountName', 'DepositToAccountRef', 'BankAccount']],
  ['Reference', ['Reference', 'ReferenceNumber', 'PONumber']],
  ['Against invoice', ['InvoiceNumber']],
  ['Reason', ['Reason']],
  ['Narration', ['Narration', 'Memo', 'PrivateNote']],
  ['Place of supply', ['PlaceOfSupply']],
  ['Sent to', ['SentTo', 'EmailedTo']],
  ['Notes', ['Notes', 'CustomerMemo']],
] as const;
const TOTALS = [
  ['Subtotal', ['SubTotal'], false],
  ['Discount', ['Discount', 'DiscountTotal'], false],
  ['CGST', ['CGST'], false],
  ['SGST', ['SGST', 'UTGST'], false],
  ['IGST', ['IGST'], false],
  ['Cess', ['Cess'], false],
  ['Tax', ['TotalTax', 'TaxTotal', 'TotalTaxAmount'], false],
  ['Total', ['Total', 'TotalAmt', 'TotalAmount', 'Amount'], true],
  ['Paid', ['AmountPaid', 'PaymentMade'], false],
  ['Credited', ['AmountCredited', 'CreditsApplied'], false],
  ['Unapplied', ['UnappliedAmount'], false],
  ['Amount due', ['AmountDue', 'BalanceDue', 'Balance'], true],
  ['Total debit', ['TotalDebit'], true],
  ['Total credit', ['TotalCredit'], true],
] as const;
const LINE_COLUMNS = [
  { label: 'Description', aliases: ['Description', 'ItemName', 'Name', 'ItemRef', 'Item'], money: false },
  { label: 'Account', aliases: ['AccountName', 'AccountRef'], money: false },
  { label: 'Document', aliases: ['InvoiceNumber', 'BillNumber', 'DocNumber'], money: false },
  { label: 'Qty', aliases: ['Quantity', 'Qty'], money: false },
  { label: 'Rate', aliases: ['UnitPrice', 'Rate', 'UnitAmount', 'Price'], money: true },
  { label: 'Tax %', aliases: ['TaxRate', 'TaxPercentage', 'TaxPercent'], money: false },
  { label: 'Debit', aliases: ['DebitAmount', 'Debit'], money: true },
  { label: 'Credit', aliases: ['CreditAmount', 'Credit'], money: true },
  { label: 'Amount', aliases: ['LineAmount', 'ItemTotal', 'LineTotal', 'Amount'], money: true },
];

/** A line with its detail objects (QuickBooks' `SalesItemLineDetail`) merged in, for lookups. */
const flat = (line: Rec): Rec =>
  Object.assign({}, ...Object.values(line).filter((v) => isRecord(v) && !text(v)), line);

/** The one document a result holds, and the word for its kind; undefined for anything else. */
function documentOf(input: RenderInput): { doc: Rec; kind: string; numberKey: string } | undefined {
  let doc: unknown = input.result;
  const list = isRecord(doc) ? Object.values(doc).filter(Array.isArray) : [];
  // `{ Invoices: [one] }` from a read of one record (Xero) is that record.
  const nouns = parseToolName(input.tool).nouns;
  const oneRead = nouns.length > 0 && singular(nouns.at(-1) ?? '') === nouns.at(-1);
  if (oneRead && isRecord(doc) && !keyOf(doc, NUMBER_KEYS) && list.length === 1 && list[0]?.length === 1)
    doc = list[0][0];
  if (!isRecord(doc)) return undefined;
  const numberKey = keyOf(doc, NUMBER_KEYS);
  if (!numberKey || !text(doc[numberKey])) return undefined;
  if (!keyOf(doc, LINES) && num(doc, ['Total', 'TotalAmt', 'Amount', 'AmountDue']) === undefined)
    return undefined;
  const named = label(numberKey).replace(/ #$/, '');
  const kind =
    named !== 'Number'
      ? named
      : input.under
        ? capitalise(nounOf(input.under).one)
        : capitalise(nouns.map(singular).join(' ') || 'document');
  return { doc, kind, numberKey };
}

/** One invoice, bill, credit note, payment or journal: its details, its lines and its totals. */
export function renderDocument(input: RenderInput): string | undefined {
  const found = documentOf(input);
  if (!found) return undefined;
  const { doc, kind, numberKey } = found;
  const { fmt } = input;
  const currency = currencyOf(doc, fmt);
  const money = (n: number) => fmt.money(n, currency);
  const used = new Set<string>([numberKey]);
  const take = (aliases: readonly string[]) => {
    const key = keyOf(doc, aliases);
    if (key) used.add(key);
    return key;
  };
  const contactKey = take(CONTACT_KEYS);
  const contact = contactKey ? text(doc[contactKey]) : undefined;
  const out = [heading(`${kind} ${text(doc[numberKey])}${contact ? ` — ${contact}` : ''}`, [currency])];

  const details: string[] = [];
  for (const [name, aliases] of HEADER) {
    const key = take(aliases);
    if (!key || key === numberKey) continue;
    const shown = display(key, doc[key], fmt, currency);
    if (shown) details.push(`- ${name}: ${shown}`);
  }
  const status = statusOf(doc);
  for (const k of ['Status', 'PaymentStatus', 'IsOverdue', 'DaysOverdue']) take([k]);
  if (status)
    details.push(
      `- Status: ${status}${(num(doc, ['DaysOverdue']) ?? 0) > 0 ? `, ${num(doc, ['DaysOverdue'])} days overdue` : ''}`,
    );
  const totals = TOTALS.flatMap(([name, aliases, always]) => {
    const key = take(aliases);
    const value = key ? num(doc, [key]) : undefined;
    return value !== undefined && (always || value !== 0) ? [[name, value] as const] : [];
  });
  // Fields of the document this renderer does not know, so nothing the books said is lost.
  for (const [key, value] of Object.entries(doc)) {
    if (used.has(key) || isIdKey(key, [value]) || isTechnicalKey(key) || typeof value === 'boolean') continue;
    if (value === null || typeof value === 'object' || /currency/i.test(key)) continue;
    details.push(`- ${label(key)}: ${display(key, value, fmt, currency)}`);
  }
  if (details.length) out.push(details.join('\n'));

  const linesKey = take(LINES);
  const lines = linesKey ? records(doc[linesKey])?.map(flat) : undefined;
  if (lines?.length) {
    const kept = lines.filter((l) => !/subtotal/i.test(String(l.DetailType ?? '')));
    const columns = LINE_COLUMNS.filter((c) =>
      kept.some((l) => keyOf(l, c.aliases) !== undefined && text(l[keyOf(l, c.aliases) as string])),
    );
    const rows = kept.map((l) =>
      columns.map((c) => {
        const key = keyOf(l, c.aliases);
        if (!key) return '';
        const n = num(l, [key]);
        // A journal line is a debit or a credit: the other side is left blank, as in a ledger.
        if (c.money && n !== undefined) return n === 0 && /Debit|Credit/.test(c.label) ? '' : money(n);
        if (c.label === 'Tax %' && n !== undefined) return `${fmt.number(n)}%`;
        return display(key, l[key], fmt, currency);
      }),
    );
    const title = /application|allocation|payment/i.test(linesKey ?? '') ? 'Applied to' : 'Lines';
    out.push(
      `**${title}**\n\n${table(
        columns.map((c) => c.label),
        rows,
        columns.map((c) => c.money),
      )}`,
    );
  }
  if (totals.length) {
    const strong = new Set(['Total', 'Amount due', 'Total debit', 'Total credit']);
    const rows = totals.map(([name, value]) =>
      strong.has(name) ? [bold(name), bold(money(value))] : [name, money(value)],
    );
    out.push(table(['', 'Amount'], rows, [false, true]));
  }
  return out.join('\n\n');
}
