// The model token quota end to end (issue 17 item 10): the agent counts each model call's tokens
// in PostgreSQL, and once a tenant's tokens for the window are used up, its next model call ends
// the request with RATE_LIMITED and its next query is refused by the gateway with 429; another
// org of the same entity goes on. The six services run as processes; the LLM is scripted and
// reports its usage like a real one.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
const orgA = { entityId: 'ent-quota', orgId: 'org-a' };
const orgB = { entityId: 'ent-quota', orgId: 'org-b' };
const QUOTA_USED_UP =
  /^The model token quota of this organisation is used up \(100 model tokens per hour\); it resets in \d+ (seconds?|minutes?) \(at \d\d:\d\d UTC\)\.$/;

beforeAll(async () => {
  sys = await startSystem({ env: { QUOTA_TOKENS_PER_WINDOW: '100' } });
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
  it('ends a request whose next model call would pass it, then refuses the tenant’s queries with 429', async () => {
    const query = scriptBills();
    const { status, events } = await ask(sys.gatewayUrl, { query, ...orgA });
    expect(status).toBe(200);
    // The first call spent more than the whole quota; the second was never made.
    expect(sys.llm?.requestsFor(query)).toHaveLength(1);
    expect(sys.books.calls().some((c) => c.tool === 'get_bills')).toBe(true);
    const last = events.at(-1);
    expect(last).toMatchObject({ event: 'error', data: { code: 'RATE_LIMITED' } });
    expect(String(last?.data.message)).toMatch(QUOTA_USED_UP);

    // What the agent counted is what it logged per call.
    const counted = await sum(
      "select count as n from tenant_usage where entity_id = $1 and org_id = $2 and kind = 'tokens'",
      orgA,
    );
    expect(counted).toBeGreaterThan(100);
    await expect
      .poll(
        () =>
          sum('select sum(total_tokens) as n from llm_usage_logs where entity_id = $1 and org_id = $2', orgA),
        {
          timeout: 10_000,
        },
      )
      .toBe(counted);

    const refused = await fetch(`${sys.gatewayUrl}/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: scriptBills(), ...orgA }),
    });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('RATE_LIMITED');
    expect(body.error.message).toMatch(QUOTA_USED_UP);
  });

  it('leaves another org of the same entity its own quota', async () => {
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
