import { isRecord, parseToolName } from '@munim/contracts';
import { CONTACT_KEYS, NUMBER_KEYS } from './document.ts';
import { currencyOf, type RenderInput } from './input.ts';
import type { Formats } from './locale.ts';
import { bold, heading, table } from './markdown.ts';
import { keyOf, norm, num, type Paging, paging, pick, type Rec, records, str, text } from './shape.ts';
import { sum } from './statement.ts';
import { display, isIdKey, isMoneyKey, isTechnicalKey, plainKeys, statusOf } from './values.ts';
import { capitalise, codeWords, count, label, nounOf } from './words.ts';

type Kind = 'text' | 'date' | 'money' | 'days' | 'code' | 'status' | 'applied';
interface Col {
  id: string;
  aliases: readonly string[];
  kind: Kind;
  label?: string;
  /** Money that adds up across records of one kind (not a rate or a price). */
  sums?: boolean;
}

/** The columns a finance reader expects, in order, for records of any accounting system. */
const COLUMNS: Col[] = [
  { id: 'number', aliases: NUMBER_KEYS, kind: 'text' },
  { id: 'code', aliases: ['Code', 'AccountCode'], kind: 'text', label: 'Code' },
  { id: 'name', aliases: ['Name', 'DisplayName', 'CompanyName'], kind: 'text', label: 'Name' },
  { id: 'contact', aliases: CONTACT_KEYS, kind: 'text' },
  {
    id: 'type',
    aliases: ['Type', 'ContactType', 'AccountType', 'TransactionType'],
    kind: 'code',
    label: 'Type',
  },
  { id: 'subtype', aliases: ['SubType', 'AccountSubType'], kind: 'code', label: 'Sub-type' },
  {
    id: 'date',
    aliases: ['Date', 'TxnDate', 'InvoiceDate', 'IssueDate', 'PaymentDate'],
    kind: 'date',
    label: 'Date',
  },
  { id: 'dueDate', aliases: ['DueDate'], kind: 'date', label: 'Due date' },
  { id: 'status', aliases: ['Status', 'PaymentStatus', 'InvoiceStatus'], kind: 'status', label: 'Status' },
  { id: 'mode', aliases: ['PaymentMode', 'PaymentMethod'], kind: 'code', label: 'Mode' },
  { id: 'account', aliases: ['AccountName'], kind: 'text', label: 'Account' },
  {
    id: 'applied',
    aliases: ['Applications', 'Allocations', 'LinkedTxn'],
    kind: 'applied',
    label: 'Applied to',
  },
  { id: 'against', aliases: ['InvoiceNumber'], kind: 'text', label: 'Against invoice' },
  { id: 'narration', aliases: ['Narration', 'Memo'], kind: 'text', label: 'Narration' },
  { id: 'reason', aliases: ['Reason'], kind: 'text', label: 'Reason' },
  { id: 'email', aliases: ['Email', 'EmailAddress'], kind: 'text', label: 'Email' },
  { id: 'phone', aliases: ['Phone', 'Mobile'], kind: 'text', label: 'Phone' },
  { id: 'city', aliases: ['City'], kind: 'text', label: 'City' },
  { id: 'gstin', aliases: ['GSTIN', 'TaxNumber', 'VATNumber'], kind: 'text' },
  { id: 'total', aliases: ['Total', 'TotalAmt', 'TotalAmount'], kind: 'money', label: 'Total', sums: true },
  { id: 'amount', aliases: ['Amount'], kind: 'money', label: 'Amount', sums: true },
  { id: 'paid', aliases: ['AmountPaid'], kind: 'money', label: 'Paid', sums: true },
  { id: 'due', aliases: ['AmountDue', 'BalanceDue'], kind: 'money', label: 'Amount due', sums: true },
  {
    id: 'balance',
    aliases: ['Balance', 'CurrentBalance', 'ClosingBalance'],
    kind: 'money',
    label: 'Balance',
    sums: true,
  },
  {
    id: 'outstanding',
    aliases: ['OutstandingBalance', 'Outstanding'],
    kind: 'money',
    label: 'Outstanding',
    sums: true,
  },
  { id: 'overdueBalance', aliases: ['OverdueBalance'], kind: 'money', label: 'Overdue', sums: true },
  { id: 'debit', aliases: ['TotalDebit', 'Debit'], kind: 'money', label: 'Debit', sums: true },
  { id: 'credit', aliases: ['TotalCredit', 'Credit'], kind: 'money', label: 'Credit', sums: true },
  { id: 'days', aliases: ['DaysOverdue', 'DaysPastDue'], kind: 'days', label: 'Days overdue' },
];

/** Fields that say what kind of record a row is: rows differing in one are not summed together. */
export const KIND_KEYS = [
  'Type',
  'ContactType',
  'AccountType',
  'TransactionType',
  'Direction',
  'CurrencyCode',
  'Currency',
];

