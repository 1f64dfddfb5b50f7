import type { ToolDefinition } from '@munim/contracts';
import { describe, expect, it } from 'vitest';
import { classify } from '../src/classifier.ts';
import { extractEntities } from '../src/entities.ts';
import { type Intent, IntentMatcher } from '../src/intents.ts';
import { selectTier } from '../src/tier.ts';
import { groupsOfTool, selectTools } from '../src/tool-groups.ts';

describe('keyword classifier', () => {
  it.each(['hello', 'Hi!', 'namaste', 'thanks', 'ok', 'bye', 'what can you do', 'haan', 'good morning'])(
    '%s is general chat',
    (q) => expect(classify(q).category).toBe('general_chat'),
  );

  it.each([
    'show all invoices',
    'Record ₹5000 payment from Acme Corp',
    'GST summary',
    'bikri dikhao',
    'profit?',
  ])('%s is unified', (q) => expect(classify(q).category).toBe('unified'));

  it('detects a greeting together with a financial question', () => {
    expect(classify('hi, show my overdue invoices')).toMatchObject({ category: 'unified', crossover: true });
    expect(classify('show my overdue invoices').crossover).toBe(false);
  });

  it('does not match keywords inside other words', () => {
    expect(classify('this is a billion dollar idea').keywords).not.toContain('bill');
  });
});

const intents: Intent[] = [
  {
    id: '1',
    name: 'list_invoices',
    moduleId: 'sales',
    description: null,
    trainingPhrases: ['show all invoices', 'list invoices', 'sabhi invoice dikhao'],
    resolutionFlow: [{ tool: 'get_all_invoices', args: {}, description: 'List invoices', purpose: 'answer' }],
  },
  {
    id: '2',
    name: 'profit_and_loss',
    moduleId: 'reports',
    description: null,
    trainingPhrases: ['show profit and loss', 'p&l statement'],
    resolutionFlow: [{ tool: 'get_profit_loss', args: {}, description: 'P&L', purpose: 'answer' }],
  },
];

describe('intent matching', () => {
  const matcher = new IntentMatcher();
  matcher.replace(intents);

  it('scores an exact phrase 0.95, ignoring case and punctuation', () => {
    expect(matcher.match('Show all invoices!')?.intent).toMatchObject({
      name: 'list_invoices',
      confidence: 0.95,
    });
  });

  it('is robust to filler words, word order, plurals, Hinglish and typos', () => {
    for (const q of [
      'please show me all my invoices',
      'invoices list',
      'mere saare invoices dikhao',
      'show all invoise',
      'INVOICES??',
    ]) {
      expect(matcher.match(q)?.intent, q).toMatchObject({ name: 'list_invoices', confidence: 0.95 });
    }
    expect(matcher.match('profit & loss statement')?.intent).toMatchObject({
      name: 'profit_and_loss',
      confidence: 0.95,
    });
  });

  it('scores a substring by length similarity between 0.70 and 0.95, below the fast path when words are unexplained', () => {
    const near = matcher.match('show all invoices of acme')?.intent.confidence ?? 0;
    const far =
      matcher.match('show all invoices for acme corp from last year please')?.intent.confidence ?? 0;
    expect(near).toBeGreaterThanOrEqual(0.7);
    expect(near).toBeLessThan(0.85);
    expect(far).toBeGreaterThanOrEqual(0.7);
    expect(far).toBeLessThanOrEqual(near);
  });

  it('scores a name match 0.60 and finds nothing for an unrelated query', () => {
    const named = new IntentMatcher();
    named.replace([{ ...intents[1], trainingPhrases: ['net profit figure'] } as Intent]);
    expect(named.match('profit and loss for acme please')?.intent).toMatchObject({
      name: 'profit_and_loss',
      confidence: 0.6,
    });
    expect(matcher.match('what is the weather')).toBeNull();
  });

  it('does not stretch a word beyond a small typo', () => {
    expect(matcher.match('list invoicesxyz')).toBeNull();
  });
});

describe('model tier', () => {
  it('keeps general chat and simple queries cheap', () => {
    expect(selectTier('compare and analyze trend', 'general_chat')).toBe('cheap');
    expect(selectTier('show all invoices', 'unified')).toBe('cheap');
    expect(selectTier('compare sales', 'unified')).toBe('cheap');
  });

  it('uses the capable tier for two indicators, or one in a long query', () => {
    expect(selectTier('compare revenue trend year over year', 'unified')).toBe('capable');
    const long = `${'please look at my sales numbers '.repeat(6)}and forecast`;
    expect(selectTier(long, 'unified')).toBe('capable');
  });
});

const registry: ToolDefinition[] = [
  'get_all_invoices',
  'create_invoice',
  'get_all_payments',
  'create_payment',
  'get_bills',
  'get_all_customers',
  'get_profit_loss',
  'get_aged_receivables_report',
].map((name) => ({ name, inputSchema: { type: 'object' }, isWrite: name.startsWith('create_') }));

describe('tool selection', () => {
  it('offers nothing for general chat', () => {
    expect(selectTools('hello', 'general_chat', registry)).toEqual({
      strategy: 'none',
      groups: [],
      tools: [],
    });
  });

  it('offers the keyword-matched groups', () => {
    const s = selectTools('record a payment from Acme', 'unified', registry);
    expect(s.strategy).toBe('keyword_matched_dynamic');
    expect(s.groups).toContain('payments');
    expect(s.tools).toEqual(expect.arrayContaining(['get_all_payments', 'create_payment']));
    expect(s.tools).not.toContain('get_profit_loss');
  });

  it('falls back to the default groups, then to every tool', () => {
    expect(selectTools('what should I do this month', 'unified', registry).strategy).toBe(
      'default_unified_dynamic',
    );
    const onlyOdd: ToolDefinition[] = [{ name: 'frobnicate', inputSchema: {}, isWrite: false }];
    expect(selectTools('what should I do this month', 'unified', onlyOdd)).toMatchObject({
      strategy: 'all_tools_fallback',
      tools: ['frobnicate'],
    });
  });

  it('places an unlisted tool in its group by name', () => {
    expect(groupsOfTool('get_invoice_pdf')).toContain('invoices');
    expect(groupsOfTool('get_aged_receivables_report')).toContain('aging_reports');
  });
});

describe('entities', () => {
  it('reads amounts, document numbers, entity kinds and the overdue flag', () => {
    expect(extractEntities('Record ₹5,000 payment for INV-0042')).toEqual({
      documentNumbers: ['INV-0042'],
      documentNumber: 'INV-0042',
      amounts: [5000],
      entityTypes: ['payments'],
    });
    expect(extractEntities('show overdue bills')).toEqual({ entityTypes: ['bills'], overdue: true });
    expect(extractEntities('das hazaar ka payment record karo').amounts).toEqual([10000]);
    expect(extractEntities('show all bills and invoices').entityTypes).toEqual(['invoices', 'bills']);
    expect(extractEntities('invoices of 2024').amounts).toBeUndefined();
  });
});
