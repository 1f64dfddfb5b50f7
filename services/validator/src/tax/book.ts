import type {
  BooksContext,
  TaxIdRule,
  TaxRateRule,
  TaxRegionRule,
  TaxRule,
  TaxSplitRule,
} from '@munim/contracts';

/** A country's tax rules in force on one date, as the checks use them. */
export interface TaxBook {
  books: BooksContext;
  /** The document's date (YYYY-MM-DD) the rules are taken on. */
  date: string;
  rates: TaxRateRule[];
  ids: TaxIdRule[];
  regions: TaxRegionRule[];
  split: TaxSplitRule | undefined;
  /** Words a tax field's name holds (`tax`, the tax's name, its components): `gst_rate`, `igst`. */
  taxWords: ReadonlySet<string>;
  /** Fields the tool's schema describes as holding an identifier, by the identifier's name. */
  described?: ReadonlyMap<string, ReadonlySet<string>> | undefined;
}

const inForce = (rule: TaxRule, date: string) =>
  rule.from <= date && (rule.to === undefined || date < rule.to);

/** Lower-case letters and digits only: `Tamil Nadu` → `tamilnadu`. */
export const squash = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The rules of `books` in force on `date`. */
export function bookOn(books: BooksContext, date: string): TaxBook {
  const rules = books.rules.filter((rule) => inForce(rule, date));
  const pick = <K extends TaxRule['kind']>(kind: K) =>
    rules.filter((r): r is Extract<TaxRule, { kind: K }> => r.kind === kind);
  const split = pick('split')[0];
  const taxWords = new Set(['tax']);
  if (books.taxName) taxWords.add(squash(books.taxName));
  for (const name of [...(split?.within ?? []), ...(split?.across ?? [])]) taxWords.add(squash(name));
  return {
    books,
    date,
    rates: pick('rate'),
    ids: pick('identifier'),
    regions: pick('region'),
    split,
    taxWords,
  };
}

/** The region a text names: its code (`27`, `07`), its name or an alias, or `27-Maharashtra`. */
export function regionOf(text: unknown, regions: readonly TaxRegionRule[]): TaxRegionRule | undefined {
  if (typeof text !== 'string' && typeof text !== 'number') return undefined;
  const raw = String(text).trim();
  if (raw === '') return undefined;
  const code = /^(\d{1,3})\b/.exec(raw)?.[1];
  if (code) {
    const byCode = regions.find((r) => r.code === code || r.code === code.padStart(2, '0'));
    if (byCode) return byCode;
  }
  const word = squash(raw.replace(/^\d+\s*[-–:]?\s*/, ''));
  if (word === '') return undefined;
  return regions.find(
    (r) =>
      squash(r.name) === word ||
      squash(r.code) === word ||
      (r.aliases ?? []).some((alias) => squash(alias) === word),
  );
}

/** The rates in force for a product whose code is `productCode` (any product's rates when it has none). */
export function ratesFor(book: TaxBook, productCode: string | undefined): number[] {
  const code = productCode?.replace(/\D/g, '');
  const rates = book.rates.filter(
    (rule) => !rule.productCodes || (code !== undefined && rule.productCodes.some((p) => code.startsWith(p))),
  );
  return [...new Set(rates.map((r) => r.rate))].sort((a, b) => a - b);
}

/** Rates limited to some products, in force on the book's date: said when a rate fits none of a line's. */
export function limitedRates(book: TaxBook): TaxRateRule[] {
  return book.rates.filter((rule) => rule.productCodes !== undefined);
}
