import { describe, expect, it } from 'vitest';
import { demoRegistry, seededIntents } from '../eval/evaluate.ts';
import { IntentMatcher } from '../src/intents.ts';
import { DEFAULT_RULES } from '../src/learning.ts';
import { ordersChange } from '../src/orders.ts';
import { routeQuery } from '../src/route.ts';

const matcher = new IntentMatcher();
matcher.replace(seededIntents());
const registry = demoRegistry();
const route = (query: string, threshold = 0.85) =>
  routeQuery({ query, matcher, registry, thresholdFor: () => threshold, strategy: 'dynamic' }).decision;
// 0.85 by default, 0.80 once an intent has a good record, 0.70 the lowest an operator's default may reach.
const thresholds = [0.85, 0.85 - DEFAULT_RULES.step, DEFAULT_RULES.min];

describe('an order to change the books never takes the fast path to a read intent', () => {
  it.each([
    ['Please void the invoice', 'get_all_invoices', 'void_invoice'],
    ['can you void INV-0042?', 'get_invoice', 'void_invoice'],
    ['approve the bills awaiting approval', 'get_bills', 'approve_bill'],
    ['bill ka payment kar do', 'get_bills', 'create_bill_payment'],
    ['kya aap INV-0042 void kar sakte ho?', 'get_invoice', 'void_invoice'],
    ['सभी बिल मंज़ूर करो', 'get_bills', 'approve_bill'],
    ['would you mind voiding INV-0042', 'get_invoice', 'void_invoice'],
    ['show me INV-0042 and then void it', 'get_invoice', 'void_invoice'],
  ])('%s goes to the model with %s and %s offered', (query, read, write) => {
    for (const threshold of thresholds) {
      const d = route(query, threshold);
      expect(d, `${query} at ${threshold}`).toMatchObject({ path: 'llm', intent: null, pipeline: [] });
      expect(d.reasoning).toBe('an order to change the books: the model carries it out');
      expect(d.tools).toEqual(expect.arrayContaining([read, write]));
    }
  });

  it.each([
    ['voided invoices', 'voided_invoices'],
    ['void invoice list', 'voided_invoices'],
    ['cancel hue invoice dikhao', 'voided_invoices'],
    ['bills awaiting approval', 'bills_awaiting_approval'],
    ['kaunse bill approve karne hain', 'bills_awaiting_approval'],
    ['bills to pay', 'unpaid_bills'],
    ['jin bill ka payment ho gaya', 'paid_bills'],
    ['send me the balance sheet', 'balance_sheet'],
  ])('the read "%s" keeps its fast path to %s', (query, intent) => {
    expect(ordersChange(query)).toBe(false);
    expect(route(query)).toMatchObject({ path: 'fast', intent: { name: intent } });
  });

  it('finds no order in any training phrase of the catalog: intents hold reads', () => {
    const orders = seededIntents().flatMap((i) => i.trainingPhrases.filter((p) => ordersChange(p)));
    expect(orders).toEqual([]);
  });
});

describe('a filter is filled into the intent or the model answers', () => {
  it('keeps a capped match off the fast path at every threshold the record can reach', () => {
    for (const query of [
      'show overdue invoices for Acme Corp',
      'show overdue invoices from last quarter',
      'top 5 overdue invoices',
      'Acme ke overdue invoices dikhao',
    ]) {
      const found = matcher.match(query);
      expect(found?.intent.name, query).toBe('overdue_invoices');
      expect(found?.capped, query).toBe(true);
      for (const threshold of thresholds)
        expect(route(query, threshold).path, `${query} at ${threshold}`).toBe('llm');
    }
    // An intent's own phrase still goes fast at the lowered threshold.
    for (const threshold of thresholds) expect(route('show overdue invoices', threshold).path).toBe('fast');
  });

  it('fills a document number, and sends two to the model rather than answer for one', () => {
    expect(route('INV-0099 dikhao').pipeline[0]).toMatchObject({
      tool: 'get_invoice',
      args: { InvoiceNumber: 'INV-0099' },
    });
    expect(route('show invoice INV-0042 and INV-0043', 0.7)).toMatchObject({ path: 'llm', pipeline: [] });
  });

  it('does not spell a party into a stopword: "of Tata" is not "of data"', () => {
    for (const query of ['show all invoices of Tata', 'show all invoices of tata', 'list bills from Bata']) {
      expect(matcher.match(query)?.capped, query).toBe(true);
      expect(route(query, DEFAULT_RULES.min).path, query).toBe('llm');
    }
    // A typo of a stopword that keeps its first letter is still corrected.
    expect(route('shwo all invoices').path).toBe('fast');
  });
});
