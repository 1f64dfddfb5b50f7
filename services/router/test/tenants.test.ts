// Two orgs that share an entity id are two tenants: the response cache, its invalidation markers
// and its locks are keyed by entity and org together.
import { randomUUID } from 'node:crypto';
import type { Bus } from '@munim/bus';
import { recordEvents } from '@munim/bus/testing';
import type { AgentEvent, QueryRouted, RequestScope } from '@munim/contracts';
import type { Database } from '@munim/db';
import type { ToolCatalog } from '@munim/kit';
import { type TestNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { demoRegistry } from '../eval/evaluate.ts';
import type { buildRouter } from '../src/app.ts';
import { type CachedAnswer, cacheKey } from '../src/cache.ts';
import { RouterStore, type Tenant } from '../src/store.ts';
import { buildTestRouter } from './test-router.ts';

let nats: TestNats;
const registry = demoRegistry();
const tools: ToolCatalog = {
  list: async () => registry,
  find: async (name) => registry.find((t) => t.name === name),
  invalidate: () => {},
};
/** Queries the stand-in agent answers with a successful write instead of a read. */
const writes = new Set<string>();

let db: Kysely<Database>;
let store: RouterStore;
let gateway: Bus;
let routerBus: Bus;
let app: Awaited<ReturnType<typeof buildRouter>>;

/** The stand-in agent: each answer names the org whose books it read. */
function answer(message: { orgId: string; data: QueryRouted }): AgentEvent {
  const { data } = message;
  const tool = writes.has(data.query)
    ? 'create_payment'
    : (data.route.pipeline[0]?.tool ?? 'get_all_invoices');
  return {
    type: 'complete',
    payload: {
      query: data.query,
      path: data.route.path,
      category: data.route.category,
      matchedIntent: data.route.intent,
      extractedEntities: {},
      reasoning: data.route.reasoning,
      pipelineSteps: [],
      enrichments: [],
      responseFormat: 'markdown',
      response: `books of ${message.orgId}`,
      mcpToolResults: [{ tool, success: true }],
      dataSources: [tool],
      llmModel: '',
      iterationCount: 1,
      usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
      status: 'answered',
    },
  };
}

test.beforeAll(async ({ nats: fileNats, db: fileDb }) => {
  nats = fileNats;
  db = fileDb;
  store = new RouterStore(db);
  gateway = await nats.bus('gateway');
  routerBus = await nats.bus('router');
  const agent = await nats.bus('agent');
  await agent.consume(
    'queryRouted',
    async (message) => {
      await agent.emit(message, answer(message));
    },
    { durable: 'agent' },
  );
  app = await buildTestRouter({ bus: routerBus, tools, store });
  await app.start();
});

afterAll(async () => {
  await app?.stop();
});

/** Two tenants with one entity id, fresh for each test. */
function tenants(): [Tenant, Tenant] {
  const entityId = `ent-${randomUUID().slice(0, 8)}`;
  return [
    { entityId, orgId: 'org-a' },
    { entityId, orgId: 'org-b' },
  ];
}

const scopeOf = (tenant: Tenant): RequestScope => ({
  ...tenant,
  requestId: randomUUID(),
  conversationId: `conv-${randomUUID()}`,
});

async function ask(tenant: Tenant, query: string) {
  const scope = scopeOf(tenant);
  const recorder = recordEvents(gateway, scope.requestId);
  await gateway.publish('querySubmitted', scope, { query });
  await expect
    .poll(() => recorder.events.some((e) => e.type === 'complete' || e.type === 'error'), { timeout: 10_000 })
    .toBe(true);
  recorder.stop();
  const complete = recorder.events.find((e) => e.type === 'complete');
  if (complete?.type !== 'complete') throw new Error('no complete event');
  return complete.payload;
}

/** Resolves once the router's outcome consumer has handled every event so far. */
async function learnt(): Promise<void> {
  await expect
    .poll(
      async () => {
        const info = await routerBus.jsm.consumers.info(routerBus.streamName('events'), 'router-outcomes');
        return info.num_pending + info.num_ack_pending;
      },
      { timeout: 10_000, interval: 50 },
    )
    .toBe(0);
}

describe('the response cache of two orgs sharing an entity id', () => {
  test('never serves org B the answer org A’s question left in the cache', async () => {
    const [a, b] = tenants();
    expect(await ask(a, 'show all invoices')).toMatchObject({ path: 'fast', response: 'books of org-a' });
    await learnt();
    expect(await ask(a, 'Show all invoices!')).toMatchObject({ path: 'cached', response: 'books of org-a' });

    // Org B's question goes to org B's books, and its answer is cached for org B alone.
    expect(await ask(b, 'show all invoices')).toMatchObject({ path: 'fast', response: 'books of org-b' });
    await learnt();
    expect(await ask(b, 'Show all invoices!')).toMatchObject({ path: 'cached', response: 'books of org-b' });
    expect(await ask(a, 'Show all invoices!')).toMatchObject({ path: 'cached', response: 'books of org-a' });
  });

  test('drops only the writing org’s answers after a write', async () => {
    const [a, b] = tenants();
    await ask(a, 'show all bills');
    await ask(b, 'show all bills');
    await learnt();
    const write = `record a payment of 5000 from Acme ${randomUUID().slice(0, 6)}`;
    writes.add(write);
    await ask(a, write);
    await learnt();
    expect(await ask(b, 'show all bills')).toMatchObject({ path: 'cached', response: 'books of org-b' });
    expect(await ask(a, 'show all bills')).toMatchObject({ path: 'fast', response: 'books of org-a' });
  });
});

describe('RouterStore keys by tenant', () => {
  const cached = (requestId: string): CachedAnswer => ({
    response: requestId,
    matchedIntent: null,
    extractedEntities: {},
    pipelineSteps: [],
    responseFormat: 'markdown',
    dataSources: [],
    category: 'unified',
    answeredAt: new Date().toISOString(),
    requestId,
  });
  const write = (tenant: Tenant, key: string) =>
    store.writeCache({
      tenant,
      key,
      path: 'fast',
      queryNormalized: 'q',
      answer: cached(tenant.orgId),
      dataKind: 'static',
      ttlMs: 60_000,
    });

  test('looks up, writes and invalidates one tenant’s answers, and marks only its staleness', async () => {
    const [a, b] = tenants();
    const key = cacheKey('show all customers', 'fast');
    await write(a, key);
    expect(await store.cached(b, key)).toBeUndefined();
    await write(b, key);
    expect((await store.cached(a, key))?.response).toBe('org-a');
    expect((await store.cached(b, key))?.response).toBe('org-b');

    expect(await store.invalidateTenant(a, 60_000)).toBe(1);
    expect(await store.cached(a, key)).toBeUndefined();
    expect((await store.cached(b, key))?.response).toBe('org-b');
    expect(await store.lastInvalidation(a)).toBeInstanceOf(Date);
    expect(await store.lastInvalidation(b)).toBeUndefined();
  });

  test('locks one tenant’s cache without holding up the other org of its entity', async () => {
    const [a, b] = tenants();
    let releaseA = () => {};
    const holdA = new Promise<void>((resolve) => {
      releaseA = resolve;
    });
    const locked = new Promise<void>((resolve) => {
      void store.transaction(async (tx) => {
        await tx.lockTenant(a);
        resolve();
        await holdA;
      });
    });
    await locked;
    const order: string[] = [];
    const other = store.transaction((tx) => tx.lockTenant(b)).then(() => order.push('org-b'));
    const same = store.transaction((tx) => tx.lockTenant(a)).then(() => order.push('org-a'));
    await other;
    await new Promise((r) => setTimeout(r, 100));
    expect(order).toEqual(['org-b']);
    releaseA();
    await same;
    expect(order).toEqual(['org-b', 'org-a']);
  });
});
