import { isRecord } from '@munim/contracts';
/**
 * Reading tool results of any accounting system: fields by aliases in any naming style
 * (`AmountDue`, `amount_due`, `amountDue`), amounts given as numbers or as text ("1,234.50"),
 * names given as text or as references (`{ Name }`, `{ name, value }`), and paging in the forms
 * APIs use.
 */

export type Rec = Record<string, unknown>;

/** A key without case or separators: `Amount_Due` and `amountDue` are both `amountdue`. */
/** Where a record names its customer or vendor, in the usual spellings; each reader adds its own fallbacks. */
export const CONTACT_NAME_KEYS = ['ContactName', 'CustomerName', 'VendorName', 'SupplierName', 'Contact'];

const normCache = new Map<string, string>();
/** Enough for the field names of any books; tool output is untrusted, so the memo is bounded. */
const NORM_CACHE_MAX = 10_000;

export const norm = (key: string): string => {
  let out = normCache.get(key);
  if (out === undefined) {
    out = key.toLowerCase().replace(/[^a-z0-9]/g, '');
    if (normCache.size >= NORM_CACHE_MAX) normCache.clear();
    normCache.set(key, out);
  }
  return out;
};

/** Each record's keys by their `norm`, built once: renderers ask one record for many fields. */
const indexes = new WeakMap<Rec, { count: number; keys: Map<string, string> }>();
function keyIndex(obj: Rec): Map<string, string> {
  const names = Object.keys(obj);
  let index = indexes.get(obj);
  // Records are read, not changed; one that gained or lost a field is indexed again all the same.
  if (index === undefined || index.count !== names.length) {
    const keys = new Map<string, string>();
    for (const k of names) keys.set(norm(k), k);
    index = { count: names.length, keys };
    indexes.set(obj, index);
  }
  return index.keys;
}

/** The key of `obj` matching the first of `aliases` it has (aliases in any style). */
export function keyOf(obj: Rec, aliases: readonly string[]): string | undefined {
  const keys = keyIndex(obj);
  for (const alias of aliases) {
    const key = keys.get(norm(alias));
    if (key !== undefined) return key;
  }
  return undefined;
}

/** The value of the first of `aliases` that `obj` has and that `accept` takes. */
export function pick<T>(
  obj: Rec,
  aliases: readonly string[],
  accept: (v: unknown) => T | undefined,
): T | undefined {
  const keys = keyIndex(obj);
  for (const alias of aliases) {
    const key = keys.get(norm(alias));
    if (key === undefined) continue;
    const value = accept(obj[key]);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** A number, or a number written as text: "1,234.50", "(1,234.50)", "-₹500". */
export function amount(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  if (!/^\(?-?(?:[₹$€£¥]|Rs\.?|INR|USD|EUR|GBP)?\s?-?\d[\d,]*(\.\d+)?\)?$/.test(t)) return undefined;
  const negative = t.startsWith('(') || t.includes('-');
  const n = Number(t.replace(/[^\d.]/g, ''));
  if (!Number.isFinite(n)) return undefined;
  return negative ? -n : n;
}

/** Text for people: a string, or the name of a reference object (`{ Name }`, `{ name, value }`). */
export function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() === '' ? undefined : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (isRecord(v))
    return pick(v, ['Name', 'DisplayName', 'name', 'display_name'], (x) =>
      typeof x === 'string' ? x : undefined,
    );
  return undefined;
}

export const num = (obj: Rec, aliases: readonly string[]) => pick(obj, aliases, amount);
export const str = (obj: Rec, aliases: readonly string[]) => pick(obj, aliases, text);

/** Plain records of an array (undefined when `v` is no array). */
export function records(v: unknown): Rec[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.filter(isRecord);
}

/** The records under the first alias holding an array. */
export const rowsOf = (obj: Rec, aliases: readonly string[]) =>
  pick(obj, aliases, (v) => (Array.isArray(v) ? records(v) : undefined));

const ENVELOPE = ['data', 'result', 'results', 'response', 'body', 'QueryResponse', 'payload'];
const STATUS_NOISE = new Set(['code', 'message', 'status', 'success', 'ok', 'time', 'responsetime']);

/**
 * The payload inside an API envelope — `{ data: … }`, `{ QueryResponse: … }`, Zoho's
 * `{ code: 0, message: "success", invoice: {…} }`, QuickBooks' `{ Invoice: {…}, time }` — and the
 * key it was under, which names what it is.
 */
export function unwrap(result: unknown, under?: string, depth = 0): { value: unknown; under?: string } {
  if (!isRecord(result) || depth > 2) return { value: result, ...(under ? { under } : {}) };
  const keys = Object.keys(result);
  const inner = keys.find((k) => ENVELOPE.some((e) => norm(e) === norm(k)));
  if (inner && keys.every((k) => k === inner || STATUS_NOISE.has(norm(k))))
    return unwrap(result[inner], under, depth + 1);
  const payload = keys.filter((k) => !STATUS_NOISE.has(norm(k)));
  const only = payload.length === 1 ? payload[0] : undefined;
  if (only !== undefined && isRecord(result[only])) return unwrap(result[only], only, depth + 1);
  return { value: result, ...(under ? { under } : {}) };
}

/** Where a list stands: which page, of how many, and how many records in all. */
export interface Paging {
  page?: number | undefined;
  pages?: number | undefined;
  pageSize?: number | undefined;
  total?: number | undefined;
  hasMore?: boolean | undefined;
  /** The result was cut to fit an answer: `total_items` before, `shown_items` after. */
  cutFrom?: number | undefined;
}

const PAGE_HOLDERS = ['pagination', 'page_context', 'paging', 'meta', 'pageInfo'];
const boolOf = (v: unknown) => (typeof v === 'boolean' ? v : undefined);

/** The paging a list result states about itself, wherever the API puts it. */
export function paging(container: Rec): Paging {
  const holders = [
    container,
    ...PAGE_HOLDERS.map((h) => pick(container, [h], (v) => (isRecord(v) ? v : undefined))),
  ];
  const out: Paging = {};
  for (const h of holders) {
    if (!h) continue;
    out.page ??= num(h, ['Page', 'currentPage', 'pageNumber', 'page_number']);
    out.pages ??= num(h, ['TotalPages', 'pageCount', 'total_pages', 'page_count', 'lastPage', 'last_page']);
    out.pageSize ??= num(h, ['PageSize', 'per_page', 'perPage', 'pageSize', 'maxResults', 'limit']);
    out.total ??= num(h, ['TotalCount', 'itemCount', 'totalResults', 'totalItems', 'totalRecords']);
    // A bare `total` is a record count only beside paging; on a record it is usually money.
    if (h !== container || out.page !== undefined || out.pageSize !== undefined)
      out.total ??= pick(h, ['total'], (v) => (Number.isInteger(v) ? (v as number) : undefined));
    out.hasMore ??= pick(h, ['has_more_page', 'hasMore', 'has_more', 'hasMorePages', 'hasNextPage'], boolOf);
  }
  if (container.truncated === true) out.cutFrom = amount(container.total_items);
  return out;
}
