// What makes a new record the same as one of the books, on generated records in many shapes: a
// payment is a duplicate exactly when the party and amount are the same and the dates at most 3
// days apart, whatever the spelling of its fields, the nesting of its party or the way its money
// and dates are written; a party exactly when its GSTIN, PAN or name (however decorated) is.
import { describe, expect, it } from 'vitest';
import { entryCall, entryMatch, partyCall, partyMatch } from '../src/confirmation/duplicate-facts.ts';

/** A small seeded PRNG, so a failure names a case that can be run again. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T,
  };
}

const PARTIES = [
  { id: 'C-1', name: 'Acme Corp' },
  { id: 'C-2', name: 'Bolt Ltd' },
  { id: 'C-3', name: 'Kumar Electricals' },
];
type Style = 'pascal' | 'camel' | 'snake';
const key = (style: Style, ...words: string[]) =>
  style === 'snake'
    ? words.join('_')
    : words
        .map((w, i) => (i === 0 && style === 'camel' ? w : w.charAt(0).toUpperCase() + w.slice(1)))
        .join('');
const day = (offset: number) =>
  new Date(Date.UTC(2026, 10, 12) + offset * 86_400_000).toISOString().slice(0, 10);

/** A payment record of the books in one of many shapes. */
function record(r: ReturnType<typeof prng>, party: (typeof PARTIES)[number], amount: number, offset: number) {
  const style = r.pick<Style>(['pascal', 'camel', 'snake']);
  const money = r.pick([
    amount,
    `₹${amount.toLocaleString('en-IN', { minimumFractionDigits: 2 })}`,
    { [key(style, 'amount')]: amount, [key(style, 'currency', 'code')]: 'INR' },
  ]);
  const who = r.pick([
    { [key(style, 'contact', 'id')]: party.id, [key(style, 'contact', 'name')]: party.name },
    { [key(style, 'customer')]: { id: party.id, name: party.name } },
    { [key(style, 'customer', 'ref')]: { value: party.id, name: party.name } },
  ]);
  const date = r.pick([day(offset), `${day(offset)}T10:00:00Z`]);
  return {
    [key(style, 'payment', 'id')]: `P-${r.int(1, 1e6)}`,
    ...who,
    [key(style, r.pick(['amount', 'total']))]: money,
    [key(style, ...r.pick([['date'], ['txn', 'date'], ['payment', 'date']]))]: date,
    [key(style, 'status')]: 'posted',
  };
}

describe('a payment repeated', () => {
  it('matches exactly when party and amount are the same within 3 days, in any shape', () => {
    const r = prng(20261128);
    let duplicates = 0;
    for (let i = 0; i < 400; i++) {
      const party = r.pick(PARTIES);
      const other = r.pick(PARTIES);
      const amount = r.pick([4500, 4500.5, 18000, 72000]);
      const theirs = r.pick([amount, amount, 4600, 18000]);
      const offset = r.int(-8, 8);
      const call = entryCall(
        'record_payment',
        { customerId: party.id, amount, paymentDate: day(0) },
        new Map([[party.id, { record: { id: party.id, displayName: party.name } }]]),
      );
      const books = record(r, other, theirs, offset);
      const expected = party.id === other.id && theirs === amount && Math.abs(offset) <= 3;
      if (expected) duplicates += 1;
      expect(entryMatch(call, books), `case ${i}: ${JSON.stringify(books)}`).toBe(
        expected ? 'amount' : undefined,
      );
    }
    expect(duplicates).toBeGreaterThan(20);
  });

  it('is no duplicate once void, or when it settles another invoice', () => {
    const call = entryCall(
      'create_payment',
      { ContactId: 'C-1', Amount: 4500, Date: day(0), Applications: [{ InvoiceId: 'I-1', Amount: 4500 }] },
      new Map(),
    );
    const books = { PaymentId: 'P-1', ContactId: 'C-1', Amount: 4500, Date: day(1) };
    expect(entryMatch(call, { ...books, Applications: [{ InvoiceId: 'I-1', Amount: 4500 }] })).toBe('amount');
    expect(entryMatch(call, { ...books, Status: 'VOIDED' })).toBeUndefined();
    expect(
      entryMatch(call, { ...books, Applications: [{ InvoiceId: 'I-2', Amount: 4500 }] }),
    ).toBeUndefined();
  });
});

describe('a party repeated', () => {
  const decorate = (r: ReturnType<typeof prng>, name: string) => {
    const cased = r.pick([name, name.toUpperCase(), name.toLowerCase()]);
    const spaced = r.pick([cased, `  ${cased.replace(/ /g, '   ')} `]);
    return `${r.pick(['', 'M/s ', 'M/s. '])}${spaced}${r.pick(['', ' Pvt Ltd', ' Pvt. Ltd.', ' Private Limited'])}`;
  };
  const BOOKS = [
    { Name: 'Singh & Sons Hardware', GSTIN: '07KEUFS4926G1Z7' },
    { displayName: 'Reddy Builders Pvt Ltd', taxDetails: { panNumber: 'BIRCR8981L' } },
    { legal_name: 'Kumar Electricals', tax: { gstin: '27ZKUCK5356B1ZZ' } },
  ];

  it('is found by any spelling of its name, and by its GSTIN or PAN under another name', () => {
    const r = prng(7);
    const names = ['Singh and Sons Hardware', 'Reddy Builders', 'Kumar Electricals'];
    for (let i = 0; i < 200; i++) {
      const at = r.int(0, 2);
      const spelled = decorate(r, names[at] as string);
      expect(partyMatch(partyCall({ name: spelled }), BOOKS[at] as Record<string, unknown>), spelled).toBe(
        'name',
      );
      const elsewhere = BOOKS[(at + 1) % 3] as Record<string, unknown>;
      expect(partyMatch(partyCall({ name: spelled }), elsewhere), spelled).toBeUndefined();
    }
    expect(partyMatch(partyCall({ Name: 'SSH', GSTIN: '07KEUFS4926G1Z7' }), BOOKS[0] as never)).toBe('gstin');
    expect(partyMatch(partyCall({ name: 'RB Infra', pan: 'BIRCR8981L' }), BOOKS[1] as never)).toBe('pan');
    // A GSTIN carries its PAN: another state's registration of one business.
    expect(partyMatch(partyCall({ name: 'KE', gstin: '29ZKUCK5356B1Z1' }), BOOKS[2] as never)).toBe('pan');
    // One name, two PANs: two legal persons.
    expect(
      partyMatch(partyCall({ name: 'Kumar Electricals', pan: 'AAACK1111K' }), BOOKS[2] as never),
    ).toBeUndefined();
  });
});
