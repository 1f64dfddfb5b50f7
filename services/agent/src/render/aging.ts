import { isRecord } from '@munim/contracts';
import { companyOf, coverage, currencyOf, hint, type RenderInput } from './input.ts';
import { parseDate } from './locale.ts';
import { bold, heading, table } from './markdown.ts';
import { CONTACT_NAME_KEYS, num, pick, type Rec, records, str } from './shape.ts';
import { sum } from './statement.ts';
import { count, keyWords } from './words.ts';

/** An aging column: days overdue from `from` to `to` (0–0 is not yet due). */
interface Bucket {
  key: string;
  from: number;
  to: number;
  label: string;
}

/** "Current", "Days1To30", "1-30", "31_60", "Over90Days", "91+", "older" → a bucket. */
export function bucketOf(key: string): Bucket | undefined {
  const w = keyWords(key);
  if (w.includes('current') || (w.includes('not') && w.includes('due')))
    return { key, from: 0, to: 0, label: 'Current' };
  const nums = w.filter((x) => /^\d+$/.test(x)).map(Number);
  if (nums.length === 2 && nums[0]! < nums[1]!)
    return { key, from: nums[0]!, to: nums[1]!, label: `${nums[0]}–${nums[1]} days` };
  const openAt = w.findIndex((x) => ['over', 'above', 'older', 'plus', 'more', 'gt', 'greater'].includes(x));
  if (nums.length === 1 && (openAt >= 0 || key.endsWith('+'))) {
    // "Over 90" starts after 90; "91 and over" and "91+" start at 91.
    const after = openAt >= 0 && openAt < w.indexOf(String(nums[0])) ? nums[0]! : nums[0]! - 1;
    return { key, from: after + 1, to: Number.POSITIVE_INFINITY, label: `Over ${after} days` };
  }
  return undefined;
}

export const bucketsOf = (row: Rec) =>
  Object.keys(row).flatMap((k) => (bucketOf(k) ? [bucketOf(k) as Bucket] : []));

export const DOC_NUMBER = [
  'InvoiceNumber',
  'BillNumber',
  'DocNumber',
  'DocumentNumber',
  'Number',
  'Reference',
];
export const CONTACT = [...CONTACT_NAME_KEYS, 'Customer', 'Vendor', 'Name'];
export const DUE = ['AmountDue', 'BalanceDue', 'Balance', 'Outstanding', 'OutstandingAmount', 'Due'];
export const DAYS = ['DaysOverdue', 'DaysPastDue', 'Overdue Days', 'Age', 'AgeDays'];

/** Days a document is overdue: as the books say, else from its due date to the report's date. */
function daysOverdue(doc: Rec, asOf: Date | undefined): number | undefined {
  const given = num(doc, DAYS);
  if (given !== undefined) return given;
  const due = parseDate(pick(doc, ['DueDate', 'due_date'], (v) => v))?.date.getTime();
  if (due === undefined || !asOf) return undefined;
  return Math.max(0, Math.floor((asOf.getTime() - due) / 86_400_000));
}

