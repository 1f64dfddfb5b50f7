import { fieldKey, isAmountKey, isCurrencyKey, readJournalLine } from './money-fields.ts';
import { isRecord } from './values.ts';

/** Money as a call writes it: its amount, and its currency when the value says one (`₹`, `USD`). */
export interface Money {
  amount: number;
  /** ISO 4217, or `$` for a dollar of no named country. */
  currency?: string | undefined;
}

const SYMBOLS: Record<string, string> = {
  '₹': 'INR',
  rs: 'INR',
  re: 'INR',
  '€': 'EUR',
  '£': 'GBP',
  '¥': 'JPY',
};
const SCALE: Record<string, number> = {
  k: 1e3,
  thousand: 1e3,
  lakh: 1e5,
  lakhs: 1e5,
  lac: 1e5,
  lacs: 1e5,
  crore: 1e7,
  crores: 1e7,
  mn: 1e6,
  million: 1e6,
  bn: 1e9,
  billion: 1e9,
};
/** A sign, a currency symbol or code, digits, a scale word (`lakh`, `k`), a currency code after. */
const MONEY_TEXT =
  /^(-)?\s*(₹|rs\.?|re\.?|€|£|¥|\$|[a-z]{3}(?=[\s\d]))?\s*(-)?\s*(\d[\d,]*(?:\.\d+)?)\s*([a-z]+)?\s*([a-z]{3})?$/;
/** Digits grouped the Indian or the international way (`2,00,000`, `200,000`), or not at all, with decimals. */
const NUMBER = /^(\d{1,3}(?:,\d{2,3})+|\d+)(\.\d+)?$/;

/**
 * Money from a number or from text as people and programs write it: `200000`, `"2,00,000"`,
 * `"₹2,00,000.50"`, `"Rs. 1,18,000"`, `"INR 5000"`, `"5000 USD"`, `"$1,234.56"`, `"(1,234.50)"`,
 * `"-₹500"`, `"2.5 lakh"`, `"1 crore"`, `"50k"`. Undefined for anything else ("fifty thousand").
 */
export function readMoney(value: unknown): Money | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? { amount: value } : undefined;
  if (typeof value !== 'string') return undefined;
  let text = value.trim().toLowerCase();
  if (text === '' || text.length > 40) return undefined;
  let sign = 1;
  if (/^\(.*\)$/.test(text)) [sign, text] = [-1, text.slice(1, -1).trim()];
  const m = MONEY_TEXT.exec(text);
  if (!m) return undefined;
  const [, minus, prefix, minusAfter, digits = '', word, suffix] = m;
  if (!NUMBER.test(digits)) return undefined;
  let currency: string | undefined;
  if (prefix) {
    const mark = prefix.replace('.', '');
    currency = mark === '$' ? '$' : (SYMBOLS[mark] ?? mark.toUpperCase());
  }
  let scale = 1;
  if (word !== undefined) {
    const factor = SCALE[word];
    if (factor !== undefined) scale = factor;
    else if (word.length === 3 && suffix === undefined && !prefix) currency = word.toUpperCase();
    else return undefined;
  }
  if (suffix !== undefined) {
    if (prefix) return undefined;
    currency = suffix.toUpperCase();
  }
  if (minus) sign = -sign;
  if (minusAfter) sign = -sign;
  const amount = sign * Number(digits.replace(/,/g, '')) * scale;
  return Number.isFinite(amount) ? { amount, ...(currency ? { currency } : {}) } : undefined;
}

/** Whether money stated in `stated` is in the business's `currency` (a bare `$` is any dollar). */
function sameCurrency(stated: string, currency: string): boolean {
  const code = stated.toUpperCase();
  return code === '$' ? currency.toUpperCase().endsWith('D') : code === currency.toUpperCase();
}

/**
 * How much a write moves, read from its arguments by meaning: `amount` when it could be read;
 * `unread` (naming the field) when money is there that could not be read or is in another currency
 * than the business's — the caller then takes the strictest view; neither when the call names no
 * money at all.
 */
export interface WriteAmount {
  amount?: number | undefined;
  unread?: string | undefined;
}

const QUANTITY = /^(quantity|qty|hours|units|unit_count)$/;
const PRICE = /(^|_)(price|rate|cost)$|^unit_(amount|amt|value)$/;
/** A rate that is no price: a tax's, a discount's, an exchange rate (`TaxRate: 18` beside `UnitPrice`). */
const NOT_A_PRICE = /(^|_)(tax|vat|gst|cgst|sgst|igst|cess|discount|commission|exchange|interest)(_|$)/;

interface Walk {
  /** Every money value found outside lists, and each list's total. */
  totals: number[];
  unread?: string;
  currencies: { path: string; code: string }[];
}

