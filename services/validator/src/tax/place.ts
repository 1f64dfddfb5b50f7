import { type FieldIssue, fieldKey, type TaxRegionRule } from '@munim/contracts';
import type { Components } from './arithmetic.ts';
import { regionOf, squash, type TaxBook } from './book.ts';
import { idFields } from './id-fields.ts';
import { normaliseId, regionInId } from './identifiers.ts';
import { type Doc, type Found, fieldsWhere } from './read.ts';
import { taxRole } from './roles.ts';
import type { Say } from './say.ts';

/** Which way a field says the tax is charged: within a region (CGST+SGST) or across (IGST). */
type Way = 'within' | 'across';

interface Charged {
  way: Way;
  path: string;
  what: string;
}

const INTER = /inter[\s_-]?state|\binter\b|outside|export/i;
const INTRA = /intra[\s_-]?state|\bintra\b|\blocal\b|within/i;

/** The ways a text or flag says the tax is charged: names of components (`IGST`, `CGST+SGST`), or inter/intra. */
function waysOf(found: Found, parts: Components): Charged[] {
  const key = fieldKey(found.path.split('.').at(-1) ?? '');
  const out: Charged[] = [];
  if (typeof found.value === 'boolean') {
    if (!found.value) return out;
    const words = key.split('_');
    if (words.some((w) => parts.across.has(w)) || words.some((w) => w === 'inter' || w === 'interstate'))
      out.push({ way: 'across', path: found.path, what: key });
    else if (words.some((w) => parts.within.has(w)) || words.includes('intra'))
      out.push({ way: 'within', path: found.path, what: key });
    return out;
  }
  if (typeof found.value !== 'string') return out;
  const words = found.value.toLowerCase().split(/[^a-z]+/);
  const named = (set: ReadonlySet<string>) =>
    words.filter((w) =>
      [...set].some((c) => w === c || (w.startsWith(c) && /^\d*$/.test(w.slice(c.length)))),
    );
  const across = named(parts.across);
  const within = named(parts.within);
  if (across.length > 0 || INTER.test(found.value))
    out.push({ way: 'across', path: found.path, what: found.value });
  if (within.length > 0 || (INTRA.test(found.value) && across.length === 0))
    out.push({ way: 'within', path: found.path, what: found.value });
  return out;
}

/** Every way the documents charge tax: component amounts and rates above zero, and tax kinds. */
function charged(docs: readonly Doc[], parts: Components): Charged[] {
  const out: Charged[] = [];
  for (const doc of docs)
    for (const part of [doc, ...doc.lines]) {
      for (const figure of [...part.taxes, ...part.rates]) {
        const c = figure.component ?? '';
        if (figure.n <= 0) continue;
        if (parts.across.has(c)) out.push({ way: 'across', path: figure.path, what: c.toUpperCase() });
        else if (parts.within.has(c)) out.push({ way: 'within', path: figure.path, what: c.toUpperCase() });
      }
      for (const kind of part.kinds) out.push(...waysOf(kind, parts));
    }
  return out;
}

const named = (region: TaxRegionRule) => `${region.name} (${region.code})`;

/** A region, and where the call says it. */
interface Located {
  region: TaxRegionRule;
  path: string;
}

/** An explicit place of supply (`place_of_supply: "24-Gujarat"`, `PlaceOfSupply`, an e-invoice's `Pos`). */
function explicitPlace(args: Record<string, unknown>, book: TaxBook): Located | undefined {
  for (const field of fieldsWhere(args, (key) => taxRole(key, book.taxWords)?.role === 'place')) {
    const region = regionOf(field.value, book.regions);
    if (region) return { region, path: field.path };
  }
  return undefined;
}

/** Where the other party is: its registration's region (not the business's own), else its state, shipping first. */
function partyRegion(args: Record<string, unknown>, book: TaxBook): Located | undefined {
  const own = book.books.taxId ? normaliseId(book.books.taxId) : undefined;
  for (const rule of book.ids.filter((r) => r.role === 'registration' && r.regionAt)) {
    for (const field of idFields(args, rule, book)) {
      if (typeof field.value !== 'string' || normaliseId(field.value) === own) continue;
      const region = book.regions.find((r) => r.code === regionInId(rule, String(field.value)));
      if (region) return { region, path: field.path };
    }
  }
  const states = fieldsWhere(args, (key) => taxRole(key, book.taxWords)?.role === 'state');
  const shipping = states.filter((s) => /ship|deliver/i.test(s.path));
  for (const field of [...shipping, ...states]) {
    const region = regionOf(field.value, book.regions);
    if (region) return { region, path: field.path };
  }
  return undefined;
}

/** One end of a supply in words: who or what it is, and its region. */
interface End {
  who: string;
  region: TaxRegionRule;
}

