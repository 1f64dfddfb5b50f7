import { MAX_QUERY_LENGTH, RouteDecisionSchema } from '@munim/contracts';
import { describe, expect, it, vi } from 'vitest';
import { demoRegistry, seededIntents } from '../eval/evaluate.ts';
import { generatedQueries } from '../eval/generated-queries.ts';
import { parseHindiNumbers } from '../src/hindi-numbers.ts';
import { IntentMatcher } from '../src/intents.ts';
import { type RouteResult, routeQuery } from '../src/route.ts';
import { asciiDigits, normalize } from '../src/text.ts';

/** Characters the router's text normalisation reads: its work per query, counted instead of timed. */
const work = vi.hoisted(() => ({ chars: 0 }));
vi.mock('../src/text.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/text.ts')>();
  return {
    ...actual,
    normalize: (text: string) => {
      work.chars += text.length;
      return actual.normalize(text);
    },
  };
});

/**
 * How many times over a route may normalise its query. Each stage (classifier, entities, order
 * reading, tier, tools, intents) normalises it a fixed number of times; a stage that normalises it
 * once per word or number makes the route quadratic and exceeds this on a long query.
 */
const PASSES = 20;

const matcher = new IntentMatcher();
matcher.replace(seededIntents());
const registry = demoRegistry();
const reads = new Set(registry.filter((t) => !t.isWrite).map((t) => t.name));
const names = new Set(registry.map((t) => t.name));

function route(query: string): { result: RouteResult; chars: number } {
  work.chars = 0;
  const result = routeQuery({ query, matcher, registry, thresholdFor: () => 0.85, strategy: 'dynamic' });
  return { result, chars: work.chars };
}

const DOC = /^(INV|BILL|PAY|CN|JE|PO|SO)-\d{1,10}$/;

/** The properties every route holds, whatever the query. */
function checkRoute(query: string, { result, chars }: { result: RouteResult; chars: number }): void {
  const { decision } = result;
  expect(RouteDecisionSchema.safeParse(decision).success).toBe(true);
  // What the router publishes must survive JSON unchanged (no Infinity or NaN turned into null).
  expect(JSON.parse(JSON.stringify(decision.extractedEntities))).toEqual(decision.extractedEntities);
  const { amounts, documentNumbers, documentNumber } = decision.extractedEntities;
  if (amounts !== undefined) {
    expect(Array.isArray(amounts)).toBe(true);
    for (const a of amounts as unknown[]) {
      expect(typeof a === 'number' && a > 0 && a <= Number.MAX_SAFE_INTEGER, `amount ${a}`).toBe(true);
    }
  }
  if (documentNumbers !== undefined) {
    for (const d of documentNumbers as string[]) expect(d).toMatch(DOC);
    expect(documentNumber).toBe((documentNumbers as string[])[0]);
  }
  for (const tool of decision.tools) expect(names.has(tool)).toBe(true);
  if (decision.path === 'fast') {
    expect(decision.pipeline.length).toBeGreaterThan(0);
    for (const step of decision.pipeline) expect(reads.has(step.tool)).toBe(true);
  } else {
    expect(decision.pipeline).toEqual([]);
  }
  if (decision.category === 'general_chat') expect(decision.tools).toEqual([]);
  expect(chars, 'characters normalised').toBeLessThanOrEqual(PASSES * Math.max(query.length, 50));
}

const DEVANAGARI = '०१२३४५६७८९';
/** Repeats `unit(i)` up to the gateway's query limit. */
function upToLimit(unit: (i: number) => string): string {
  let out = '';
  for (let i = 0; out.length + unit(i).length <= MAX_QUERY_LENGTH; i++) out += unit(i);
  return out;
}

describe('bounded work per query', () => {
  it.each([
    ['4,000 Devanagari digits', DEVANAGARI.repeat(MAX_QUERY_LENGTH / 10)],
    ['Devanagari digits between spaces', upToLimit((i) => `${DEVANAGARI[i % 10]} `)],
    ['rupee amounts', upToLimit((i) => `₹${DEVANAGARI[i % 10]} `)],
    ['ASCII digits between spaces', upToLimit((i) => `${i % 10} `)],
    ['digits and lakh', upToLimit((i) => `${i % 10} lakh `)],
    ['Hindi number words', upToLimit((i) => `${['das', 'hazaar', 'saade', 'teen', 'sau'][i % 5]} `)],
    ['openers', upToLimit(() => 'please can you ')],
    ['an order after many change words', `${upToLimit(() => 'payment ').slice(0, -8)}kar do`],
    ['document numbers', upToLimit((i) => `INV-${i} `)],
    ['separators between digits', upToLimit((i) => `${i % 10}.,`)],
    ['a confirmation repeated', `yes${upToLimit(() => ' create it').slice(3)}`],
  ])('%s: the route normalises the query a fixed number of times', (_name, query) => {
    expect(query.length).toBeLessThanOrEqual(MAX_QUERY_LENGTH);
    checkRoute(query, route(query));
  });

  it('reads no amount from a run of digits too long to be one', () => {
    expect(parseHindiNumbers(`₹${'9'.repeat(400)}`)).toEqual([]);
    expect(parseHindiNumbers(`₹${DEVANAGARI.repeat(40)}`)).toEqual([]);
    expect(parseHindiNumbers('₹12,50,000 aur 99 crore').map((n) => n.value)).toEqual([
      1_250_000, 990_000_000,
    ]);
    const { result } = route(`pay ₹${'9'.repeat(40)}`);
    expect(result.entities.amounts).toBeUndefined();
  });

  it('reads the digits of every Unicode script as ASCII, including adjoining blocks', () => {
    expect(asciiDigits('०१२३४५६७८९ ٠١٢٣٤٥٦٧٨٩ ০৯ ０９')).toBe('0123456789 0123456789 09 09');
    // U+1D7CE.. holds five blocks of ten digits back to back: 𝟗 ends the first, 𝟘 opens the second.
    expect(asciiDigits('\u{1d7d7}\u{1d7d8}\u{1d7e1}\u{1d7ff}')).toBe('9099');
  });

  it('routes 10,000 generated queries with every property held', () => {
    const queries = generatedQueries(10_000, 27);
    let long = 0;
    for (const [i, query] of queries.entries()) {
      if (query.length >= 1000) long++;
      const routed = route(query);
      try {
        checkRoute(query, routed);
        expect(normalize(normalize(query))).toBe(normalize(query));
      } catch (err) {
        throw new Error(
          `query #${i} (${query.length} chars) ${JSON.stringify(query.slice(0, 120))}…: ${err}`,
        );
      }
    }
    expect(long).toBeGreaterThan(800);
  }, 180_000);
});
