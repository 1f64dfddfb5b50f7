import { calendarDay, fieldKey, isAmountKey, isDateKey, isRecord, readMoney } from '@munim/contracts';
import { type TaxRole, taxRole } from './roles.ts';

/** A field of the call: where it is and its value. */
export interface Found {
  path: string;
  value: unknown;
  /** The record the field is in. */
  parent?: Record<string, unknown> | undefined;
}
/** A number read from a field, with where it is. */
export interface Figure {
  path: string;
  n: number;
}
/** A rate or tax field, with the component it names (`cgst`), if any. */
export interface TaxFigure extends Figure {
  component: string | undefined;
}

/** One line of a document, its fields by meaning. */
export interface Line {
  path: string;
  quantity?: Figure | undefined;
  price?: Figure | undefined;
  discount?: (Figure & { percent: boolean | undefined }) | undefined;
  amount?: Figure | undefined;
  total?: Figure | undefined;
  rates: TaxFigure[];
  taxes: TaxFigure[];
  /** Texts and flags that say which tax applies (`IGST`, `CGST+SGST`, `is_igst: true`). */
  kinds: Found[];
  inclusive?: boolean | undefined;
  /** A discount type said beside the discount (`discount_type: "percentage"`): whether it is a percentage. */
  discountPercent?: boolean | undefined;
}

/** A document: a record that holds lines, its own fields by meaning. */
export interface Doc extends Omit<Line, 'quantity' | 'price' | 'amount'> {
  lines: Line[];
  subtotal?: Figure | undefined;
  adjustments: Figure[];
  /** A money field of the document the checks do not know: its total is then not checked. */
  unknownMoney?: string | undefined;
}

/** The figure a value holds: a number, money text (`"₹1,180.00"`), or a percentage (`"18%"`). */
export function figureOf(value: unknown): number | undefined {
  if (typeof value === 'string') {
    const percent = /^\s*(-?\d+(?:\.\d+)?)\s*%\s*$/.exec(value);
    if (percent) return Number(percent[1]);
  }
  if (isRecord(value)) {
    const inner = Object.entries(value).find(([k]) => isAmountKey(k) || fieldKey(k) === 'value');
    return inner ? figureOf(inner[1]) : undefined;
  }
  return readMoney(value)?.amount;
}

const isPercentText = (value: unknown) => typeof value === 'string' && value.trim().endsWith('%');

const RATE_IN_NAME = /^[a-z+&\s/_-]*?[a-z][a-z+&\s/_@-]*?(\d{1,2}(?:\.\d{1,3})?)\s*%?$/i;

/**
 * The rate a tax's name holds (`IGST18`, `GST @ 18%`, `CGST+SGST 18`, `VAT5`), with the one
 * component it names (a lone `CGST9` is half the rate); undefined for a name without one (`OUTPUT`).
 */
function rateInName(
  text: string,
  taxWords: ReadonlySet<string>,
): { n: number; component: string | undefined } | undefined {
  const m = RATE_IN_NAME.exec(text.trim());
  if (!m) return undefined;
  const words = text
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((w) => taxWords.has(w));
  if (words.length === 0) return undefined;
  const named = new Set(words.filter((w) => w !== 'tax'));
  return { n: Number(m[1]), component: named.size === 1 ? [...named][0] : undefined };
}

/** Sets one field of a line or document by its role; returns false for a field it does not take. */
function take(
  target: Line & Partial<Doc>,
  role: TaxRole,
  path: string,
  value: unknown,
  taxWords: ReadonlySet<string>,
): boolean {
  if (
    role.role === 'kind' ||
    (role.role === 'tax' && typeof value !== 'number' && figureOf(value) === undefined)
  ) {
    if (typeof value === 'string' || typeof value === 'boolean') target.kinds.push({ path, value });
    const named = typeof value === 'string' ? rateInName(value, taxWords) : undefined;
    // A rate in a tax's name counts where the line or document has no rate field of its own.
    if (named && target.rates.length === 0) target.rates.push({ path, ...named });
    return true;
  }
  if (role.role === 'inclusive') {
    target.inclusive =
      value === true ||
      (typeof value === 'string' && /^(true|yes|inclusive|tax_?inclusive)$/i.test(value.trim()));
    return true;
  }
  if (role.role === 'place' || role.role === 'state') return true;
  const n = figureOf(value);
  if (n === undefined && role.role === 'discount' && typeof value === 'string') {
    if (/percent|%|pct/i.test(value)) target.discountPercent = true;
    else if (/amount|flat|fixed|value|absolute/i.test(value)) target.discountPercent = false;
    return true;
  }
  if (n === undefined) return false;
  const figure = { path, n };
  switch (role.role) {
    case 'quantity':
      target.quantity = figure;
      return true;
    case 'price':
      target.price = figure;
      return true;
    case 'discount':
      target.discount = { ...figure, percent: isPercentText(value) ? true : role.percent };
      return true;
    case 'rate':
      target.rates.push({ ...figure, component: role.component });
      return true;
    case 'tax':
      target.taxes.push({ ...figure, component: role.component });
      return true;
    case 'amount':
      target.amount = figure;
      return true;
    case 'subtotal':
      if (target.adjustments) target.subtotal = figure;
      else target.amount = figure;
      return true;
    case 'total':
      target.total = figure;
      return true;
    case 'adjustment':
      target.adjustments?.push(figure);
      return true;
  }
}

