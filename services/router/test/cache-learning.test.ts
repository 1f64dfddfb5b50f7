import type { EventPayload } from '@munim/contracts';
import { describe, expect, it } from 'vitest';
import {
  cachedComplete,
  cacheKey,
  cacheQuery,
  DEFAULT_TTLS,
  dataKindOf,
  expressesWrite,
  isCacheableAnswer,
  succeededWrites,
  toCachedAnswer,
  ttlFor,
} from '../src/cache.ts';
import { contextFromMessages } from '../src/conversation.ts';
import { adaptiveThreshold, confidenceBucket, DEFAULT_RULES, suggestedIntentName } from '../src/learning.ts';

const rules = { defaultThreshold: 0.85, ...DEFAULT_RULES };

function complete(over: Partial<EventPayload<'complete'>> = {}): EventPayload<'complete'> {
  return {
    query: 'show all invoices',
    path: 'fast',
    category: 'unified',
    matchedIntent: null,
    extractedEntities: {},
    reasoning: 'r',
    pipelineSteps: [],
    enrichments: [],
    responseFormat: 'markdown',
    response: 'You have 3 invoices.',
    mcpToolResults: [{ tool: 'get_all_invoices', success: true, result: [] }],
    dataSources: ['get_all_invoices'],
    llmModel: 'm',
    iterationCount: 1,
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    status: 'answered',
    ...over,
  };
}

describe('adaptive thresholds', () => {
  it('lowers by 0.05 above 90 % success with 20+ attempts, not below 0.70', () => {
    expect(adaptiveThreshold({ attempts: 20, successes: 19 }, rules)).toBe(0.8);
    expect(adaptiveThreshold({ attempts: 19, successes: 19 }, rules)).toBe(0.85);
    expect(adaptiveThreshold({ attempts: 20, successes: 18 }, rules)).toBe(0.85);
    expect(adaptiveThreshold({ attempts: 50, successes: 50 }, { ...rules, defaultThreshold: 0.72 })).toBe(
      0.7,
    );
  });

  it('raises by 0.05 under 70 % success with 10+ attempts, not above 0.95', () => {
    expect(adaptiveThreshold({ attempts: 10, successes: 6 }, rules)).toBe(0.9);
    expect(adaptiveThreshold({ attempts: 9, successes: 0 }, rules)).toBe(0.85);
    expect(adaptiveThreshold({ attempts: 10, successes: 7 }, rules)).toBe(0.85);
    expect(adaptiveThreshold({ attempts: 10, successes: 0 }, { ...rules, defaultThreshold: 0.93 })).toBe(
      0.95,
    );
    expect(adaptiveThreshold(undefined, rules)).toBe(0.85);
  });

  it('buckets confidences by 0.05', () => {
    expect(confidenceBucket(0.85)).toBe(0.85);
    expect(confidenceBucket(0.899)).toBe(0.85);
    expect(confidenceBucket(0.95)).toBe(0.95);
    expect(confidenceBucket(0.7)).toBe(0.7);
    expect(confidenceBucket(1)).toBe(1);
  });

  it('names a suggested intent after its query', () => {
    expect(suggestedIntentName('which customer owes most', 'abcdef0123')).toBe(
      'suggested_which_customer_owes_most_abcdef01',
    );
  });
});

