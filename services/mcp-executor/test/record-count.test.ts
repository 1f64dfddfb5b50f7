import { describe, expect, it } from 'vitest';
import { recordCount } from '../src/result.ts';

describe('recordCount', () => {
  it('counts a list, bare or inside any accounting system’s envelope', () => {
    expect(recordCount([{ id: 1 }, { id: 2 }, { id: 3 }])).toBe(3);
    expect(recordCount({ Invoices: [{}, {}], TotalCount: 81 })).toBe(2);
    expect(recordCount({ QueryResponse: { Invoice: [{}, {}, {}, {}], maxResults: 4 } })).toBe(4);
    expect(recordCount({ code: 0, message: 'success', contacts: [{}], page_context: { page: 1 } })).toBe(1);
    expect(recordCount({ items: [], truncated: false })).toBe(0);
  });

  it('counts the list with the most data when there are several', () => {
    expect(recordCount({ Warnings: ['a'], Bills: [{ a: 'x'.repeat(50) }, { a: 'y'.repeat(50) }] })).toBe(2);
  });

  it('counts one record for a document or a write’s answer, and none for nothing', () => {
    expect(recordCount({ InvoiceID: 'x', Total: 100 })).toBe(1);
    expect(recordCount('Customer created')).toBe(1);
    expect(recordCount(undefined)).toBe(0);
    expect(recordCount(null)).toBe(0);
    expect(recordCount('')).toBe(0);
  });
});
