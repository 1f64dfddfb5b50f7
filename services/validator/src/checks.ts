import { type FieldIssue, isAmountKey, isCurrencyKey, isDateKey, isRecord } from '@munim/contracts';
import { ISO_4217 } from './currencies.ts';
import { renderValue } from './schema.ts';

const DATE_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** Whether text is a real calendar date (YYYY-MM-DD, optionally with an ISO time): no 2025-02-30. */
export function isCalendarDate(text: string): boolean {
  const m = DATE_TEXT.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(y, mo - 1, d));
  const timeOk = m[4] === undefined || (Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6] ?? 0) < 60);
  return timeOk && day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d;
}

/** Date and currency fields anywhere in a write's arguments: real dates, known ISO 4217 codes. */
function dateAndCurrencyIssue(field: string, key: string, value: unknown): FieldIssue | undefined {
  if (typeof value !== 'string') return undefined;
  if (isDateKey(key) && !isCalendarDate(value)) {
    return {
      field,
      expected: 'a real calendar date (YYYY-MM-DD)',
      received: renderValue(value),
      code: 'invalid_date',
      message: `Field '${field}' must be a real calendar date as YYYY-MM-DD, but received ${renderValue(value)}.`,
    };
  }
  // Stripe writes codes in lower case (`usd`): ISO 4217 codes are letters, whatever their case.
  if (isCurrencyKey(key) && !ISO_4217.has(value.toUpperCase())) {
    return {
      field,
      expected: 'an ISO 4217 currency code, e.g. INR',
      received: renderValue(value),
      code: 'invalid_currency',
      message: `Field '${field}' must be an ISO 4217 currency code such as INR or USD, but received ${renderValue(value)}.`,
    };
  }
  return undefined;
}

/** The JSON types a schema declares, if it declares any. */
function declaredTypes(schema: unknown): Set<string> | undefined {
  if (!isRecord(schema)) return undefined;
  if (typeof schema.type === 'string') return new Set([schema.type]);
  if (Array.isArray(schema.type)) return new Set(schema.type.filter((t) => typeof t === 'string'));
  return undefined;
}

function amountIssue(field: string, value: unknown, types: Set<string> | undefined): FieldIssue | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (value >= 0) return undefined;
    return {
      field,
      expected: 'number >= 0',
      received: String(value),
      code: 'too_small',
      message: `Field '${field}' is an amount and must not be negative, but received ${value}.`,
    };
  }
  // An object or list under a money word (`total: { amount }`) is looked into, unless the schema wants a number.
  if (typeof value === 'object' && !types) return undefined;
  return {
    field,
    expected: 'a finite number',
    received: renderValue(value),
    code: 'invalid_type',
    message: `Field '${field}' is an amount and must be a number, but received ${renderValue(value)}.`,
  };
}

/**
 * Amount fields anywhere in a write's arguments, known by their words in any style: finite numbers,
 * not negative — except the signed journal amounts in `signed`; and real dates and
 * ISO 4217 currencies. A field whose schema declares it other than a number is not taken for money.
 */
export function amountIssues(
  schema: unknown,
  value: unknown,
  path: string,
  out: FieldIssue[],
  signed: ReadonlySet<string> = new Set(),
): void {
  if (Array.isArray(value)) {
    const items = isRecord(schema) ? schema.items : undefined;
    value.forEach((item, i) => void amountIssues(items, item, `${path}[${i}]`, out, signed));
    return;
  }
  if (!isRecord(value)) return;
  const props = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  for (const [key, child] of Object.entries(value)) {
    const field = path ? `${path}.${key}` : key;
    const types = declaredTypes(props[key]);
    const numeric = !types || types.has('number') || types.has('integer');
    if (numeric && child !== undefined && child !== null && isAmountKey(key)) {
      const issue = amountIssue(field, child, types);
      if (issue && !(issue.code === 'too_small' && signed.has(field))) out.push(issue);
    }
    const other = dateAndCurrencyIssue(field, key, child);
    // The schema's own format error for the field already says it.
    if (other && !out.some((issue) => issue.field === field)) out.push(other);
    if (typeof child === 'object') amountIssues(props[key], child, field, out, signed);
  }
}
