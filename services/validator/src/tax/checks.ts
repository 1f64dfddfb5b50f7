import { type BooksContext, type FieldIssue, nameWords, singular, type TaxIdRule } from '@munim/contracts';
import { checkDocument, type Reading, wholeRate } from './arithmetic.ts';
import { bookOn, limitedRates, ratesFor, type TaxBook } from './book.ts';
import { describedIds } from './described.ts';
import { idFields } from './id-fields.ts';
import { idProblem, normaliseId } from './identifiers.ts';
import { componentsOf, placeIssues } from './place.ts';
import { type Doc, documentDate, type Found, readDocs } from './read.ts';
import { type Say, sayer } from './say.ts';

/** Words of a tool's name that say it records a purchase: its supplier is the other party. */
const PURCHASE_WORDS = new Set(['bill', 'purchase', 'expense', 'vendor', 'supplier']);
const isPurchase = (tool: string) => nameWords(tool).some((w) => PURCHASE_WORDS.has(singular(w)));

/** Tax words of calls checked without the books' rules: only their arithmetic. */
const PLAIN_TAX_WORDS: ReadonlySet<string> = new Set(['tax', 'vat', 'gst']);

/** Tax identifiers anywhere in the call: format, state code, embedded PAN, check character; a PAN beside its GSTIN. */
function identifierIssues(args: Record<string, unknown>, book: TaxBook): FieldIssue[] {
  const out: FieldIssue[] = [];
  const byName = new Map(book.ids.map((r) => [r.name, r]));
  const found = new Map<TaxIdRule, Found[]>();
  for (const rule of book.ids) {
    const fields = idFields(args, rule, book);
    found.set(rule, fields);
    for (const field of fields) {
      const value = String(field.value);
      const wrong = idProblem(rule, value, book.regions, byName);
      if (wrong)
        out.push({
          field: field.path,
          code: wrong.code,
          expected: wrong.expected,
          received: value,
          message: `The ${rule.name} in ${field.path} (${value}) ${wrong.problem}.`,
        });
    }
  }
  for (const rule of book.ids.filter((r) => r.embeds)) {
    const embeds = rule.embeds;
    const inner = embeds ? byName.get(embeds.name) : undefined;
    if (!embeds || !inner) continue;
    for (const id of found.get(rule) ?? []) {
      const parent = id.path.replace(/\.[^.]+$/, '');
      const held = normaliseId(String(id.value)).slice(embeds.start, embeds.start + embeds.length);
      for (const own of found.get(inner) ?? []) {
        if (own.path.replace(/\.[^.]+$/, '') !== parent || own.path === id.path) continue;
        if (normaliseId(String(own.value)) !== held && out.every((i) => i.field !== id.path))
          out.push({
            field: own.path,
            code: `${inner.name.toLowerCase()}_invalid`,
            expected: held,
            received: String(own.value),
            message: `The ${inner.name} in ${own.path} (${String(own.value)}) is not the one the ${rule.name} in ${id.path} holds (${held}).`,
          });
      }
    }
  }
  return out;
}

/** The product code (HSN) of the line at `linePath`, if the call gives one. */
function productCode(products: readonly Found[], linePath: string): string | undefined {
  const hit = products.find((p) => p.path.startsWith(`${linePath}.`));
  return hit === undefined ? undefined : String(hit.value);
}

