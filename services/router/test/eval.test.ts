import { describe, expect, it } from 'vitest';
import { evaluate, loadQueries } from '../eval/evaluate.ts';

describe('router evaluation set (issue 4 items 10–11)', () => {
  const queries = loadQueries();
  const scores = evaluate(queries);

  it('holds at least 300 labelled queries of every kind', () => {
    expect(queries.length).toBeGreaterThanOrEqual(300);
    const kinds = new Set(queries.map((q) => q.kind));
    for (const kind of ['intent', 'chat', 'off_topic', 'llm', 'multi', 'follow_up', 'confirmation'])
      expect(kinds).toContain(kind);
  });

  it('meets the goals: category ≥ 98 %, fast-path precision ≥ 99 %, recall ≥ 85 %', () => {
    expect(scores.categoryAccuracy).toBeGreaterThanOrEqual(0.98);
    expect(scores.fastPrecision).toBeGreaterThanOrEqual(0.99);
    expect(scores.fastRecall).toBeGreaterThanOrEqual(0.85);
  });

  it('offers ≥ 70 % fewer tool-definition tokens than every tool, with the needed groups offered', () => {
    expect(scores.tokens.saving).toBeGreaterThanOrEqual(0.7);
    expect(scores.tokens.coverage).toBeGreaterThanOrEqual(0.95);
  });
});