/** The kind fields on which `rows` differ (payments received and paid, assets and liabilities). */
export function mixedKinds(rows: Rec[]): string[] {
  return KIND_KEYS.filter((k) => new Set(rows.map((r) => str(r, [k]) ?? '')).size > 1);
}

const SALES = /invoice|credit note|sale|estimate|quote|receivable|customer|receipt/;
const PURCHASES = /bill|purchase|expense|payable|vendor|supplier/;

/** Where a list stands among all the records, in words, with how to see the rest. */
export function pageNote(shown: number, p: Paging, noun: { one: string; many: string }): string {
  if (p.cutFrom !== undefined && p.cutFrom > shown)
    return `Showing the first ${shown} of ${p.cutFrom} ${noun.many}; the rest did not fit in one answer.`;
  const of =
    p.page && p.pages && p.pages > 1
      ? ` (page ${p.page} of ${p.pages})`
      : p.page && p.page > 1
        ? ` (page ${p.page})`
        : '';
  const more = p.hasMore === true || (p.page !== undefined && p.pages !== undefined && p.page < p.pages);
  if (p.total !== undefined && p.total !== shown) {
    const next = more ? ' Say "show more" for the next page.' : '';
    return `Showing ${shown} of ${p.total} ${noun.many}${of}.${next}`;
  }
  if (more) return `Showing ${count(shown, noun)}${of}; there are more. Say "show more" for the next page.`;
  return `${capitalise(count(shown, noun))}${of}.`;
}

/** "the 12 invoices" of a whole list, "the 50 invoices on this page" of one page of more. */
const scopeWords = (n: number, p: Paging, noun: { one: string; many: string }) =>
  `the ${count(n, noun)}${complete(n, p) ? '' : ' on this page'}`;

/** Whether the page holds every record there is. */
export const complete = (shown: number, p: Paging) =>
  !(p.cutFrom !== undefined && p.cutFrom > shown) &&
  p.hasMore !== true &&
  !(p.total !== undefined && p.total > shown) &&
  !(p.page !== undefined && p.pages !== undefined && p.page < p.pages) &&
  !(p.page !== undefined && p.page > 1);

function cellOf(col: Col, key: string, row: Rec, fmt: Formats, currency: string): string {
  const value = row[key];
  switch (col.kind) {
    case 'status':
      return statusOf(row) ?? '';
    case 'days': {
      const n = num(row, [key]);
      return n ? fmt.number(n) : '';
    }
    case 'money': {
      const n = num(row, [key]);
      return n === undefined ? '' : fmt.money(n, str(row, ['CurrencyCode']) ?? currency);
    }
    case 'applied':
      return (records(value) ?? [])
        .map((a) => str(a, NUMBER_KEYS) ?? str(a, ['TxnId']))
        .filter(Boolean)
        .join(', ');
    case 'code':
      return typeof value === 'string' ? codeWords(value) : (text(value) ?? '');
    default:
      return display(key, value, fmt, currency);
  }
}

/** The title of a list: its noun and what the call filtered it by ("Unpaid invoices"). */
function titleOf(noun: { one: string; many: string }, args: Rec): string {
  const status = str(args, ['Status', 'status', 'filter_by']);
  const type = str(args, ['Type', 'AccountType']);
  const many = noun.many;
  if (status && norm(status) === 'submitted') return `${capitalise(many)} awaiting approval`;
  if (status) return `${codeWords(status)} ${many}`;
  if (type) return `${codeWords(type)} ${many}`;
  return capitalise(many);
}

