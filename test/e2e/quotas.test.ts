// The model token quota end to end: the agent reserves each
// model call's most tokens (prompt estimate + max_tokens) in PostgreSQL before making it and
// settles to what it spent, so a call that could pass the quota is never made: the request ends
// with RATE_LIMITED and the tenant's count never passes the quota; another org of the same entity
// goes on. The six services run as processes; the LLM is scripted and reports its usage like a real
// one. (The gateway's 429 for a used-up token quota is services/gateway/test/quotas.test.ts's.)
import { randomUUID } from 'node:crypto';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
const orgA = { entityId: 'ent-quota', orgId: 'org-a' };
const orgB = { entityId: 'ent-quota', orgId: 'org-b' };
const QUOTA_USED_UP =
  /^The model token quota of this organisation is used up \(8,000 model tokens per hour\); it resets in \d+ (seconds?|minutes?) \(at \d\d:\d\d UTC\)\.$/;
/** Room for the first model call of a query (about 2,100 prompt tokens + 2,048), not for its second (about 13,500 + 2,048). */
const QUOTA = 8000;

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats, env: { QUOTA_TOKENS_PER_WINDOW: String(QUOTA) } });
});

afterAll(async () => {
  await sys?.stop();
});

/** A unique question the model answers by listing bills, then in words. */
function scriptBills(): string {
  const query = `list my bills please ${randomUUID().slice(0, 8)}`;
  sys.llm?.script({
    match: query,
    turns: [{ toolCalls: [{ name: 'get_bills', arguments: {} }] }, { content: 'Here are your bills.' }],
  });
  return query;
}

const sum = async (sql: string, tenant: typeof orgA) =>
  Number((await sys.db.query(sql, [tenant.entityId, tenant.orgId])).rows[0]?.n ?? 0);

describe('the model token quota', () => {
  test('ends a request whose next model call could pass it, never making that call nor passing the quota', async () => {
    const query = scriptBills();
    const { status, events } = await ask(sys.gatewayUrl, { query, ...orgA });
    expect(status).toBe(200);
    // The first call fitted the quota; the second could have passed it and was never made.
    expect(sys.llm?.requestsFor(query)).toHaveLength(1);
    expect(sys.books.calls().some((c) => c.tool === 'get_bills')).toBe(true);
    const last = events.at(-1);
    expect(last).toMatchObject({ event: 'error', data: { code: 'RATE_LIMITED' } });
    expect(String(last?.data.message)).toMatch(QUOTA_USED_UP);

    // What the agent counted is what it logged per call: the refused reservation was not kept.
    const counted = await sum(
      "select count as n from tenant_usage where entity_id = $1 and org_id = $2 and kind = 'tokens'",
      orgA,
    );
    expect(counted).toBeGreaterThan(0);
    expect(counted).toBeLessThanOrEqual(QUOTA);
    await expect
      .poll(
        () =>
          sum('select sum(total_tokens) as n from llm_usage_logs where entity_id = $1 and org_id = $2', orgA),
        {
          timeout: 10_000,
        },
      )
      .toBe(counted);
  });

  test('leaves another org of the same entity its own quota', async () => {
    const query = `who is my biggest customer ${randomUUID().slice(0, 8)}`;
    sys.llm?.script({ match: query, turns: [{ content: 'Acme Corp is your biggest customer.' }] });
    const { status, events } = await ask(sys.gatewayUrl, { query, ...orgB });
    expect(status).toBe(200);
    expect(events.at(-1)).toMatchObject({
      event: 'complete',
      data: { status: 'answered', response: 'Acme Corp is your biggest customer.' },
    });
  });
});
