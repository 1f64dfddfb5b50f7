import { isRecord } from '@munim/contracts';
import type { Formats } from '../render/locale.ts';
import { areLines, factsOf, labelOf, linesInWords, type RecordFacts, show } from './facts.ts';
import { readFacts } from './fields.ts';
import type { Lookups } from './lookup.ts';
import { partyRefOf, refIn, refOf } from './refs.ts';
import { isOpaqueId } from './words.ts';

/**
 * A call's values as a confirmation card says them: an id by the record a read found for it (or
 * plainly that none did), amounts in their currency and its units.
 */

/** An amount sent with its currency (FreshBooks' `amount: { amount: "50.00", code: "CAD" }`). */
export function moneyObject(key: string, value: unknown): { amount: number; currency?: string } | undefined {
  if (!isRecord(value) || Object.keys(value).length > 3) return undefined;
  const { amount, currency } = readFacts({ [key]: value });
  return amount === undefined ? undefined : { amount, ...(currency ? { currency } : {}) };
}

/**
 * The currency of the call's amounts: its own currency field, else that of the record it applies
 * to (a payment against a NZD invoice is in NZD), else the business's.
 */
export function callCurrency(args: Record<string, unknown>, lookups: Lookups): string | undefined {
  const own = readFacts(args).currency;
  if (own) return own;
  const refs = Object.entries(args).flatMap(([k, v]) =>
    Array.isArray(v) ? v.flatMap((item) => (isRecord(item) ? [refIn(item)] : [])) : [refOf(k, v)],
  );
  for (const ref of refs) {
    const currency = ref ? factsFor(lookups, ref.value, ref.noun)?.currency : undefined;
    if (currency) return currency;
  }
  return undefined;
}

const idText = (id: unknown) => (typeof id === 'string' || typeof id === 'number' ? String(id) : undefined);

/** The facts of the record an id names, when a read named it. */
export function factsFor(lookups: Lookups, id: unknown, noun?: string): RecordFacts | undefined {
  const text = idText(id);
  const looked = text === undefined ? undefined : lookups.get(text);
  return looked && 'record' in looked ? recordFacts(looked.record, lookups, noun, looked.minor) : undefined;
}

/** A record's facts, its party named by the lookup of the id it gives for it when it gives no name. */
export function recordFacts(
  record: Record<string, unknown>,
  lookups: Lookups,
  noun?: string,
  minor?: boolean,
): RecordFacts {
  const facts = factsOf(record, noun);
  if (minor && facts.amount !== undefined) facts.amount = facts.amount / 10 ** fractionDigits(facts.currency);
  const ref = facts.party ? undefined : partyRefOf(record);
  const party = ref ? lookups.get(ref.value) : undefined;
  if (party && 'record' in party) {
    const named = factsOf(party.record);
    const name = named.name ?? named.party;
    if (name) facts.party = name;
    if (named.role) facts.role ??= named.role;
  }
  return facts;
}

/** Digits after the decimal point of a currency's amounts: 2 for INR and USD, 0 for JPY. */
function fractionDigits(currency = 'INR'): number {
  try {
    return (
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2
    );
  } catch {
    return 2;
  }
}

/** The call's amounts the schema gives in cents, in whole units for the card (the call itself is sent as it is). */
export function inMajorUnits(
  args: Record<string, unknown>,
  minor: ReadonlySet<string> | undefined,
  currency: string,
): Record<string, unknown> {
  if (!minor || minor.size === 0) return args;
  const scale = 10 ** fractionDigits(currency);
  const convert = (o: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(o).map(([k, v]) => [
        k,
        typeof v === 'number' && minor.has(k)
          ? v / scale
          : Array.isArray(v)
            ? v.map((item) => (isRecord(item) ? convert(item) : item))
            : v,
      ]),
    );
  return convert(args);
}

/** The value the call sends, when a person could recognise it (INV-404, ACC-BANK); never an opaque id. */
export function sent(id: unknown): string | undefined {
  const text = idText(id)?.trim();
  return text && !isOpaqueId(text) && !/^\d+$/.test(text) ? text : undefined;
}

/**
 * What the card says of an id: the record's name, or plainly that the books do not know it (or
 * could not be asked), with the value the call will send when a person can read it.
 */
export function idInWords(lookups: Lookups, id: unknown, noun = ''): string {
  const facts = factsFor(lookups, id, noun);
  const label = facts ? labelOf(facts) : undefined;
  if (label) return label;
  const text = idText(id);
  const looked = text === undefined ? undefined : lookups.get(text);
  const value = sent(id);
  const what = noun ? noun.replace(/_/g, ' ') : 'record';
  const why =
    looked && 'failed' in looked
      ? `I could not find this ${what} in the books: ${looked.failed}`
      : looked && 'record' in looked
        ? `the books name this ${what} no further`
        : `not checked against the books`;
  return value ? `${value} (${why})` : why;
}

/** An argument's value as the card shows it: line items, an amount with its currency, or the value in words. */
export function valueInWords(key: string, value: unknown, fmt: Formats): string {
  if (Array.isArray(value) && value.every(isRecord) && areLines(value)) return linesInWords(value, fmt);
  const money = moneyObject(key, value);
  if (money) return fmt.money(money.amount, money.currency);
  return show(key, value, fmt);
}
