import { describe, expect, it } from 'vitest';
import { implicitSignal, keywordOverlap } from '../src/feedback.ts';

const read = { query: 'show overdue invoices for Acme Corp', status: 'answered', is_write_operation: false };

describe('implicit feedback signals (seed 003 §8.5)', () => {
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
});
