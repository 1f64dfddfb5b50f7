import { randomUUID } from 'node:crypto';
import { test } from '@munim/testkit';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { confidenceBucket } from '../src/learning.ts';
import { RouterStore } from '../src/store.ts';

const tenant = { entityId: 'ent-settle', orgId: 'org-settle' };

function route(over: { path?: string; intent_id?: string | null; confidence?: number | null } = {}) {
  return {
    request_id: randomUUID(),
    entity_id: tenant.entityId,
    org_id: tenant.orgId,
    query_normalized: 'show all invoices',
    path: 'fast',
    category: 'unified',
    strategy: 'intent',
    cacheable: true,
    intent_id: 'intent-settle',
    confidence: 0.9,
    ...over,
  };
}

describe('settling a route and counting its outcome in one statement', () => {
  test('buckets every confidence as confidenceBucket does', async ({ db }) => {
    const store = new RouterStore(db);
    const edges = [0, 1, -0.5, 1.5, 0.85, 0.8499999999, 0.05, 0.95, 0.7, 0.35, 0.1 + 0.2];
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom(...edges), fc.double({ min: -1, max: 2, noNaN: true })),
        async (confidence) => {
          const intent = `intent-${randomUUID()}`;
          const row = route({ intent_id: intent, confidence });
          await store.recordRoute(row);
          const settled = await store.settleFastRoute(row.request_id, tenant, {
            answered: true,
            counts: true,
          });
          expect(settled?.request_id).toBe(row.request_id);
          const stats = await db
            .selectFrom('intent_routing_stats')
            .select(['confidence_bucket', 'total_attempts', 'successful_attempts'])
            .where('intent_id', '=', intent)
            .execute();
          expect(
            stats.map((s) => [Number(s.confidence_bucket), s.total_attempts, s.successful_attempts]),
          ).toEqual([[confidenceBucket(confidence), 1, 1]]);
          const outcome = await db
            .selectFrom('routing_outcomes')
            .select(['confidence_bucket', 'intent_id', 'answered'])
            .where('request_id', '=', row.request_id)
            .executeTakeFirstOrThrow();
          expect([Number(outcome.confidence_bucket), outcome.intent_id, outcome.answered]).toEqual([
            confidenceBucket(confidence),
            intent,
            true,
          ]);
        },
      ),
      { numRuns: 60 },
    );
  });

  test('counts once, only a fast-path intent, and leaves an LLM-path route for the transaction', async ({
    db,
  }) => {
    const store = new RouterStore(db);
    const stats = (intent: string) =>
      db.selectFrom('intent_routing_stats').selectAll().where('intent_id', '=', intent).execute();

    // A failure counts as an attempt that failed; the same ending again finds nothing to settle.
    const failed = route({ intent_id: 'intent-failed', confidence: 0.86 });
    await store.recordRoute(failed);
    expect(
      await store.settleFastRoute(failed.request_id, tenant, { answered: false, counts: true }),
    ).toBeDefined();
    expect(
      await store.settleFastRoute(failed.request_id, tenant, { answered: false, counts: true }),
    ).toBeUndefined();
    expect(await stats('intent-failed')).toMatchObject([
      { total_attempts: 1, successful_attempts: 0, failed_attempts: 1 },
    ]);

    // An ending that says nothing of the intent (a question back) settles without counting.
    const asked = route({ intent_id: 'intent-asked' });
    await store.recordRoute(asked);
    expect(
      await store.settleFastRoute(asked.request_id, tenant, { answered: false, counts: false }),
    ).toBeDefined();
    expect(await stats('intent-asked')).toEqual([]);

    // No intent, or a path other than fast: settled, nothing counted.
    const none = route({ path: 'none', intent_id: null, confidence: null });
    await store.recordRoute(none);
    expect(
      await store.settleFastRoute(none.request_id, tenant, { answered: true, counts: true }),
    ).toBeDefined();

    // An LLM-path route stays for the transaction, which counts its pattern.
    const llm = route({ path: 'llm', intent_id: null, confidence: null });
    await store.recordRoute(llm);
    expect(
      await store.settleFastRoute(llm.request_id, tenant, { answered: true, counts: true }),
    ).toBeUndefined();
    expect((await store.settleRoute(llm.request_id))?.request_id).toBe(llm.request_id);

    const outcomes = await db
      .selectFrom('routing_outcomes')
      .select(['request_id'])
      .where(
        'request_id',
        'in',
        [failed, asked, none, llm].map((r) => r.request_id),
      )
      .execute();
    expect(outcomes.map((o) => o.request_id)).toEqual([failed.request_id]);
  });

  test('averages the response time over the attempts of a bucket', async ({ db }) => {
    const store = new RouterStore(db);
    for (const _ of [1, 2, 3]) {
      const row = route({ intent_id: 'intent-avg', confidence: 0.91 });
      await store.recordRoute(row);
      await store.settleFastRoute(row.request_id, tenant, { answered: true, counts: true });
    }
    const [stat] = await db
      .selectFrom('intent_routing_stats')
      .selectAll()
      .where('intent_id', '=', 'intent-avg')
      .execute();
    expect(stat).toMatchObject({ total_attempts: 3, successful_attempts: 3, failed_attempts: 0 });
    expect(stat!.avg_response_ms).toBeGreaterThanOrEqual(0);
    expect(stat!.avg_response_ms).toBeLessThan(60_000);
  });
});
