import { describe, expect, it } from 'vitest';
import { implicitSignal, keywordOverlap, saysWrong } from '../src/feedback.ts';

const read = { query: 'show overdue invoices for Acme Corp', status: 'answered', is_write_operation: false };

describe('implicit feedback signals read from the next query', () => {
  it('measures keyword overlap without stopwords', () => {
    expect(keywordOverlap('show overdue invoices', 'list the overdue invoices please')).toBe(1);
    expect(keywordOverlap('overdue invoices', 'cash balance')).toBe(0);
    expect(keywordOverlap('overdue invoices Acme', 'overdue bills Acme')).toBeCloseTo(2 / 3, 5);
  });

  it('reads a rephrase (> 60 % overlap) as −1, even of an answered question', () => {
    expect(implicitSignal(read, 'list my overdue invoices of Acme Corp please')).toEqual({
      signal: 'rephrase',
      score: -1,
    });
    // 3 of 5 keywords shared is exactly 60 %: not a rephrase.
    expect(implicitSignal(read, 'overdue invoices Acme totals sorted')?.signal).not.toBe('rephrase');
  });

  it('reads a write order after a read answer as action taken (+2)', () => {
    expect(implicitSignal(read, 'Record ₹5000 payment from Acme Corp against INV-042')).toEqual({
      signal: 'action_taken',
      score: 2,
    });
    expect(
      implicitSignal({ ...read, is_write_operation: true }, 'record another payment of 300 from Beta'),
    ).toBeNull();
  });

  it('reads a short query building on the answer as a follow-up (+1)', () => {
    expect(implicitSignal(read, 'and last month?')).toEqual({ signal: 'follow_up', score: 1 });
    expect(
      implicitSignal(read, 'what is our total cash position across every bank account today'),
    ).toBeNull();
  });

  it('gives nothing about an answer that did not finish, except a rephrase', () => {
    expect(implicitSignal({ ...read, status: 'error' }, 'and last month?')).toBeNull();
    expect(implicitSignal({ ...read, status: 'error' }, 'overdue invoices Acme Corp')?.signal).toBe(
      'rephrase',
    );
    expect(implicitSignal({ ...read, query: null }, 'overdue invoices Acme Corp')).toBeNull();
  });

  it('reads a next query saying the answer was wrong as a correction (−1), in English, Hinglish and Hindi', () => {
    for (const next of [
      'no, that’s wrong',
      'No I meant last quarter',
      'that is incorrect',
      'these numbers are wrong',
      'wrong total',
      'this is not right',
      'not what I asked',
      'I asked for unpaid ones only',
      'it doesn’t add up',
      'ye galat hai',
      'sahi nahi hai',
      'maine March ka pucha tha',
      'यह गलत है',
      'ये सही नहीं है',
    ]) {
      expect({ next, signal: implicitSignal(read, next) }).toEqual({
        next,
        signal: { signal: 'correction', score: -1 },
      });
    }
  });

  it('does not read a correction into a question that merely holds a negative word', () => {
    for (const next of [
      'no of invoices overdue',
      'no thanks',
      'no',
      'what is wrong with INV-042?',
      'show the correct GST rate',
      'which invoices are not paid',
      'and last month?',
    ]) {
      expect({ next, wrong: saysWrong(next) }).toEqual({ next, wrong: false });
    }
    expect(implicitSignal(read, 'no thanks')).toEqual({ signal: 'follow_up', score: 1 });
    // Only an answer can be wrong: after a question back, “no, I meant March” answers it.
    expect(implicitSignal({ ...read, status: 'needs_input' }, 'no, I meant March')).toBeNull();
  });

  it('keeps a Devanagari word whole, so a Hindi question asked again is a rephrase', () => {
    const hindi = { ...read, query: 'बकाया चालान दिखाओ' };
    // Split at its vowel signs, “बकाया” left only “बक”, and any two questions about dues matched.
    expect(implicitSignal(hindi, 'बकाया राशि')?.signal).not.toBe('rephrase');
    expect(implicitSignal(hindi, 'मेरे बकाया चालान दिखाओ')).toEqual({ signal: 'rephrase', score: -1 });
  });
});