/** A money field's value: a number, money text, or an object holding one (`{ amount: "50.00", code: "CAD" }`). */
function moneyIn(value: unknown, path: string, walk: Walk): number | undefined {
  if (isRecord(value)) {
    const inner = Object.entries(value).find(([k]) => isAmountKey(k) || fieldKey(k) === 'value');
    const code = Object.entries(value).find(
      ([k, v]) => /^(code|currency(_code)?)$/.test(fieldKey(k)) && typeof v === 'string',
    );
    if (code) walk.currencies.push({ path, code: String(code[1]) });
    return inner ? moneyIn(inner[1], `${path}.${inner[0]}`, walk) : undefined;
  }
  const money = readMoney(value);
  if (!money) {
    walk.unread ??= path;
    return undefined;
  }
  if (money.currency) walk.currencies.push({ path, code: money.currency });
  return Math.abs(money.amount);
}

/**
 * What a list of records adds up to: a journal's larger side, else its lines' amounts (or quantity
 * × price); undefined when no line holds money (a list of invoice ids, of contact persons).
 */
function listTotal(items: Record<string, unknown>[], path: string, walk: Walk): number | undefined {
  const lines = items.map((item, i) => readJournalLine(item, `${path}[${i}]`));
  const sided = lines.some((l) => l.columns || (l.side !== 'none' && l.side !== 'unknown'));
  if (sided) {
    let [debits, credits] = [0, 0];
    for (const line of lines) {
      if (line.columns) {
        debits += line.debit ? (moneyIn(line.debit.value, line.debit.path, walk) ?? 0) : 0;
        credits += line.credit ? (moneyIn(line.credit.value, line.credit.path, walk) ?? 0) : 0;
        continue;
      }
      const value = line.amount ? (moneyIn(line.amount.value, line.amount.path, walk) ?? 0) : 0;
      if (line.side === 'credit') credits += value;
      else debits += value;
    }
    return Math.max(debits, credits);
  }
  let total = 0;
  let money = false;
  items.forEach((item, i) => {
    const inner: Walk = { totals: [], currencies: walk.currencies };
    let [quantity, price] = [undefined as number | undefined, undefined as number | undefined];
    for (const [key, value] of Object.entries(item)) {
      const k = fieldKey(key);
      if (QUANTITY.test(k)) quantity = readMoney(value)?.amount;
      else if (PRICE.test(k) && !NOT_A_PRICE.test(k)) price = readMoney(value)?.amount;
    }
    walkValue(item, `${path}[${i}]`, inner, 1);
    if (inner.unread) walk.unread ??= inner.unread;
    const priced = quantity !== undefined && price !== undefined;
    money ||= priced || inner.totals.length > 0;
    total += Math.max(priced ? Math.abs((quantity ?? 0) * (price ?? 0)) : 0, ...inner.totals);
  });
  return money ? total : undefined;
}

function walkValue(record: Record<string, unknown>, path: string, walk: Walk, depth: number): void {
  if (depth > 6) return;
  for (const [key, value] of Object.entries(record)) {
    if (value === null || value === undefined || value === '') continue;
    const at = path ? `${path}.${key}` : key;
    if (Array.isArray(value)) {
      const items = value.filter(isRecord);
      if (items.length > 0) {
        const total = listTotal(items, at, walk);
        if (total !== undefined) walk.totals.push(total);
      } else if (isAmountKey(key))
        for (const [i, v] of value.entries()) {
          const amount = moneyIn(v, `${at}[${i}]`, walk);
          if (amount !== undefined) walk.totals.push(amount);
        }
    } else if (isAmountKey(key)) {
      const amount = moneyIn(value, at, walk);
      if (amount !== undefined) walk.totals.push(amount);
    } else if (isRecord(value)) {
      walkValue(value, at, walk, depth + 1);
    } else if (isCurrencyKey(key) && typeof value === 'string' && /^[a-z]{3}$/i.test(value.trim())) {
      walk.currencies.push({ path: at, code: value.trim() });
    }
  }
}

/**
 * The amount of a write from its arguments, by meaning, in the business's `currency`: every field
 * the validator takes for money ({@link isAmountKey}: `amount`, `Total`, `grand_total`,
 * `payment.amount`, `unitPrice` …, as numbers or as text like `"₹2,00,000"`), and what each list
 * of records adds up to (a journal's debits or credits, whichever is larger; lines by their amount
 * or quantity × price). The amount is the largest of these: a total that understates its own lines
 * does not lower it, and a fee beside a payment does not raise it. Amounts in minor units (cents)
 * must be made whole by the caller first.
 */
export function writeAmount(args: Record<string, unknown>, currency?: string): WriteAmount {
  const walk: Walk = { totals: [], currencies: [] };
  walkValue(args, '', walk, 0);
  if (walk.unread) return { unread: `${walk.unread} could not be read as an amount` };
  const other = currency ? walk.currencies.find((c) => !sameCurrency(c.code, currency)) : undefined;
  if (other) return { unread: `${other.path} is in ${other.code}, not ${currency}` };
  if (walk.totals.length === 0) return {};
  return { amount: Math.max(...walk.totals) };
}