/** A list of records: a table of the columns that matter, its true count, page and how to see more. */
export function renderList(input: RenderInput): string | undefined {
  const { result, fmt, args } = input;
  const container: Rec = isRecord(result) ? result : { [input.under ?? 'Records']: result };
  const lists = Object.entries(container).flatMap(([k, v]) =>
    Array.isArray(v) && records(v)?.length === v.length ? [[k, v as Rec[]] as const] : [],
  );
  if (lists.length === 0) return undefined;
  const p = paging(container);
  const currency = currencyOf(container, fmt);
  const toolNoun = parseToolName(input.tool).nouns.join(' ');
  return lists
    .map(([key, all]) => {
      const noun = nounOf(
        /^(records|items|data|results)$/i.test(key) ? (input.under ?? (toolNoun || key)) : key,
      );
      let rows = all;
      const notes: string[] = [];
      const knowsOverdue = rows.some((r) => keyOf(r, ['DaysOverdue', 'IsOverdue']) !== undefined);
      if (input.overdue && knowsOverdue && !str(args, ['Status'])) {
        rows = all.filter((r) => r.IsOverdue === true || (num(r, ['DaysOverdue']) ?? 0) > 0);
        const rest = all.length - rows.length;
        const are = rest === 1 ? 'is' : 'are';
        if (rest > 0)
          notes.push(
            complete(all.length, p)
              ? `The other ${count(rest, noun)} ${are} not overdue.`
              : `${capitalise(count(rest, noun))} on this page ${are} not overdue.`,
          );
      }
      const title = input.overdue && rows !== all ? `Overdue ${noun.many}` : titleOf(noun, args);
      const period = fmt.period(
        pick(args, ['FromDate', 'from_date', 'StartDate'], (v) => v),
        pick(args, ['ToDate', 'to_date', 'EndDate'], (v) => v),
      );
      const search = str(args, ['Search', 'search_text', 'q']);
      const sub = [period, search ? `matching "${search}"` : undefined];
      if (all.length === 0) return `${heading(title, sub)}\n\nNo ${title.toLowerCase()} found.`;
      if (rows.length === 0)
        return `${heading(title, sub)}\n\nNone of ${scopeWords(all.length, p, noun)} is overdue.`;

      const cols = columnsFor(rows, noun);
      const body = rows.map((r) => cols.map(([c, k]) => cellOf(c, k, r, fmt, currency)));
      const right = cols.map(([c]) => c.kind === 'money' || c.kind === 'days');
      // A total row only where it is the total of everything, of records of one kind.
      if (
        complete(all.length, p) &&
        rows.length > 1 &&
        mixedKinds(rows).length === 0 &&
        cols.some(([c]) => c.sums)
      ) {
        body.push(
          cols.map(([c, k], i) =>
            i === 0
              ? bold('Total')
              : c.sums
                ? bold(fmt.money(sum(rows.map((r) => num(r, [k]) ?? 0)), currency))
                : '',
          ),
        );
      }
      const scalars = Object.entries(container).filter(
        ([k, v]) =>
          v !== null && typeof v !== 'object' && !isIdKey(k, [v]) && !isTechnicalKey(k) && !isPagingKey(k),
      );
      const extra = scalars.length
        ? `${scalars.map(([k, v]) => `- ${label(k)}: ${display(k, v, fmt, currency)}`).join('\n')}\n\n`
        : '';
      const tableText = cols.length
        ? table(
            cols.map(([c, k]) => headOf(c, k, noun)),
            body,
            right,
          )
        : '';
      return [
        heading(title, sub),
        `${extra}${tableText}`,
        [pageNote(all.length, p, noun), ...notes].join(' '),
      ].join('\n\n');
    })
    .join('\n\n');
}

const isPagingKey = (k: string) =>
  /^(page|pagesize|totalcount|totalpages|perpage|hasmorepage|hasmore|total|totalitems|shownitems|truncated|startposition|maxresults|currencycode|currency)$/.test(
    norm(k),
  );

function headOf(col: Col, key: string, noun: { one: string; many: string }): string {
  if (col.id === 'number') return label(key) === 'Number' ? `${capitalise(noun.one)} #` : label(key);
  if (col.id === 'contact') {
    const own = label(key);
    if (own !== 'Contact') return own.replace(/ ref$/i, '');
    return SALES.test(noun.many) ? 'Customer' : PURCHASES.test(noun.many) ? 'Vendor' : 'Contact';
  }
  return col.label ?? label(key);
}

/** The curated columns the rows have; for records of no known shape, every plain column. */
function columnsFor(rows: Rec[], noun: { one: string; many: string }): [Col, string][] {
  const has = (key: string) =>
    rows.some((r) => r[key] !== null && r[key] !== undefined && r[key] !== '' && r[key] !== false);
  const taken = new Set<string>();
  const cols: [Col, string][] = [];
  for (const col of COLUMNS) {
    const key = rows.map((r) => keyOf(r, col.aliases)).find((k) => k !== undefined && has(k));
    if (!key || taken.has(key)) continue;
    // A column of days overdue in which nothing is overdue says nothing.
    if (col.kind === 'days' && !rows.some((r) => (num(r, [key]) ?? 0) > 0)) continue;
    if (col.kind === 'status') for (const k of ['Status', 'PaymentStatus', 'InvoiceStatus']) taken.add(k);
    // Every record of the same type: the title says it already.
    if (col.id === 'type' && mixedKinds(rows).length === 0 && rows.length > 1 && !/account/.test(noun.many))
      continue;
    taken.add(key);
    cols.push([col, key]);
  }
  if (cols.length >= 2) return cols;
  const keys = plainKeys(rows);
  return keys.map((k) => [
    {
      id: k,
      aliases: [k],
      kind:
        isMoneyKey(k) && rows.some((r) => typeof r[k] === 'number')
          ? 'money'
          : /status|type|mode/i.test(k)
            ? 'code'
            : 'text',
      label: label(k),
    },
    k,
  ]);
}
