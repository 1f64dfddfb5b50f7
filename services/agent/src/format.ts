/** Columns worth showing in a list, in this order, with the names users see. */
const COLUMNS: [key: string, label: string][] = [
  ['InvoiceNumber', 'Invoice #'],
  ['BillNumber', 'Bill #'],
  ['PaymentNumber', 'Payment #'],
  ['CreditNoteNumber', 'Credit note #'],
  ['Code', 'Code'],
  ['Name', 'Name'],
  ['ContactName', 'Contact'],
  ['Type', 'Type'],
  ['Date', 'Date'],
  ['DueDate', 'Due date'],
  ['Status', 'Status'],
  ['PaymentStatus', 'Payment'],
  ['Email', 'Email'],
  ['Phone', 'Phone'],
  ['GSTIN', 'GSTIN'],
  ['Total', 'Total'],
  ['Amount', 'Amount'],
  ['AmountPaid', 'Paid'],
  ['AmountDue', 'Due'],
  ['Balance', 'Balance'],
  ['DaysOverdue', 'Days overdue'],
];
const LABELS = new Map(COLUMNS);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A column holding ids is dropped whole (seed 003 §6.10: no internal ids reach the user). */
function isIdColumn(key: string, values: unknown[]): boolean {
  if (/(^id$|Id$|_id$|^uuid$)/.test(key)) return true;
  return values.some((v) => typeof v === 'string' && UUID.test(v));
}

const inr = new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', maximumFractionDigits: 2 });

function cell(key: string, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' && isMoney(key)) return inr.format(value);
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)) {
    const [y, m, d] = value.slice(0, 10).split('-');
    return `${d}/${m}/${y}`;
  }
  if (typeof value === 'object') return '';
  return String(value).replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function isMoney(key: string): boolean {
  return (
    /amount|total|balance|price|paid|tax|gst|value|due$/i.test(key) && !/days|count|rate|quantity/i.test(key)
  );
}

function table(rows: Record<string, unknown>[]): string {
  const shown = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => {
    const values = rows.map((r) => r[k]);
    return (
      !isIdColumn(k, values) && values.some((v) => v !== null && v !== undefined && typeof v !== 'object')
    );
  });
  // Known record shapes show their curated columns; unknown ones show every plain column.
  const curated = COLUMNS.map(([k]) => k).filter((k) => shown.includes(k));
  const keys = curated.length >= 2 ? curated : shown;
  if (keys.length === 0) return '';
  const head = `| ${keys.map((k) => LABELS.get(k) ?? k).join(' | ')} |`;
  const rule = `| ${keys.map(() => '---').join(' | ')} |`;
  const body = rows.map((r) => `| ${keys.map((k) => cell(k, r[k])).join(' | ')} |`);
  return [head, rule, ...body].join('\n');
}

/** The largest array of records inside a tool result (results are often `{ items: [...] }`). */
function records(result: unknown): Record<string, unknown>[] | undefined {
  if (Array.isArray(result))
    return result.filter((r): r is Record<string, unknown> => !!r && typeof r === 'object');
  if (result && typeof result === 'object') {
    const arrays = Object.values(result).filter(Array.isArray) as unknown[][];
    const biggest = arrays.sort((a, b) => b.length - a.length)[0];
    if (biggest) return records(biggest);
  }
  return undefined;
}

/** Deterministic markdown for fast-path results when no model is configured. */
export function renderResults(results: { title: string; result: unknown }[]): string {
  return results
    .map(({ title, result }) => {
      const rows = records(result);
      if (rows && rows.length > 0) return `### ${title}\n\n${table(rows)}\n\n${rows.length} record(s).`;
      if (rows) return `### ${title}\n\nNo records found.`;
      if (result && typeof result === 'object') {
        const flat = Object.entries(result as Record<string, unknown>).filter(
          ([k, v]) => !isIdColumn(k, [v]) && (typeof v !== 'object' || v === null),
        );
        return `### ${title}\n\n${table([Object.fromEntries(flat)])}`;
      }
      return `### ${title}\n\n${String(result ?? '')}`;
    })
    .join('\n\n');
}
