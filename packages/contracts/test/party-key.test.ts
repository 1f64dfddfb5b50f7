// A party's name as books compare it: one business however its name is written (case,
// punctuation, "&" or "and", "Pvt. Ltd." or "Private Limited", "M/s", spaces, initials), and two
// businesses whose names differ in a word stay two.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partyCore, partyKey } from '../src/index.ts';

const WORD = fc
  .stringMatching(/^[A-Z][a-z]{2,9}$/)
  .filter((w) => !/^(And|The|Pvt|Ltd|Llp|Inc|Co|Corp)$/i.test(w));
const FORMS = [
  '',
  ' Pvt Ltd',
  ' Pvt. Ltd.',
  ' Private Limited',
  ' PRIVATE LIMITED',
  ' Ltd',
  ' Limited',
  ' LLP',
  ' L.L.P.',
];

/** One way a person may write the name `words` (joined by "and"/"&" at `join`) with a legal form. */
const spelling = (words: string[], join: number) =>
  fc
    .tuple(
      fc.constantFrom('', 'M/s ', 'M/s. ', 'm/s '),
      fc.constantFrom(' and ', ' & ', ' &  ', ' AND '),
      fc.constantFrom(...FORMS),
      fc.constantFrom('lower', 'upper', 'as is'),
      fc.constantFrom(' ', '  ', ', ', ' - '),
    )
    .map(([prefix, and, form, kase, gap]) => {
      const text = `${prefix}${words.slice(0, join).join(gap)}${and}${words.slice(join).join(gap)}${form}`;
      return kase === 'lower' ? text.toLowerCase() : kase === 'upper' ? text.toUpperCase() : text;
    });

describe('a party name compared', () => {
  it('is one business however it is written', () => {
    const twoSpellings = fc
      .array(WORD, { minLength: 2, maxLength: 4 })
      .chain((words) => fc.tuple(fc.constant(words), fc.integer({ min: 1, max: words.length - 1 })))
      .chain(([words, join]) => fc.tuple(spelling(words, join), spelling(words, join)));
    fc.assert(
      fc.property(twoSpellings, ([a, b]) => {
        expect(partyCore(a), `${a} / ${b}`).toBe(partyCore(b));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps two businesses whose names differ in a word apart', () => {
    fc.assert(
      fc.property(fc.array(WORD, { minLength: 1, maxLength: 3 }), WORD, WORD, (words, x, y) => {
        fc.pre(x.toLowerCase() !== y.toLowerCase());
        expect(partyCore([...words, x].join(' '))).not.toBe(partyCore([...words, y].join(' ')));
      }),
    );
  });

  it('reads real names as one business', () => {
    const same = [
      ['Acme Corp', 'ACME Corporation', 'Acme Corp Pvt. Ltd.', 'M/s. acme corp'],
      ['Singh & Sons Hardware', 'Singh and Sons Hardware', '  singh  &  sons hardware '],
      ['Gupta Wires & Cables Pvt Ltd', 'Gupta Wires and Cables Private Limited'],
      ['Nair Hospitality LLP', 'Nair Hospitality L.L.P.'],
      ['Bharat Switchgear Co', 'Bharat Switchgear Company'],
      ['A. B. Traders', 'AB Traders'],
    ];
    for (const names of same)
      expect(new Set(names.map(partyCore)), names.join(' / ')).toHaveProperty('size', 1);
    expect(partyCore('Acme Robotics')).not.toBe(partyCore('Acme Corp'));
    expect(partyCore('Kumar Electricals Wholesale')).not.toBe(partyCore('Kumar Electricals'));
    // The key an approval policy compares keeps the legal form; the core drops it.
    expect(partyKey('Acme Corp Pvt. Ltd.')).toBe('acme corp pvt ltd');
    expect(partyKey('M/s Singh & Sons')).toBe(partyKey('Singh and Sons'));
    expect(partyCore('Pvt Ltd')).toBe('pvt ltd');
  });
});
