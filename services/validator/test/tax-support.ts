import { type BooksContext, type TaxRule, TaxRuleSchema } from '@munim/contracts';
import { INDIA_TAX_RULES, type TaxRuleSeed } from '../../../packages/db/src/migrations/0029_tax_rules.ts';

/** Rules as the agent hands them over: each stored row's rule with its kind and dates. */
export function asRules(seeds: readonly TaxRuleSeed[]): TaxRule[] {
  return seeds.map((r) =>
    TaxRuleSchema.parse({
      ...r.rule,
      kind: r.kind,
      from: r.effective_from,
      ...(r.effective_to ? { to: r.effective_to } : {}),
    }),
  );
}

/** The business of the demo books: Sharma Traders, Mumbai (Maharashtra, GST state 27). */
export const SHARMA_GSTIN = '27AAKCS4821M1ZW';

/** An Indian business's books as the agent sends them, with the rules the migration seeds. */
export function indiaBooks(over: Partial<BooksContext> = {}): BooksContext {
  return {
    country: 'IN',
    region: 'Maharashtra',
    taxId: SHARMA_GSTIN,
    today: '2025-11-15',
    taxName: 'GST',
    currency: 'INR',
    locale: 'en-IN',
    rules: asRules(INDIA_TAX_RULES),
    ...over,
  };
}

const BASE36 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * A GSTIN's check character, written here independently of the validator's: the body's characters
 * as base-36 values, every second one doubled and its base-36 digits added.
 */
export function checkChar(body: string): string {
  let total = 0;
  for (let i = 0; i < body.length; i++) {
    const doubled = BASE36.indexOf(body.charAt(i)) * (i % 2 === 1 ? 2 : 1);
    total += doubled < 36 ? doubled : 1 + (doubled - 36);
  }
  return BASE36.charAt((36 - (total % 36)) % 36);
}

/** A deterministic pseudo-random source, so the tables are the same on every run. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const pick = (r: () => number, from: string) => from.charAt(Math.floor(r() * from.length));

/** A PAN of a valid shape: three letters, the holder's kind, a letter, four digits, a letter. */
export function pan(r: () => number, kind = pick(r, 'ABCEFGHJLPT')): string {
  const d = () => pick(r, '0123456789');
  return `${pick(r, LETTERS)}${pick(r, LETTERS)}${pick(r, LETTERS)}${kind}${pick(r, LETTERS)}${d()}${d()}${d()}${d()}${pick(r, LETTERS)}`;
}

/** A GSTIN with the right check character: state, PAN, entity number, Z. */
export function gstin(state: string, panNo: string, entity = '1', fourteenth = 'Z'): string {
  const body = `${state}${panNo}${entity}${fourteenth}`;
  return body + checkChar(body);
}
