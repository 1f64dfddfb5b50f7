/** Column names shown to users instead of the API's field names. */
const ALIASES: Record<string, string> = {
  InvoiceNumber: 'Invoice #',
  BillNumber: 'Bill #',
  ContactName: 'Contact',
  CustomerName: 'Customer',
  VendorName: 'Vendor',
  Name: 'Name',
  Date: 'Date',
  DueDate: 'Due date',
  Total: 'Total',
  AmountDue: 'Amount due',
  Amount: 'Amount',
  Status: 'Status',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A column holding ids is dropped whole (seed 003 §6.10: no internal ids reach the user). */
function isIdColumn(key: string, values: unknown[]): boolean {
  if (/(^id$|Id$|_id$|^uuid$)/.test(key)) return true;
  return values.some((v) => typeof v === 'string' && UUID.test(v));
}

const inr = new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', maximumFractionDigits: 2 });

function cell(key: string, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' && /amount|total|balance|price|due|paid/i.test(key)) return inr.format(value);
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)) {
    const [y, m, d] = value.slice(0, 10).split('-');
    return `${d}/${m}/${y}`;
  }
  if (typeof value === 'object') return '';
  return String(value).replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function table(rows: Record<string, unknown>[]): string {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter(
    (k) =>
      !isIdColumn(
        k,
        rows.map((r) => r[k]),
      ) && rows.some((r) => r[k] !== null && typeof r[k] !== 'object'),
  );
  if (keys.length === 0) return '';
  const head = `| ${keys.map((k) => ALIASES[k] ?? k).join(' | ')} |`;
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
