// Before the agent asks the validator for something it may correct with an LLM,
// it holds tokens for the corrections in the tenant's quota (what is left, when that is less), so
// corrections cannot pass the quota, however many run at once; it settles to what the validator
// reports they spent. On the real PostgreSQL rows every agent shares.
import { createDb, TenantUsage } from '@munim/db';
import type { Logger } from '@munim/kit';
import { test } from '@munim/testkit';
import { describe, expect } from 'vitest';
import { correctionAllowance, TokenQuota } from '../src/model/quota.ts';

const WINDOW_MS = 86_400_000;
const silent = { info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;
let db: ReturnType<typeof createDb>;
let usage: TenantUsage;

test.beforeAll(async ({ db: fileDb }) => {
  db = fileDb;
  usage = new TenantUsage(db, { windowMs: WINDOW_MS });
});

/** A validator's reply whose corrections spent `tokens` (none made: undefined). */
const spent = (tokens: number | undefined) =>
  tokens === undefined
    ? {}
    : { correctionUsage: { input_tokens: tokens - 1, output_tokens: 1, total_tokens: tokens } };

describe('tokens held for the validator’s LLM corrections', () => {
  test('holds the allowance, then counts what the corrections spent', async () => {
    const tenant = { entityId: 'ent-corrections', orgId: 'org-plenty' };
    const quota = new TokenQuota(usage, 100_000, silent);
    let held: number | undefined;
    await quota.forCorrections(tenant, 9_000, async (tokens) => {
      held = tokens;
      expect(await usage.count(tenant, 'tokens')).toBe(9_000);
      return spent(1_234);
    });
    expect(held).toBe(9_000);
    expect(await usage.count(tenant, 'tokens')).toBe(1_234);
  });

  test('holds only what is left of the quota, and nothing when it is used up', async () => {
    const tenant = { entityId: 'ent-corrections', orgId: 'org-nearly-spent' };
    const quota = new TokenQuota(usage, 10_000, silent);
    await usage.add(tenant, 'tokens', 9_500);
    const offered: (number | undefined)[] = [];
    await quota.forCorrections(tenant, 8_000, async (tokens) => {
      offered.push(tokens);
      return spent(tokens);
    });
    expect(await usage.count(tenant, 'tokens')).toBe(10_000);
    await quota.forCorrections(tenant, 8_000, async (tokens) => {
      offered.push(tokens);
      return spent(undefined);
    });
    expect(offered).toEqual([500, 0]);
    expect(await usage.count(tenant, 'tokens')).toBe(10_000);
  });

  test('keeps concurrent corrections of one tenant within the quota', async () => {
    const tenant = { entityId: 'ent-corrections', orgId: 'org-concurrent' };
    const quota = new TokenQuota(usage, 10_000, silent);
    const offered: number[] = [];
    await Promise.all(
      Array.from({ length: 12 }, () =>
        quota.forCorrections(tenant, 3_000, async (tokens) => {
          offered.push(tokens ?? Number.POSITIVE_INFINITY);
          await new Promise((resolve) => setTimeout(resolve, 20));
          // A validator spends all it was given.
          return spent(tokens || undefined);
        }),
      ),
    );
    expect(offered.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10_000);
    expect(await usage.count(tenant, 'tokens')).toBe(offered.reduce((a, b) => a + b, 0));
    expect(await usage.count(tenant, 'tokens')).toBeLessThanOrEqual(10_000);
  });

  test('keeps the hold when the validator did not answer: what it spent is not known', async () => {
    const tenant = { entityId: 'ent-corrections', orgId: 'org-no-answer' };
    const quota = new TokenQuota(usage, 100_000, silent);
    const asked = quota.forCorrections(tenant, 5_000, async () => {
      throw new Error('no answer');
    });
    await expect(asked).rejects.toThrow('no answer');
    expect(await usage.count(tenant, 'tokens')).toBe(5_000);
  });

  test('allows no correction when the usage table cannot be reached, or any when told to admit', async () => {
    const unreachable = createDb('postgres://nobody@127.0.0.1:1/none');
    try {
      const down = new TenantUsage(unreachable, { windowMs: WINDOW_MS });
      const tenant = { entityId: 'ent-corrections', orgId: 'org-down' };
      const offered: (number | undefined)[] = [];
      const ask = async (tokens: number | undefined) => {
        offered.push(tokens);
        return spent(tokens === 0 ? undefined : 100);
      };
      await new TokenQuota(down, 1000, silent).forCorrections(tenant, 500, ask);
      await new TokenQuota(down, 1000, silent, 'admit').forCorrections(tenant, 500, ask);
      expect(offered).toEqual([0, undefined]);
    } finally {
      await unreachable.destroy();
    }
  });

  test('holds nothing for a text that has nothing to correct', () => {
    expect(correctionAllowance('no blocks here', 0)).toBe(0);
    expect(correctionAllowance('abcd'.repeat(100), 2)).toBe(100 + 2 * correctionAllowance('', 1));
  });
});
