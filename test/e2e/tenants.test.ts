// Two orgs that share an entity id are two tenants, end to end through the public HTTP API (issue
// 17 item 7): the same question is answered from each org's own books and cached per org, and each
// org sees only its own conversations, numbered from #MJ-0001. The six services run as processes
// on the real NATS and a fresh PostgreSQL; the LLM is scripted, the books are the demo MCP server.

import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
const orgA = { entityId: 'ent-shared', orgId: 'org-a' };
const orgB = { entityId: 'ent-shared', orgId: 'org-b' };
type Tenant = typeof orgA;
const QUERY = 'show all bills';

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats });
  // Every answer the model writes is a new one, so whose answer a tenant was shown is plain.
  let answers = 0;
  sys.llm?.script({
    match: QUERY,
    repeat: true,
    turns: [() => ({ content: `Bills, answer number ${++answers}.` })],
  });
});

afterAll(async () => {
  await sys?.stop();
});

const classified = (events: SseEvent[]) => events.find((e) => e.event === 'route_classified')?.data;

async function askAs(tenant: Tenant, query = QUERY) {
  const { status, events } = await ask(sys.gatewayUrl, { query, ...tenant });
  expect(status).toBe(200);
  const complete = events.at(-1);
  expect(complete?.event).toBe('complete');
  return {
    path: classified(events)?.path,
    response: String(complete?.data.response),
    conversationId: String(events[0]?.data.conversationId),
  };
}

/** Cached answers of the shared entity, whichever org they are for. */
const cachedRows = async () =>
  (
    await sys.db.query(
      "select count(*)::int as n from response_cache where entity_id = $1 and cache_key <> 'invalidated'",
      [orgA.entityId],
    )
  ).rows[0].n;

async function conversationsOf(tenant: Tenant) {
  const params = new URLSearchParams(tenant);
  const res = await fetch(`${sys.gatewayUrl}/v1/conversations?${params}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { conversations: { id: string; displayId: string }[] }).conversations;
}

describe('two orgs sharing an entity id', () => {
  test('each get their own answer to the same question, and their own from the cache', async () => {
    const first = await askAs(orgA);
    expect(first.path).toBe('fast');
    await expect.poll(cachedRows, { timeout: 10_000 }).toBe(1);

    // Org A's cached answer is not org B's: B's question goes to B's books.
    const otherOrg = await askAs(orgB);
    expect(otherOrg.path).toBe('fast');
    expect(otherOrg.response).not.toBe(first.response);
    await expect.poll(cachedRows, { timeout: 10_000 }).toBe(2);

    const [againA, againB] = [await askAs(orgA, 'Show all bills!'), await askAs(orgB, 'Show all bills!')];
    expect(againA).toMatchObject({ path: 'cached', response: first.response });
    expect(againB).toMatchObject({ path: 'cached', response: otherOrg.response });

    // Each org's history holds its own conversation, numbered from #MJ-0001, and nothing of the other.
    for (const [tenant, mine, theirs] of [
      [orgA, first, otherOrg],
      [orgB, otherOrg, first],
    ] as const) {
      await expect
        .poll(async () => (await conversationsOf(tenant)).find((c) => c.id === mine.conversationId), {
          timeout: 10_000,
        })
        .toMatchObject({ displayId: '#MJ-0001' });
      const ids = (await conversationsOf(tenant)).map((c) => c.id);
      expect(ids).not.toContain(theirs.conversationId);
      const params = new URLSearchParams(tenant);
      const foreign = await fetch(`${sys.gatewayUrl}/v1/conversations/${theirs.conversationId}?${params}`);
      expect(foreign.status).toBe(404);
    }
  });
});
