import { isAmountKey, isCurrencyKey, isRecord, readMoney } from '@munim/contracts';
import type { Change } from './change-words.ts';
import { amountRank, dateRank } from './fields.ts';
import { keyWords, readDate } from './words.ts';

/**
 * A change read from a reply ("yes but make it ₹4,500", "date it 1st December") put onto the
 * fields of the pending call, chosen by meaning in any naming style: the document's own date (a
 * date field that is not its due date or any other), its due date, and its whole amount (an amount
 * field that is not tax, discount or what was paid) — the one line's amount too when the document
 * has a single line. A date the call lacks is added when the tool's schema offers one. Nothing else
 * of the call is touched, whatever the reply says.
 */

export type Mapped =
  | { fields: Record<string, unknown>; said: { field: string; value: string }[] }
  | { reason: string };

/** For the call's own amount, what is paid or applied is the headline, not a part of it. */
const PAID = new Set(['paid', 'applied', 'received']);

/** The call's whole amount: `Amount`, `TotalAmt`; what was paid or received (`amount_received`) only when it has no other. */
const headlineAmount = (key: string, paid = false) =>
  isAmountKey(key) && amountRank(keyWords(key).filter((w) => !paid || !PAID.has(w))) !== undefined;

/** Quantity and unit-price fields of a line. */
const QUANTITY = new Set(['quantity', 'qty', 'hours', 'units']);
const isQuantity = (key: string) => keyWords(key).some((w) => QUANTITY.has(w));
/** A rate or price that is no money of the line (a tax rate, a discount percentage). */
const NOT_PRICE = new Set([
  'tax',
  'vat',
  'gst',
  'discount',
  'percent',
  'percentage',
  'commission',
  'exchange',
]);
const isUnitPrice = (key: string) => {
  const w = keyWords(key);
  if (w.some((x) => NOT_PRICE.has(x))) return false;
  return (
    w.includes('price') ||
    w.includes('rate') ||
    (w.includes('unit') && w.some((x) => x === 'amount' || x === 'cost'))
  );
};

/** A line's own amount (`LineAmount`, `amount`, `total`): not its price per unit, tax or discount. */
const isLineAmount = (key: string) =>
  isAmountKey(key) &&
  !isUnitPrice(key) &&
  amountRank(keyWords(key).filter((w) => w !== 'line' && !PAID.has(w))) !== undefined;

const schemaProps = (schema: unknown): Record<string, unknown> =>
  isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};

/** The date field a change sets: of the call, else one the schema offers. */
function dateField(args: Record<string, unknown>, schema: unknown, due: boolean): string | undefined {
  const rank = (key: string) => {
    const r = dateRank(keyWords(key));
    if (due) return r === 'due' ? 0 : undefined;
    return typeof r === 'number' && r < 6 ? r : undefined;
  };
  const pick = (keys: string[]) =>
    keys
      .flatMap((k) => {
        const r = rank(k);
        return r === undefined ? [] : [[k, r] as const];
      })
      .sort((a, b) => a[1] - b[1])[0]?.[0];
  return pick(Object.keys(args)) ?? pick(Object.keys(schemaProps(schema)));
}

/** A date written as the field had it: ISO, a timestamp, or the books' compact form. */
function dateLike(now: unknown, iso: string, schemaProp: unknown): string {
  if (typeof now === 'string') {
    const t = /^\d{4}-\d{2}-\d{2}(T.*)$/.exec(now.trim());
    if (t) return `${iso}${t[1]}`;
    if (/^\d{8}$/.test(now.trim())) return iso.replace(/-/g, '');
  }
  return isRecord(schemaProp) && schemaProp.format === 'date-time' ? `${iso}T00:00:00Z` : iso;
}

/** An amount written as the field had it: a number, text, or a money object; in cents where the field is. */
function amountLike(now: unknown, amount: number, minor: boolean): unknown {
  const value = minor ? Math.round(amount * 100) : Math.round(amount * 100) / 100;
  if (typeof now === 'string') return minor ? String(value) : value.toFixed(2);
  if (isRecord(now)) {
    const key = Object.keys(now).find((k) => typeof now[k] === 'number' || readMoney(now[k]) !== undefined);
    if (key) return { ...now, [key]: amountLike(now[key], amount, minor) };
  }
  return value;
}

const amountOf = (value: unknown): number | undefined =>
  isRecord(value)
    ? Object.values(value)
        .map((v) => readMoney(v)?.amount)
        .find((v) => v !== undefined)
    : readMoney(value)?.amount;

