import { describe, expect, it } from 'vitest';
import { loadWrites, scoreWrites } from '../eval/requested-score.ts';
import { asksForChange } from '../src/confirmation/requested.ts';

/**
 * The unrequested-write flag on labelled (message, proposed write) pairs. The
 * first holdout was written with the dev set, before either was first scored, and not tuned on
 * since. The second was written after the rules were frozen and scored once: precision 84.6 %,
 * recall 100 %. Three of its four misses were fixed after (so it is no longer unseen); its bars are
 * what was measured on first contact.
 */
describe('unrequested_write on labelled pairs', () => {
  const dev = loadWrites();
  const holdout = loadWrites('requested-writes-holdout.jsonl');

  it('holds at least 100 pairs in English, Hindi and Hinglish, asked for and not, and a holdout of 30', () => {
    expect(dev.length).toBeGreaterThanOrEqual(100);
    expect(holdout.length).toBeGreaterThanOrEqual(30);
    for (const set of [dev, holdout])
      for (const lang of ['en', 'hi', 'hinglish']) {
        expect(set.filter((p) => p.lang === lang && p.requested).length).toBeGreaterThanOrEqual(4);
        expect(set.filter((p) => p.lang === lang && !p.requested).length).toBeGreaterThanOrEqual(4);
      }
  });

  it('flags every unasked write of the dev set and no asked one', () => {
    const s = scoreWrites(dev);
    expect(s.misses).toEqual([]);
    expect(s.precision).toBe(1);
    expect(s.recall).toBe(1);
  });

  it('holds on the holdout: precision and recall ≥ 95 %', () => {
    const s = scoreWrites(holdout);
    expect(s.precision).toBeGreaterThanOrEqual(0.95);
    expect(s.recall).toBeGreaterThanOrEqual(0.95);
  });

  it('holds on the second holdout as on first contact: every unasked write flagged, precision ≥ 84 %', () => {
    const second = loadWrites('requested-writes-holdout2.jsonl');
    expect(second.length).toBeGreaterThanOrEqual(30);
    const s = scoreWrites(second);
    expect(s.recall).toBe(1);
    expect(s.precision).toBeGreaterThanOrEqual(0.84);
  });
});

/** Every combination of the parts, as [a, b, …] tuples. */
function* combos<T extends unknown[]>(...lists: { [K in keyof T]: readonly T[K][] }): Generator<T> {
  const [first, ...rest] = lists as unknown as unknown[][];
  if (first === undefined) {
    yield [] as unknown as T;
    return;
  }
  for (const a of first)
    for (const tail of combos(...(rest as never[]))) yield [a, ...(tail as unknown[])] as T;
}

/** Objects by how a message names them, with the tool noun they stand for. */
const OBJECTS = [
  ['invoice INV-0042', 'invoice'],
  ['the bill BILL-7', 'bill'],
  ['customer Acme Corp', 'customer'],
  ['vendor Gupta Steel', 'vendor'],
  ['the journal entry JE-3', 'journal_entry'],
  ['expense EXP-12', 'expense'],
] as const;

/** Order verbs with the tool verbs they ask for and one tool verb of another kind they do not. */
const VERBS = [
  ['delete', 'delete', 'create'],
  ['void', 'void', 'delete'],
  ['cancel', 'cancel', 'update'],
  ['update', 'update', 'delete'],
  ['send', 'send', 'void'],
  ['approve', 'approve', 'delete'],
  ['create', 'create', 'send'],
] as const;

const PARTICIPLES = [
  'deleted',
  'voided',
  'cancelled',
  'updated',
  'sent',
  'approved',
  'created',
  'paid',
  'attached',
  'recorded',
];

describe('the flag by principle, on generated messages', () => {
  it('an order names its action and its record: the same kind asked for, another kind or record not', () => {
    const leads = ['', 'please ', 'can you ', 'could you please ', 'I want you to ', 'go ahead and '];
    let n = 0;
    for (const [lead, [verb, tool, other], [phrase, noun]] of combos(leads, VERBS, OBJECTS)) {
      const message = `${lead}${verb} ${phrase}`;
      expect(asksForChange(message, `${tool}_${noun}`), message).toBe(true);
      expect(asksForChange(message, `${other}_${noun}`), `${message} → ${other}`).toBe(false);
      for (const [, elsewhere] of OBJECTS)
        if (elsewhere !== noun) expect(asksForChange(message, `${tool}_${elsewhere}`), message).toBe(false);
      n++;
    }
    expect(n).toBe(252);
  });

  it('a change word that only describes what is read asks for nothing', () => {
    const reads = ['show', 'list', 'summarise', 'how many', 'which are the', 'give me the', 'dikhao'];
    const nouns = ['invoices', 'bills', 'customers', 'statement', 'expenses', 'journal entries'];
    for (const [read, word, noun] of combos(reads, PARTICIPLES, nouns)) {
      const message = read === 'dikhao' ? `${word} ${noun} dikhao` : `${read} ${word} ${noun}`;
      for (const [, tool] of VERBS)
        for (const [, object] of OBJECTS)
          expect(asksForChange(message, `${tool}_${object}`), `${message} → ${tool}_${object}`).toBe(false);
    }
  });

  it("a tool's own name typed in any style asks for that tool's write", () => {
    const names = [
      'create_invoice',
      'create-invoice',
      'createInvoice',
      'invoices.create',
      'books__create_invoice',
    ];
    for (const [name, other] of combos(names, ['void_invoice', 'create_customer'])) {
      const message = `books: ${name} in my accounts 1a2b3c4d`;
      expect(asksForChange(message, name), message).toBe(true);
      expect(asksForChange(message, other), `${message} → ${other}`).toBe(false);
      expect(asksForChange(`don't ${name}`, name), `don't ${name}`).toBe(false);
    }
  });

  it('a denied order asks for nothing, in English, Hinglish and Hindi', () => {
    const denied = [
      (v: string, o: string) => `don't ${v} ${o}`,
      (v: string, o: string) => `do not ${v} ${o}`,
      (v: string, o: string) => `never ${v} ${o}`,
      (v: string, o: string) => `${o} ${v} mat karo`,
      (v: string, o: string) => `${o} ko ${v} na karo`,
      (v: string, o: string) => `${o} ${v} नहीं करना`,
    ];
    for (const [say, [verb, tool], [phrase, noun]] of combos(denied, VERBS, OBJECTS)) {
      const message = say(verb, phrase);
      expect(asksForChange(message, `${tool}_${noun}`), message).toBe(false);
    }
  });

  it('an order in Hinglish or Hindi asks for its write; told as done it does not', () => {
    const refs = [
      ['INV-0042', 'invoice'],
      ['BILL-7', 'bill'],
    ] as const;
    const asked = [
      '{r} {v} kar do',
      '{r} ko {v} karo',
      'kya aap {r} {v} kar sakte ho',
      '{r} {v} कर दो',
      '{r} को {v} कीजिए',
    ];
    const told = ['{r} {v} kar diya', 'kya {r} {v} hua', '{r} {v} ho gaya', '{r} {v} किया', 'क्या {r} {v} हुआ'];
    for (const [[ref, noun], [verb, tool]] of combos(refs, VERBS)) {
      for (const t of asked) {
        const m = t.replace('{r}', ref).replace('{v}', verb);
        expect(asksForChange(m, `${tool}_${noun}`), m).toBe(true);
      }
      for (const t of told) {
        const m = t.replace('{r}', ref).replace('{v}', verb);
        expect(asksForChange(m, `${tool}_${noun}`), m).toBe(false);
      }
    }
  });
});