describe('response cache rules', () => {
  it('keys by the normalised query and the path', () => {
    expect(cacheKey(cacheQuery('Show ALL invoices!!'), 'fast')).toBe(
      cacheKey(cacheQuery('show all invoices'), 'fast'),
    );
    expect(cacheKey(cacheQuery('show all invoices'), 'fast')).not.toBe(
      cacheKey(cacheQuery('show all invoices'), 'llm'),
    );
    expect(cacheKey(cacheQuery('show all bills'), 'fast')).not.toBe(
      cacheKey(cacheQuery('show all invoices'), 'fast'),
    );
    expect(cacheKey('x', 'fast')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('picks the TTL by the kind of data the answer was built from', () => {
    expect(dataKindOf(['get_all_invoices', 'get_profit_loss'])).toBe('volatile');
    expect(dataKindOf(['get_profit_loss'])).toBe('report');
    expect(dataKindOf(['get_charts_of_accounts'])).toBe('static');
    expect(dataKindOf([])).toBe('static');
    expect(ttlFor('volatile', DEFAULT_TTLS)).toBe(300_000);
    expect(ttlFor('report', DEFAULT_TTLS)).toBe(900_000);
    expect(ttlFor('static', DEFAULT_TTLS)).toBe(3_600_000);
  });

  it('caches answered reads only', () => {
    expect(isCacheableAnswer(complete())).toBe(true);
    const write = { tool: 'create_invoice', success: true };
    expect(isCacheableAnswer(complete({ mcpToolResults: [write] }))).toBe(false);
    expect(
      succeededWrites(complete({ mcpToolResults: [write, { tool: 'void_invoice', success: false }] })),
    ).toEqual(['create_invoice']);
    for (const status of ['awaiting_confirmation', 'cancelled', 'needs_input'] as const)
      expect(isCacheableAnswer(complete({ status })), status).toBe(false);
    expect(isCacheableAnswer(complete({ category: 'general_chat' }))).toBe(false);
    expect(isCacheableAnswer(complete({ mcpToolResults: [{ tool: 'get_bills', success: false }] }))).toBe(
      false,
    );
    expect(isCacheableAnswer(complete({ guardrails: ['hallucinated_success_stripped'] }))).toBe(false);
  });

  it('takes a call for a write as the registry classified it, whatever its name says', () => {
    // `read_query` reads by its name; its description ("Execute a SELECT query") made it a write.
    const ranSql = { tool: 'read_query', success: true, write: true };
    expect(isCacheableAnswer(complete({ mcpToolResults: [ranSql] }))).toBe(false);
    expect(succeededWrites(complete({ mcpToolResults: [ranSql] }))).toEqual(['read_query']);
    // A read the policy proved: cached though its name would not be.
    expect(
      isCacheableAnswer(complete({ mcpToolResults: [{ tool: 'echo', success: true, write: false }] })),
    ).toBe(true);
  });

  it('recognises a query that asks for a change, in English and Hinglish', () => {
    for (const q of [
      'create an invoice for Acme',
      'record ₹5000 payment',
      'Acme ka bill banao',
      'invoice bhej do',
    ])
      expect(expressesWrite(cacheQuery(q)), q).toBe(true);
    for (const q of ['show all invoices', 'payables aging', 'bills dikhao', 'profit and loss statement'])
      expect(expressesWrite(cacheQuery(q)), q).toBe(false);
  });

  it('replays a cached answer with no tool call and no usage', () => {
    const replay = cachedComplete('SHOW all invoices', toCachedAnswer(complete(), 'req-1'));
    expect(replay).toMatchObject({
      query: 'SHOW all invoices',
      path: 'cached',
      status: 'answered',
      response: 'You have 3 invoices.',
      mcpToolResults: [],
      dataSources: ['get_all_invoices'],
      iterationCount: 0,
      usage: { total_tokens: 0 },
    });
  });
});

describe('conversation context from stored messages', () => {
  const turn = (content: string, tools: string[]) => [
    { role: 'user' as const, content },
    { role: 'assistant' as const, content: 'answer', metadata: { status: 'answered', tools } },
  ];

  it('takes the groups of the newest turn that used tools', () => {
    const ctx = contextFromMessages([...turn('show bills', ['get_bills']), ...turn('thanks', [])], false);
    expect(ctx).toEqual({ previousGroups: ['bills'], pendingAction: false, turns: 2 });
  });

  it('falls back to the groups the user named, and reports a pending action', () => {
    const ctx = contextFromMessages(turn('create an invoice for Acme', []), true);
    expect(ctx).toEqual({ previousGroups: ['invoices'], pendingAction: true, turns: 1 });
  });

  it('is empty without history', () => {
    expect(contextFromMessages([], false)).toEqual({ previousGroups: [], pendingAction: false, turns: 0 });
  });
});