/** Rates that are not in force on the document's date (for the line's product, when rates are limited to some). */
function rateIssues(
  docs: readonly Doc[],
  args: Record<string, unknown>,
  book: TaxBook,
  dated: boolean,
  say: Say,
): FieldIssue[] {
  // A country with no rates in its data is not checked; one whose rates began later is.
  if (!book.books.rules.some((r) => r.kind === 'rate')) return [];
  const parts = componentsOf(book);
  const productRule = book.ids.find((r) => r.role === 'product');
  const products = productRule ? idFields(args, productRule, book) : [];
  const out: FieldIssue[] = [];
  const taxName = book.books.taxName ?? 'tax';
  for (const doc of docs)
    for (const part of [...doc.lines, doc]) {
      if (part.rates.length === 0) continue;
      const code = 'lines' in part ? undefined : productCode(products, part.path);
      const allowed = ratesFor(book, code);
      const readings = [false, true].map((rateFraction) =>
        wholeRate(part.rates, parts, { rateFraction, discountPercent: false } satisfies Reading),
      );
      if (readings.some((r) => r !== undefined && allowed.some((a) => Math.abs(a - r) < 1e-6))) continue;
      const rate = readings[0] ?? 0;
      const field = part.rates[0];
      if (!field) continue;
      const limited = limitedRates(book).filter((r) => Math.abs(r.rate - rate) < 1e-6);
      const only = limited[0]?.note
        ? ` ${say.rate(rate)} applies then only to ${limited[0].note}${code ? `, not to ${productRule?.name ?? 'code'} ${code}` : ''}.`
        : '';
      const when = dated
        ? `on ${say.date(book.date)}, the document's date`
        : `today (${say.date(book.date)})`;
      out.push({
        field: field.path,
        code: 'rate_invalid',
        expected: `one of ${allowed.map(say.rate).join(', ')}`,
        received: say.rate(rate),
        message: `${say.where(field.path, true)} charges ${taxName} at ${say.rate(rate)}, which is not a ${taxName} rate in force ${when}: ${allowed.length > 0 ? `the rates then are ${allowed.map(say.rate).join(', ')}` : `no ${taxName} rate was in force then`}.${only}`,
      });
    }
  return out;
}

/** The arithmetic of each document, read every way its ambiguous figures allow; the reading with fewest problems wins. */
function arithmeticIssues(docs: readonly Doc[], book: TaxBook | undefined, say: Say): FieldIssue[] {
  const parts = componentsOf(book);
  const out: FieldIssue[] = [];
  for (const doc of docs) {
    const all = [doc, ...doc.lines];
    const ambiguousDiscount = all.some(
      (p) => p.discount && p.discount.percent === undefined && p.discountPercent === undefined,
    );
    const fractionRate = all.some((p) => p.rates.some((r) => r.n > 0 && r.n < 1));
    let best: FieldIssue[] | undefined;
    for (const discountPercent of ambiguousDiscount ? [false, true] : [false])
      for (const rateFraction of fractionRate ? [false, true] : [false]) {
        const found = checkDocument(doc, parts, { discountPercent, rateFraction }, say);
        if (!best || found.length < best.length) best = found;
      }
    out.push(...(best ?? []));
  }
  return out;
}

/**
 * What a write gets wrong against the law of the books' country, by meaning, whatever the server's
 * field names: identifiers (GSTIN, PAN, HSN/SAC), rates in force on the document's date, place of
 * supply, and the arithmetic of its lines and totals. Without `books` only the arithmetic. A field
 * the tool's `schema` describes as an identifier (`itemCode`, "HSN code") is checked as one; a
 * `tool` that records a purchase (`create_bill`) has the supplier's state checked against the place of supply.
 */
export function taxIssues(
  args: Record<string, unknown>,
  books: BooksContext | undefined,
  schema?: unknown,
  tool = '',
): FieldIssue[] {
  if (!books) {
    const say = sayer();
    return arithmeticIssues(readDocs(args, PLAIN_TAX_WORDS), undefined, say);
  }
  const dated = documentDate(args, /-US$/i.test(books.locale ?? ''));
  const book = bookOn(books, dated ?? books.today);
  if (schema !== undefined) book.described = describedIds(schema, book.ids);
  const say = sayer(books.locale, books.currency);
  const docs = readDocs(args, book.taxWords);
  return [
    ...identifierIssues(args, book),
    ...rateIssues(docs, args, book, dated !== undefined, say),
    ...placeIssues(args, docs, book, say, isPurchase(tool)),
    ...arithmeticIssues(docs, book, say),
  ];
}
