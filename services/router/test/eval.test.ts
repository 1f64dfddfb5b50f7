import { describe, expect, it } from 'vitest';
import { evaluate, loadQueries } from '../eval/evaluate.ts';
import { DEFAULT_RULES } from '../src/learning.ts';

describe('router evaluation set', () => {
  const queries = loadQueries();
  const scores = evaluate(queries);

  it('holds at least 300 labelled queries of every kind', () => {
    expect(queries.length).toBeGreaterThanOrEqual(300);
    const kinds = new Set(queries.map((q) => q.kind));
    for (const kind of [
      'intent',
      'chat',
      'off_topic',
      'llm',
      'multi',
      'follow_up',
      'confirmation',
      'order',
      'filter',
    ])
      expect(kinds).toContain(kind);
  });

  it('meets the goals: category ≥ 98 %, fast-path precision ≥ 99 %, recall ≥ 85 %', () => {
    expect(scores.categoryAccuracy).toBeGreaterThanOrEqual(0.98);
    expect(scores.fastPrecision).toBeGreaterThanOrEqual(0.99);
    expect(scores.fastRecall).toBeGreaterThanOrEqual(0.85);
  });

  it('holds ≥ 50 orders and ≥ 30 filtered questions, none answered by a read fast path at any adaptive threshold', () => {
    expect(queries.filter((q) => q.kind === 'order').length).toBeGreaterThanOrEqual(50);
    expect(queries.filter((q) => q.kind === 'filter').length).toBeGreaterThanOrEqual(30);
    for (const threshold of [0.85, 0.85 - DEFAULT_RULES.step, DEFAULT_RULES.min]) {
      const s = threshold === 0.85 ? scores : evaluate(queries, undefined, undefined, threshold);
      expect(s.ordersFast, `orders at ${threshold}`).toBe(0);
      expect(s.filtersDropped, `filters at ${threshold}`).toBe(0);
      expect(s.fastPrecision, `precision at ${threshold}`).toBeGreaterThanOrEqual(0.99);
      expect(s.fastRecall, `recall at ${threshold}`).toBeGreaterThanOrEqual(0.85);
    }
  });

  it('offers ≥ 70 % fewer tool-definition tokens than every tool, with the needed groups offered', () => {
    expect(scores.tokens.saving).toBeGreaterThanOrEqual(0.7);
    expect(scores.tokens.coverage).toBeGreaterThanOrEqual(0.95);
  });
});