/** The one line of a single-line document, with its amount set to `amount` (its price too, for one unit). */
function oneLine(
  args: Record<string, unknown>,
  amount: number,
  was: number | undefined,
  minorUnits: ReadonlySet<string>,
): { key: string; lines: unknown[] } | { reason: string } | undefined {
  const key = Object.keys(args).find((k) => {
    const v = args[k];
    return (
      Array.isArray(v) &&
      v.length > 0 &&
      v.every(isRecord) &&
      v.some((item) => Object.keys(item).some(isAmountKey))
    );
  });
  if (!key) return undefined;
  const lines = args[key] as Record<string, unknown>[];
  if (lines.length > 1)
    return was === undefined
      ? { reason: `it has ${lines.length} lines, and I can't tell which one to change` }
      : undefined;
  const line = lines[0] as Record<string, unknown>;
  const qtyKey = Object.keys(line).find(isQuantity);
  const qty = qtyKey ? Number(line[qtyKey]) : 1;
  const moneyKeys = Object.keys(line).filter((k) => isLineAmount(k) || isUnitPrice(k));
  // A line of its own amount, not the call's (a payment applied in part): left as it is.
  const own = moneyKeys.map((k) => amountOf(line[k]));
  if (was !== undefined && !own.some((v) => v === was || (qty > 0 && v !== undefined && v * qty === was)))
    return undefined;
  const changed: Record<string, unknown> = { ...line };
  for (const k of moneyKeys) {
    const unit = isUnitPrice(k);
    const per = unit ? amount / (qty > 0 ? qty : 1) : amount;
    if (unit && Math.round(per * 100) !== per * 100)
      return {
        reason: `its line has a quantity of ${qty}, and ${amount} does not divide into a price per unit`,
      };
    changed[k] = amountLike(line[k], per, minorUnits.has(k));
  }
  return { key, lines: [changed] };
}

/**
 * The fields of `args` that `change` sets, or why it cannot be put on this call. `schema` is the
 * tool's input schema; `minorUnits` the fields whose amounts are in cents.
 */
export function changeFields(
  args: Record<string, unknown>,
  change: Change,
  opts: { schema?: unknown; minorUnits?: ReadonlySet<string>; currency?: string | undefined } = {},
): Mapped {
  const fields: Record<string, unknown> = {};
  const said: { field: string; value: string }[] = [];
  const props = schemaProps(opts.schema);
  for (const [iso, due] of [
    [change.date, false],
    [change.due, true],
  ] as const) {
    if (!iso) continue;
    const key = dateField(args, opts.schema, due);
    if (!key) return { reason: `this change has no ${due ? 'due date' : 'date'} I can set` };
    fields[key] = dateLike(args[key], iso, props[key]);
    said.push({ field: due ? 'due date' : 'date', value: iso });
  }
  if (change.amount !== undefined) {
    const minor = opts.minorUnits ?? new Set<string>();
    const currencyKey = Object.keys(args).find((k) => isCurrencyKey(k) && typeof args[k] === 'string');
    const currency = currencyKey ? String(args[currencyKey]).toUpperCase() : opts.currency?.toUpperCase();
    if (change.currency && currency && change.currency !== currency)
      return { reason: `the amount was said in ${change.currency}, and this is in ${currency}` };
    const money = (paid: boolean) =>
      Object.keys(args).filter((k) => headlineAmount(k, paid) && amountOf(args[k]) !== undefined);
    const whole = money(false);
    const keys = whole.length > 0 ? whole : money(true);
    const values = new Set(
      keys.map((k) => (minor.has(k) ? (amountOf(args[k]) ?? 0) / 100 : amountOf(args[k]))),
    );
    if (values.size > 1)
      return { reason: "it has more than one amount, and I can't tell which one to change" };
    for (const k of keys) fields[k] = amountLike(args[k], change.amount, minor.has(k));
    const was = [...values][0];
    const line = oneLine(args, change.amount, was, minor);
    if (line && 'reason' in line) return line;
    if (line) fields[line.key] = line.lines;
    if (keys.length === 0 && !line) return { reason: 'this change has no amount I can set' };
    said.push({ field: 'amount', value: String(change.amount) });
  }
  return { fields, said };
}

/** Whether a value reads as a date (for the reference a day without a year is put near). */
export function dateIn(args: Record<string, unknown>): Date | undefined {
  const key = dateField(args, undefined, false);
  const value = key ? readDate(args[key]) : undefined;
  return value ? new Date(value) : undefined;
}

/** Words too common in field names to say which field a reply means. */
const PLAIN = new Set(['id', 'no', 'number', 'num', 'ref', 'code', 'type', 'is', 'has', 'of', 'to', 'by']);

/** The words of a call's field names and its tool's (`ContactId` → contact; `PaymentMode` → payment, mode). */
export function fieldWords(args: Record<string, unknown>, schema?: unknown): Set<string> {
  const keys = [...Object.keys(args), ...Object.keys(schemaProps(schema))];
  return new Set(keys.flatMap((k) => keyWords(k)).filter((w) => !PLAIN.has(w)));
}
