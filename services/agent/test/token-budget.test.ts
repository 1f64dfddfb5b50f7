// A tenant's model tokens are reserved before each call (the prompt's estimate and
// its max_tokens) and settled after, in the PostgreSQL rows every agent shares, so concurrent calls
// cannot together pass the quota; an endpoint that reports no usage is counted by estimate; and a
// usage table that cannot be reached refuses the call unless the deployment chose to admit.
import { createDb, TenantUsage } from '@munim/db';
import { estimateTokens, type Logger, QUOTA_STORE_UNREACHABLE_MESSAGE } from '@munim/kit';
import { test } from '@munim/testkit';
import { describe, expect } from 'vitest';
import type { Llm, LlmTurn } from '../src/model/llm.ts';
import { TokenQuota } from '../src/model/quota.ts';
import { AgentError } from '../src/run/errors.ts';
import { llmTurn } from '../src/turn/llm-turn.ts';
import { fakeAgent } from './fake-agent.ts';

const WINDOW_MS = 3_600_000;
const silent = { info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;
let db: ReturnType<typeof createDb>;

test.beforeAll(async ({ db: fileDb }) => {
  db = fileDb;
});

/** A model that answers after `delayMs`, reporting `usage` (or none, as some servers do). */
function slowLlm(answer: Partial<LlmTurn>, delayMs = 50): Llm & { calls: number } {
  const llm = {
    label: 'openai/m',
    model: 'm',
    calls: 0,
    async turn() {
      llm.calls += 1;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return {
        content: '',
        toolCalls: [],
        usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
        ...answer,
      };
    },
  };
  return llm;
}

/** One agent run of `tenant` whose model and token quota are the ones given. */
function runWith(llm: Llm, quota: TokenQuota, tenant: { entityId: string; orgId: string }) {
  const { run } = fakeAgent({ tools: [], llm });
  Object.assign(run.ctx, { tokenQuota: quota });
  Object.assign(run.scope, tenant);
  return run;
}

const ask = (maxTokens: number) => ({ messages: [{ role: 'user' as const, content: 'hi' }], maxTokens });

describe('model tokens reserved before a call and settled after', () => {
  test('keeps concurrent calls of one tenant within the quota (12 at once, each could spend 400)', async () => {
    const usage = new TenantUsage(db, { windowMs: WINDOW_MS });
    const quota = new TokenQuota(usage, 1000, silent);
    const tenant = { entityId: 'ent-budget', orgId: 'org-concurrent' };
    const llm = slowLlm({
      content: 'ok',
      usage: { input_tokens: 50, output_tokens: 330, total_tokens: 380 },
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, () => llmTurn(runWith(llm, quota, tenant), 'test', ask(380))),
    );
    const answered = outcomes.filter((o) => o.status === 'fulfilled').length;
    const refused = outcomes.filter(
      (o) => o.status === 'rejected' && o.reason instanceof AgentError && o.reason.code === 'RATE_LIMITED',
    ).length;
    expect(answered + refused).toBe(12);
    expect(llm.calls).toBe(answered);
    expect(answered).toBe(2);
    expect(await usage.count(tenant, 'tokens')).toBe(answered * 380);
    expect(await usage.count(tenant, 'tokens')).toBeLessThanOrEqual(1000);
  });

  test('never lets generated bursts of calls pass the quota, and counts exactly what was spent', async () => {
    const usage = new TenantUsage(db, { windowMs: WINDOW_MS });
    for (let round = 0; round < 8; round++) {
      const limit = 500 + ((round * 7919) % 4000);
      const maxTokens = 50 + ((round * 104_729) % 900);
      const spent = Math.max(1, maxTokens - ((round * 31) % 40));
      const tenant = { entityId: 'ent-budget', orgId: `org-burst-${round}` };
      const quota = new TokenQuota(usage, limit, silent);
      const llm = slowLlm(
        { usage: { input_tokens: 1, output_tokens: spent - 1, total_tokens: spent } },
        5 + round,
      );
      await Promise.allSettled(
        Array.from({ length: 10 + round }, () =>
          llmTurn(runWith(llm, quota, tenant), 'test', ask(maxTokens)),
        ),
      );
      const counted = await usage.count(tenant, 'tokens');
      expect(counted, `round ${round}: limit ${limit}, max_tokens ${maxTokens}`).toBeLessThanOrEqual(limit);
      expect(counted).toBe(llm.calls * spent);
    }
  });

  test('counts a call whose endpoint reported no usage by the tokenizer estimate', async () => {
    const usage = new TenantUsage(db, { windowMs: WINDOW_MS });
    const tenant = { entityId: 'ent-budget', orgId: 'org-no-usage' };
    const answer = 'The overdue total is ₹4,20,000 across 12 invoices. '.repeat(40);
    const turn = await llmTurn(
      runWith(slowLlm({ content: answer }, 1), new TokenQuota(usage, 1_000_000, silent), tenant),
      'test',
      ask(2000),
    );
    const prompt = estimateTokens(JSON.stringify([ask(2000).messages, []]));
    expect(turn.usage.total_tokens).toBe(prompt + estimateTokens(answer));
    expect(await usage.count(tenant, 'tokens')).toBe(prompt + estimateTokens(answer));
    expect(estimateTokens(answer)).toBeGreaterThan(answer.length / 4);
  });

  test('refuses the call when the usage table cannot be reached, or lets it through when told to admit', async () => {
    const unreachable = createDb('postgres://nobody@127.0.0.1:1/none');
    try {
      const usage = new TenantUsage(unreachable, { windowMs: WINDOW_MS });
      const tenant = { entityId: 'ent-budget', orgId: 'org-down' };
      const llm = slowLlm(
        { content: 'ok', usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } },
        1,
      );
      const refused = llmTurn(runWith(llm, new TokenQuota(usage, 1000, silent), tenant), 'test', ask(10));
      await expect(refused).rejects.toMatchObject({
        code: 'RATE_LIMITED',
        message: QUOTA_STORE_UNREACHABLE_MESSAGE,
      });
      expect(llm.calls).toBe(0);
      const admitted = await llmTurn(
        runWith(llm, new TokenQuota(usage, 1000, silent, 'admit'), tenant),
        'test',
        ask(10),
      );
      expect(admitted.content).toBe('ok');
      expect(llm.calls).toBe(1);
    } finally {
      await unreachable.destroy();
    }
  });
});

describe('the tokenizer estimate', () => {
  test('is a quarter token per ASCII character and a token per other character, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('बकाया')).toBe(5);
    for (let n = 0; n < 200; n++) {
      const text = 'a'.repeat(n) + 'क'.repeat(n % 7);
      expect(estimateTokens(text)).toBe(Math.ceil(n / 4) + (n % 7));
    }
  });
});