/**
 * Where a supply comes from and where it goes. A sale: from the business to the place of supply
 * (said, else the customer's). A purchase: from the supplier to the place of supply (said, else
 * the business's own state, where the goods or services are received).
 */
function supplyEnds(
  args: Record<string, unknown>,
  book: TaxBook,
  purchase: boolean,
): { from: End; to: End } | undefined {
  const ours = businessRegion(book);
  const said = explicitPlace(args, book);
  const party = partyRegion(args, book);
  if (!purchase) {
    const to = said ?? party;
    if (!ours || !to) return undefined;
    return {
      from: { who: 'the business', region: ours },
      to: { who: `the place of supply (${to.path})`, region: to.region },
    };
  }
  if (!party) return undefined;
  const to = said
    ? { who: `the place of supply (${said.path})`, region: said.region }
    : ours && { who: "the place of supply (the business's own state)", region: ours };
  if (!to) return undefined;
  return { from: { who: `the supplier (${party.path})`, region: party.region }, to };
}

/** A value of the call that makes the supply one across regions (`gst_treatment: "business_sez"`). */
function acrossAlways(args: Record<string, unknown>, words: readonly string[]): Found | undefined {
  if (words.length === 0) return undefined;
  const patterns = words.map(
    (w) => new RegExp(`(^|[^a-z])${w.toLowerCase().replace(/[^a-z0-9]+/g, '[^a-z0-9]*')}($|[^a-z])`),
  );
  const hit = (text: string) => patterns.some((p) => p.test(text.toLowerCase()));
  return fieldsWhere(args, () => true).find(
    (f) =>
      (typeof f.value === 'string' && hit(f.value)) ||
      (f.value === true && hit(fieldKey(f.path.split('.').at(-1) ?? ''))),
  );
}

/** The business's own region: the books' region, else the one its registration holds. */
function businessRegion(book: TaxBook): TaxRegionRule | undefined {
  const { region, taxId } = book.books;
  if (region) return regionOf(region, book.regions);
  if (!taxId) return undefined;
  for (const rule of book.ids.filter((r) => r.role === 'registration' && r.regionAt)) {
    const found = book.regions.find((r) => r.code === regionInId(rule, taxId));
    if (found) return found;
  }
  return undefined;
}

/** The split's components in lower case. */
export function componentsOf(book: TaxBook | undefined): Components {
  return {
    within: new Set((book?.split?.within ?? []).map(squash)),
    across: new Set((book?.split?.across ?? []).map(squash)),
  };
}

/**
 * Place of supply: a supply from a region to the same region has its tax split (CGST+SGST), one
 * across regions has it whole (IGST), never both. `purchase`: the call records a purchase (a bill),
 * whose supplier is the other party.
 */
export function placeIssues(
  args: Record<string, unknown>,
  docs: readonly Doc[],
  book: TaxBook,
  say: Say,
  purchase = false,
): FieldIssue[] {
  if (!book.split) return [];
  const parts = componentsOf(book);
  const ways = charged(docs, parts);
  const across = ways.find((w) => w.way === 'across');
  const within = ways.find((w) => w.way === 'within');
  const [first, ...pairs] = book.split.within;
  const withinName = pairs.length > 0 ? `${first} and ${pairs.join(' or ')}` : (first ?? '');
  const acrossName = book.split.across.join(' and ');
  if (across && within)
    return [
      {
        field: across.path,
        code: 'place_of_supply_mismatch',
        expected: `${withinName}, or ${acrossName}, not both`,
        received: `${across.what} and ${within.what}`,
        message: `This charges both ${acrossName} (${across.path}) and ${withinName} (${within.path}): a supply is taxed within a state or across states, never both.`,
      },
    ];
  const used = across ?? within;
  if (!used) return [];
  const ends = supplyEnds(args, book, purchase);
  const always = acrossAlways(args, book.split.acrossWhen ?? []);
  if (always && used.way === 'within')
    return [
      {
        field: used.path,
        code: 'place_of_supply_mismatch',
        expected: acrossName,
        received: used.what,
        message: `${say.where(used.path, true)} charges ${withinName}, but ${always.path} says ${JSON.stringify(always.value)}: such a supply is charged ${acrossName} whatever the states.`,
      },
    ];
  if (!ends || always) return [];
  const { from, to } = ends;
  const same = from.region.code === to.region.code;
  if (same === (used.way === 'within')) return [];
  const want = same ? withinName : acrossName;
  const where = same
    ? `${from.who} and ${to.who} are both in ${named(from.region)}`
    : `${from.who} is in ${named(from.region)} and ${to.who} is ${named(to.region)}`;
  return [
    {
      field: used.path,
      code: 'place_of_supply_mismatch',
      expected: want,
      received: used.what,
      message: `${say.where(used.path, true)} charges ${used.way === 'across' ? acrossName : withinName}, but ${where}: a supply ${same ? 'within a state' : 'across states'} is charged ${want}.`,
    },
  ];
}