/** A line's fields, its own first, then one level down (QuickBooks' `SalesItemLineDetail`). */
export function readLine(record: Record<string, unknown>, path: string, taxWords: ReadonlySet<string>): Line {
  const line: Line = { path, rates: [], taxes: [], kinds: [] };
  const seen = new Set<string>();
  const visit = (rec: Record<string, unknown>, at: string) => {
    for (const [key, value] of Object.entries(rec)) {
      if (value === null || value === undefined || value === '') continue;
      if (isRecord(value) && at === path && !isAmountKey(key)) {
        visit(value, `${at}.${key}`);
        continue;
      }
      const role = taxRole(key, taxWords);
      if (!role) continue;
      const text = typeof value === 'string' && figureOf(value) === undefined;
      const id = `${role.role}:${'component' in role ? role.component : ''}:${text ? 'text' : ''}`;
      if (role.role !== 'kind' && seen.has(id)) continue;
      if (take(line, role, `${at}.${key}`, value, taxWords)) seen.add(id);
    }
  };
  visit(record, path);
  return line;
}

const LINE_ROLES = new Set(['quantity', 'price', 'amount', 'rate', 'tax']);

/** Whether records are the lines of a document: one holds a quantity, price, amount, rate or tax. */
function areLines(items: Record<string, unknown>[], taxWords: ReadonlySet<string>): boolean {
  return items.some((item) =>
    Object.keys(item).some((key) => LINE_ROLES.has(taxRole(key, taxWords)?.role ?? '')),
  );
}

/** The documents of a call: every record, at any depth, that holds an array of lines. */
export function readDocs(args: Record<string, unknown>, taxWords: ReadonlySet<string>): Doc[] {
  const docs: Doc[] = [];
  const visit = (record: Record<string, unknown>, path: string, depth: number) => {
    if (depth > 5) return;
    let doc: Doc | undefined;
    for (const [key, value] of Object.entries(record)) {
      const at = path ? `${path}.${key}` : key;
      if (Array.isArray(value)) {
        const items = value.filter(isRecord);
        if (items.length > 0 && items.length === value.length && areLines(items, taxWords)) {
          doc ??= { path, lines: [], rates: [], taxes: [], kinds: [], adjustments: [] };
          doc.lines.push(...items.map((item, i) => readLine(item, `${at}[${i}]`, taxWords)));
        } else items.forEach((item, i) => void visit(item, `${at}[${i}]`, depth + 1));
      } else if (isRecord(value)) visit(value, at, depth + 1);
    }
    if (!doc) return;
    for (const [key, value] of Object.entries(record)) {
      if (value === null || value === undefined || value === '' || Array.isArray(value)) continue;
      const at = path ? `${path}.${key}` : key;
      const role = taxRole(key, taxWords);
      const taken = role ? take(doc as Line & Doc, role, at, value, taxWords) : false;
      if (!taken && !isRecord(value) && isAmountKey(key) && figureOf(value) !== undefined)
        doc.unknownMoney ??= at;
    }
    docs.push(doc);
  };
  visit(args, '', 0);
  return docs;
}

/** Every field of the call at any depth whose name passes `test`, with its value. */
export function fieldsWhere(args: unknown, test: (key: string) => boolean, path = '', depth = 0): Found[] {
  if (depth > 6) return [];
  const out: Found[] = [];
  if (Array.isArray(args)) {
    for (const [i, item] of args.entries()) out.push(...fieldsWhere(item, test, `${path}[${i}]`, depth + 1));
    return out;
  }
  if (!isRecord(args)) return out;
  for (const [key, value] of Object.entries(args)) {
    const at = path ? `${path}.${key}` : key;
    if (value !== null && value !== undefined && value !== '' && test(key) && !isRecord(value))
      out.push({ path: at, value, parent: args });
    if (typeof value === 'object' && value !== null) out.push(...fieldsWhere(value, test, at, depth + 1));
  }
  return out;
}

const NOT_DOCUMENT_DATE = new Set([
  'due',
  'expiry',
  'expiration',
  'valid',
  'delivery',
  'ship',
  'shipment',
  'payment',
  'start',
  'end',
  'from',
  'to',
  'birth',
]);

const depth = (path: string) => path.split(/[.[]/).length;

/**
 * The document's own date (`Date`, `invoice_date`, `txnDate`, an e-invoice's `Dt`), not a due or
 * delivery date: the outermost found. `monthFirst` where the books write dates month first (en-US).
 */
export function documentDate(args: Record<string, unknown>, monthFirst = false): string | undefined {
  const dates = fieldsWhere(args, (key) => {
    const words = fieldKey(key).split('_');
    return (isDateKey(key) || words.at(-1) === 'dt') && !words.some((w) => NOT_DOCUMENT_DATE.has(w));
  }).sort((x, y) => depth(x.path) - depth(y.path));
  for (const { value } of dates) {
    const found = calendarDay(value, monthFirst ? 'MM/DD/YYYY' : 'DD/MM/YYYY');
    if (found) return found;
  }
  return undefined;
}