/** Aged receivables or payables: amounts by contact and age, and the documents that are overdue. */
export function renderAging(input: RenderInput): string | undefined {
  const { result, fmt } = input;
  if (!isRecord(result)) return undefined;
  const arrays = Object.entries(result).flatMap(([k, v]) =>
    records(v)?.length ? [[k, records(v) as Rec[]] as const] : [],
  );
  const byContact = arrays.find(([, rows]) => rows.every((r) => bucketsOf(r).length >= 3));
  const totalsRow = pick(result, ['Totals', 'Total', 'Summary', 'GrandTotal'], (v) =>
    isRecord(v) && bucketsOf(v).length >= 3 ? v : undefined,
  );
  const docs = arrays.find(([, rows]) => rows.every((r) => str(r, DOC_NUMBER) && num(r, DUE) !== undefined));
  if (!byContact && !totalsRow) return undefined;

  const words = hint(input);
  const payable = /payable|\bap\b|bill|vendor|supplier/.test(`${words} ${docs?.[0] ?? ''}`);
  const [party, doc] = payable
    ? ['Vendor', { one: 'bill', many: 'bills' }]
    : ['Customer', { one: 'invoice', many: 'invoices' }];
  const currency = currencyOf(result, fmt);
  const money = (n: number | undefined) => (n ? fmt.money(n, currency) : '');
  const report = payable ? 'Aged payables' : 'Aged receivables';
  const sub = [companyOf(result, fmt), coverage(result, fmt), currency];

  const sections: string[] = [];
  const buckets = [
    ...new Map(bucketsOf(byContact?.[1][0] ?? totalsRow ?? {}).map((b) => [b.key, b])).values(),
  ].sort((a, b) => a.from - b.from);
  const head = [party, ...buckets.map((b) => b.label), 'Total'];
  const rows = (byContact?.[1] ?? []).map((r) => [
    str(r, CONTACT),
    ...buckets.map((b) => money(num(r, [b.key]))),
    money(num(r, ['Total', 'TotalDue', 'Balance']) ?? sum(buckets.map((b) => num(r, [b.key]) ?? 0))),
  ]);
  const column = (b: Bucket) =>
    (totalsRow ? num(totalsRow, [b.key]) : undefined) ??
    sum((byContact?.[1] ?? []).map((r) => num(r, [b.key]) ?? 0));
  const totals = buckets.map(column);
  const grand = (totalsRow ? num(totalsRow, ['Total', 'TotalDue']) : undefined) ?? sum(totals);
  rows.push([
    bold('Total'),
    ...totals.map((t) => bold(fmt.money(t, currency))),
    bold(fmt.money(grand, currency)),
  ]);
  const agingTable = `**Aging by ${party.toLowerCase()}**\n\n${table(
    head,
    rows,
    head.map((_, i) => i > 0),
  )}`;

  const notes: string[] = [];
  let overdueTable: string | undefined;
  if (docs) {
    const asOf = parseDate(pick(result, ['AsOfDate', 'AsAt', 'ReportDate', 'Date'], (v) => v))?.date;
    const aged = docs[1].map((d) => ({ d, days: daysOverdue(d, asOf) }));
    const overdue = aged.filter((x) => (x.days ?? 0) > 0).sort((a, b) => (b.days ?? 0) - (a.days ?? 0));
    const notDue = aged.filter((x) => !((x.days ?? 0) > 0));
    const due = (xs: typeof aged) => sum(xs.map((x) => num(x.d, DUE) ?? 0));
    if (overdue.length > 0) {
      const body = overdue.map(({ d, days }) => [
        str(d, DOC_NUMBER),
        str(d, CONTACT),
        fmt.date(pick(d, ['DueDate', 'due_date'], (v) => v)),
        days === undefined ? '' : fmt.number(days),
        money(num(d, DUE)),
      ]);
      body.push([bold('Total'), '', '', '', bold(fmt.money(due(overdue), currency))]);
      overdueTable = `${input.overdue ? '' : `**Overdue ${doc.many}**\n\n`}${table([`${doc.one[0]?.toUpperCase()}${doc.one.slice(1)} #`, party, 'Due date', 'Days overdue', 'Amount due'], body, [false, false, false, true, true])}`;
      const old = overdue.filter((x) => (x.days ?? 0) > 90).length;
      notes.push(
        `${count(overdue.length, doc)} ${overdue.length === 1 ? 'is' : 'are'} overdue, ${fmt.money(due(overdue), currency)} in all${old ? `; ${old} of them by more than 90 days` : ''}.`,
      );
    } else notes.push(`No ${doc.many} are overdue.`);
    if (notDue.length > 0)
      notes.push(
        `${count(notDue.length, doc)} (${fmt.money(due(notDue), currency)}) ${notDue.length === 1 ? 'is' : 'are'} not yet due.`,
      );
  }
  if (input.overdue) {
    sections.push(heading(`Overdue ${doc.many}`, [`${report} ${sub[1] ?? ''}`.trim(), sub[0], currency]));
    sections.push(
      overdueTable ?? `The overdue amounts are in the columns after "Current".`,
      notes.join(' '),
      agingTable,
    );
  } else {
    sections.push(heading(report, sub), agingTable);
    if (overdueTable) sections.push(overdueTable);
    if (notes.length) sections.push(notes.join(' '));
  }
  return sections.filter(Boolean).join('\n\n');
}
