import { randomUUID } from 'node:crypto';
import type { Bus } from '@munim/bus';
import { recordEvents } from '@munim/bus/testing';
import type { AgentEvent, EventPayload, QueryRouted, RequestScope } from '@munim/contracts';
import { createDb, type Database } from '@munim/db';
import type { ToolCatalog } from '@munim/kit';
import { type TestDatabase, type TestNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { demoRegistry, seededIntents } from '../eval/evaluate.ts';
import type { buildRouter } from '../src/app.ts';
import { type ConversationSource, dbConversationSource } from '../src/conversation.ts';
import { type ConversationContext, NO_CONVERSATION } from '../src/route.ts';
import { INVALIDATION_MARKER, RouterStore } from '../src/store.ts';
import { buildTestRouter } from './test-router.ts';

let nats: TestNats;
const registry = demoRegistry();
/** Tenants whose tool registry answers only after this many ms. */
const slowTools = new Map<string, number>();
const tools: ToolCatalog = {
  list: async (scope) => {
    const delay = slowTools.get(scope.entityId);
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    return registry;
  },
  find: async (name) => registry.find((t) => t.name === name),
  invalidate: () => {},
};
const conversations = new Map<string, ConversationContext>();
/** The conversations the router read, in order. */
const conversationLoads: string[] = [];
const fakeConversations: ConversationSource = {
  load: async (scope) => {
    conversationLoads.push(scope.conversationId);
    return conversations.get(scope.conversationId) ?? NO_CONVERSATION;
  },
};

/** How the stand-in agent ends a request, by query; default: answered from the routed tools. */
const scripted = new Map<string, (routed: QueryRouted) => AgentEvent | Promise<AgentEvent>>();
const routed = new Map<string, QueryRouted>();

let testDb: TestDatabase;
let db: Kysely<Database>;
let gateway: Bus;
let routerBus: Bus;
let app: Awaited<ReturnType<typeof buildRouter>>;
let intentLoads = 0;

function answered(data: QueryRouted, over: Partial<EventPayload<'complete'>> = {}): AgentEvent {
  const used =
    data.route.pipeline.length > 0 ? data.route.pipeline.map((s) => s.tool) : data.route.tools.slice(0, 1);
  return {
    type: 'complete',
    payload: {
      query: data.query,
      path: data.route.path,
      category: data.route.category,
      matchedIntent: data.route.intent,
      extractedEntities: data.route.extractedEntities,
      reasoning: data.route.reasoning,
      pipelineSteps: [],
      enrichments: [],
      responseFormat: 'markdown',
      response: `answer to ${data.query}`,
      mcpToolResults: used.map((tool) => ({ tool, success: true, result: { ok: true } })),
      dataSources: used,
      llmModel: data.route.path === 'llm' ? 'scripted' : '',
      iterationCount: 1,
      usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
      status: 'answered',
      ...over,
    },
  };
}

/** A router on the test's bus and database that loads its intents with `load`. */
function testRouter(load: () => Promise<ReturnType<typeof seededIntents>>, concurrency: number) {
  return buildTestRouter(
    {
      bus: routerBus,
      intents: { load },
      tools,
      conversations: fakeConversations,
      store: new RouterStore(db),
    },
    { concurrency, announceUnderstandingAfterMs: 1_000 },
  );
}

test.beforeAll(async ({ nats: fileNats, database, db: fileDb }) => {
  nats = fileNats;
  testDb = database;
  db = fileDb;
  gateway = await nats.bus('gateway');
  routerBus = await nats.bus('router');
  const agent = await nats.bus('agent');
  await agent.consume(
    'queryRouted',
    async (message) => {
      routed.set(message.requestId, message.data);
      const end = (await scripted.get(message.data.query)?.(message.data)) ?? answered(message.data);
      await agent.emit(message, end);
    },
    { durable: 'agent' },
  );
  app = await testRouter(async () => {
    intentLoads += 1;
    return seededIntents();
  }, 4);
  await app.start();
});

afterAll(async () => {
  await app?.stop();
});

const scopeOf = (entityId: string, conversationId = `conv-${randomUUID()}`): RequestScope => ({
  requestId: randomUUID(),
  conversationId,
  entityId,
  orgId: 'org-1',
});

/** Submits a query as the gateway does and returns its events up to `complete` or `error`. */
async function ask(scope: RequestScope, query: string): Promise<AgentEvent[]> {
  const recorder = recordEvents(gateway, scope.requestId);
  await gateway.publish('querySubmitted', scope, { query });
  await expect
    .poll(() => recorder.events.some((e) => e.type === 'complete' || e.type === 'error'), { timeout: 10_000 })
    .toBe(true);
  recorder.stop();
  return recorder.events;
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

const cacheRows = (entityId: string) =>
  db
    .selectFrom('response_cache')
    .selectAll()
    .where('entity_id', '=', entityId)
    .where('cache_key', '<>', INVALIDATION_MARKER)
    .execute();
const classified = (events: AgentEvent[]) => events.find((e) => e.type === 'route_classified')?.payload;
const last = (events: AgentEvent[]) => events.at(-1);

describe('a new conversation', () => {
  test('is not looked up, and the agent is told it is new; a named one is looked up', async () => {
    const fresh = scopeOf('ent-new-conversation');
    const recorder = recordEvents(gateway, fresh.requestId);
    await gateway.publish('querySubmitted', fresh, { query: 'show all invoices', newConversation: true });
    await expect.poll(() => recorder.events.some((e) => e.type === 'complete')).toBe(true);
    recorder.stop();
    expect(routed.get(fresh.requestId)?.newConversation).toBe(true);
    expect(conversationLoads).not.toContain(fresh.conversationId);

    const named = scopeOf('ent-named-conversation');
    await ask(named, 'show all invoices');
    expect(routed.get(named.requestId)).not.toHaveProperty('newConversation');
    expect(conversationLoads).toContain(named.conversationId);
  });
});

describe('understanding_started', () => {
  /** The request's stream messages before its end, each as the types of the events it carried. */
  async function messagesOf(scope: RequestScope, query: string): Promise<string[][]> {
    const messages: string[][] = [];
    const sub = gateway.nc.subscribe(gateway.subject('requestEvents', { requestId: scope.requestId }), {
      callback: (_err, msg) => {
        const body = JSON.parse(new TextDecoder().decode(msg.data));
        messages.push([body].flat().map((m: { data: AgentEvent }) => m.data.type));
      },
    });
    await gateway.nc.flush();
    try {
      await ask(scope, query);
    } finally {
      sub.unsubscribe();
    }
    return messages;
  }

  test('goes with the routing steps when routing is quick: one stream message for both', async () => {
    const messages = await messagesOf(scopeOf('ent-understand-quick'), 'show all invoices');
    const routing = messages.filter((types) => types.includes('route_started'));
    expect(routing).toHaveLength(1);
    expect(routing[0]!.slice(0, 2)).toEqual(['understanding_started', 'route_started']);
    expect(messages.flat().filter((t) => t === 'understanding_started')).toHaveLength(1);
  });

  test('goes alone, first, when routing takes longer than the announcement allows', async () => {
    slowTools.set('ent-understand-slow', 2_500);
    const messages = await messagesOf(scopeOf('ent-understand-slow'), 'show all invoices');
    const routed = messages.filter((types) => types.some((t) => t !== 'connected'));
    expect(routed[0]).toEqual(['understanding_started']);
    expect(routed[1]?.[0]).toBe('route_started');
    expect(messages.flat().filter((t) => t === 'understanding_started')).toHaveLength(1);
  });
});

describe('response cache', () => {
  test('serves a repeated read from the cache: no routed message, no tool, the cached answer', async () => {
    const first = await ask(scopeOf('ent-cache'), 'show all invoices');
    expect(first.map((e) => e.type)).toEqual([
      'connected',
      'understanding_started',
      'route_started',
      'intent_detecting',
      'intent_detected',
      'entities_extracted',
      'route_classified',
      'tools_filtered',
      'complete',
    ]);
    expect(classified(first)).toMatchObject({ path: 'fast' });
    await learnt();
    expect(await cacheRows('ent-cache')).toEqual([
      expect.objectContaining({ path: 'fast', data_kind: 'volatile', query_normalized: 'show all invoices' }),
    ]);

    const scope = scopeOf('ent-cache');
    const second = await ask(scope, 'Show ALL invoices!');
    expect(second.map((e) => e.type)).toEqual([
      'connected',
      'understanding_started',
      'route_started',
      'route_classified',
      'response_generating',
      'response_chunk',
      'complete',
    ]);
    expect(classified(second)).toMatchObject({ path: 'cached', category: 'unified' });
    expect(second.find((e) => e.type === 'response_chunk')?.payload).toEqual({
      text: 'answer to show all invoices',
    });
    expect(last(second)).toMatchObject({
      type: 'complete',
      payload: {
        query: 'Show ALL invoices!',
        path: 'cached',
        status: 'answered',
        response: 'answer to show all invoices',
        mcpToolResults: [],
        dataSources: ['get_all_invoices'],
        usage: { total_tokens: 0 },
      },
    });
    expect(routed.has(scope.requestId)).toBe(false);

    // The cache is per entity.
    const other = await ask(scopeOf('ent-other'), 'show all invoices');
    expect(classified(other)).toMatchObject({ path: 'fast' });
  });

  test('never caches a write, and a successful write drops the entity’s cached answers', async () => {
    await ask(scopeOf('ent-write'), 'show all bills');
    await ask(scopeOf('ent-bystander'), 'show all bills');
    await learnt();
    expect(await cacheRows('ent-write')).toHaveLength(1);

    const query = `record a payment of 5000 from Acme ${randomUUID().slice(0, 6)}`;
    scripted.set(query, (data) =>
      answered(data, {
        mcpToolResults: [{ tool: 'create_payment', success: true }],
        dataSources: ['create_payment'],
      }),
    );
    const write = await ask(scopeOf('ent-write'), query);
    expect(classified(write)).toMatchObject({ path: 'llm' });
    await learnt();
    expect(await cacheRows('ent-write')).toEqual([]);
    expect(await cacheRows('ent-bystander')).toHaveLength(1);

    const scope = scopeOf('ent-write');
    const again = await ask(scope, 'show all bills');
    expect(classified(again)).toMatchObject({ path: 'fast' });
    expect(routed.has(scope.requestId)).toBe(true);
  });

  test('does not cache a read that was answered before a write of the same books finished', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const query = 'show all customers';
    scripted.set(query, async (data) => {
      await gate;
      return answered(data);
    });
    const readScope = scopeOf('ent-race');
    const read = ask(readScope, query);
    await expect.poll(() => routed.has(readScope.requestId), { timeout: 10_000 }).toBe(true);
    const write = `record a payment from Sharma ${randomUUID().slice(0, 6)}`;
    scripted.set(write, (data) =>
      answered(data, { mcpToolResults: [{ tool: 'create_payment', success: true }], dataSources: [] }),
    );
    await ask(scopeOf('ent-race'), write);
    await learnt();
    release();
    expect(classified(await read)).toMatchObject({ path: 'fast' });
    await learnt();
    expect(await cacheRows('ent-race')).toEqual([]);

    scripted.delete(query);
    await ask(scopeOf('ent-race'), query);
    await learnt();
    expect(await cacheRows('ent-race')).toHaveLength(1);
  });

  test('does not cache answers that were not plain answered reads', async () => {
    const query = 'create an invoice for Acme Corp';
    scripted.set(query, (data) => answered(data, { status: 'awaiting_confirmation', mcpToolResults: [] }));
    await ask(scopeOf('ent-pending'), query);
    const failed = 'show all vendors';
    scripted.set(failed, () => ({ type: 'error', payload: { code: 'TOOL_FAILED', message: 'down' } }));
    await ask(scopeOf('ent-pending'), failed);
    await learnt();
    expect(await cacheRows('ent-pending')).toEqual([]);
  });
});

describe('conversation-aware routing with history', () => {
  test('routes a confirmation with a pending action to the agent on the LLM path, never from the cache', async () => {
    const conversationId = `conv-${randomUUID()}`;
    conversations.set(conversationId, { previousGroups: ['invoices'], pendingAction: true, turns: 1 });
    const scope = scopeOf('ent-conv', conversationId);
    const events = await ask(scope, 'haan');
    expect(classified(events)).toMatchObject({ path: 'llm', category: 'unified' });
    expect(routed.get(scope.requestId)?.route).toMatchObject({ strategy: 'confirmation', path: 'llm' });
  });

  test('reuses the previous groups for a short follow-up and pagination, and caches neither', async () => {
    const conversationId = `conv-${randomUUID()}`;
    conversations.set(conversationId, { previousGroups: ['bills'], pendingAction: false, turns: 2 });
    for (const [query, strategy] of [
      ['aur dikhao', 'pagination'],
      ['and last month?', 'follow_up_reuse'],
    ] as const) {
      const scope = scopeOf('ent-conv', conversationId);
      await ask(scope, query);
      expect(routed.get(scope.requestId)?.route, query).toMatchObject({ strategy, toolGroups: ['bills'] });
    }
    await learnt();
    expect(await cacheRows('ent-conv')).toEqual([]);
    // Without history the same words are not a follow-up.
    const fresh = scopeOf('ent-conv');
    await ask(fresh, 'aur dikhao');
    expect(routed.get(fresh.requestId)?.route.strategy).not.toBe('pagination');
  });
});

describe('learning from outcomes', () => {
  test('counts fast-path successes and failures per intent and confidence bucket', async () => {
    const okScope = scopeOf('ent-rl-1');
    const ok = await ask(okScope, 'show profit and loss');
    expect(classified(ok)).toMatchObject({ path: 'fast' });
    const failing = 'p&l statement';
    scripted.set(failing, () => ({ type: 'error', payload: { code: 'TOOL_FAILED', message: 'down' } }));
    await ask(scopeOf('ent-rl-2'), failing);
    await learnt();
    const intentId = routed.get(okScope.requestId)?.route.intent?.id ?? 'missing';
    const rows = await db
      .selectFrom('intent_routing_stats')
      .selectAll()
      .where('intent_id', '=', intentId)
      .execute();
    const total = rows.reduce(
      (acc, r) => ({ ok: acc.ok + r.successful_attempts, failed: acc.failed + r.failed_attempts }),
      { ok: 0, failed: 0 },
    );
    expect(total).toEqual({ ok: 1, failed: 1 });
    expect(rows.map((r) => Number(r.confidence_bucket))).toContain(0.95);
  });

  test('adapts the threshold of an intent from its stats', async () => {
    await db
      .insertInto('intent_routing_stats')
      .values([
        {
          intent_id: 'good',
          confidence_bucket: 0.85,
          total_attempts: 25,
          successful_attempts: 24,
          failed_attempts: 1,
        },
        {
          intent_id: 'bad',
          confidence_bucket: 0.9,
          total_attempts: 12,
          successful_attempts: 5,
          failed_attempts: 7,
        },
      ])
      .execute();
    await app.refresh();
    expect(app.thresholdFor('good')).toBe(0.8);
    expect(app.thresholdFor('bad')).toBe(0.9);
    expect(app.thresholdFor('unknown')).toBe(0.85);
  });

  test('logs LLM-path patterns and suggests an intent at 10 occurrences', async () => {
    const query = 'which customer has grown the fastest this year';
    for (let i = 0; i < 10; i++) {
      const events = await ask(scopeOf(`ent-pattern-${i}`), query);
      expect(classified(events)).toMatchObject({ path: 'llm' });
    }
    await learnt();
    const pattern = await db
      .selectFrom('llm_path_patterns')
      .selectAll()
      .where('query_text', '=', query)
      .executeTakeFirstOrThrow();
    expect(pattern.occurrence_count).toBe(10);
    const suggested = await db
      .selectFrom('suggested_intents')
      .selectAll()
      .where('pattern_hash', '=', pattern.query_hash)
      .execute();
    expect(suggested).toEqual([
      expect.objectContaining({ status: 'pending', training_phrases: [query], tools: pattern.tools_used }),
    ]);
  });
});

describe('conversation source over the agent’s tables', () => {
  test('reads the last turns and a pending action of the caller’s conversation only', async () => {
    const id = `conv-${randomUUID()}`;
    const messages = [
      { role: 'user', content: 'show my bills', requestId: 'r1' },
      {
        role: 'assistant',
        content: '2 bills',
        requestId: 'r1',
        metadata: { status: 'answered', tools: ['get_bills'] },
      },
      { role: 'user', content: 'create a bill for Sharma', requestId: 'r2' },
      {
        role: 'assistant',
        content: 'Confirm?',
        requestId: 'r2',
        metadata: { status: 'awaiting_confirmation', tools: [], actionId: 'a1' },
      },
    ];
    await db
      .insertInto('unified_conversations')
      .values({
        id,
        entity_id: 'ent-db',
        org_id: 'org-1',
        chat_number: 1,
        messages: JSON.stringify(messages),
      })
      .execute();
    const source = dbConversationSource(db);
    const scope = { requestId: 'r3', conversationId: id, entityId: 'ent-db', orgId: 'org-1' };
    expect(await source.load(scope, registry)).toEqual({
      previousGroups: ['bills'],
      pendingAction: false,
      turns: 2,
    });

    const pending = {
      action_id: `a-${randomUUID()}`,
      request_id: 'r2',
      conversation_id: id,
      entity_id: 'ent-db',
      org_id: 'org-1',
      tool: 'create_bill',
      args: '{}',
      args_hash: 'h',
      tier: 1,
      question: 'Confirm?',
      call_id: 'c',
      tool_call_id: 't',
      state: '{}',
    };
    await db
      .insertInto('pending_actions')
      .values({ ...pending, expires_at: new Date(Date.now() + 60_000) })
      .execute();
    expect(await source.load(scope, registry)).toMatchObject({ pendingAction: true });
    await db
      .updateTable('pending_actions')
      .set({ status: 'executed' })
      .where('action_id', '=', pending.action_id)
      .execute();
    expect(await source.load(scope, registry)).toMatchObject({ pendingAction: false });

    // Another tenant sees nothing of it; a broken database degrades to no history.
    expect(await source.load({ ...scope, entityId: 'ent-intruder' }, registry)).toEqual(NO_CONVERSATION);
    const broken = createDb(`${testDb.url.replace(/\/[^/]*$/, '')}/munim_does_not_exist`, { max: 1 });
    let reported: unknown;
    expect(await dbConversationSource(broken, (e) => (reported = e)).load(scope, registry)).toEqual(
      NO_CONVERSATION,
    );
    expect(reported).toBeInstanceOf(Error);
    await broken.destroy();
  });
});

describe('intent changes', () => {
  test('reloads the intents at once when an admin change is announced', async () => {
    const before = intentLoads;
    gateway.broadcast('intentsChanged', { reason: 'created', intentIds: ['intent_x'] });
    await expect.poll(() => intentLoads).toBeGreaterThan(before);
  });

  test('drops the cached answers once the new intents are in use, and caches no answer routed before', async () => {
    await ask(scopeOf('ent-edit'), 'show all invoices');
    await learnt();
    expect(await cacheRows('ent-edit')).toHaveLength(1);

    // A request routed before the change whose answer arrives after it.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    scripted.set('show all bills', async (data) => {
      await held;
      return answered(data);
    });
    const slowScope = scopeOf('ent-edit-slow');
    const recorder = recordEvents(gateway, slowScope.requestId);
    await gateway.publish('querySubmitted', slowScope, { query: 'show all bills' });
    await expect.poll(() => routed.has(slowScope.requestId)).toBe(true);

    const loads = intentLoads;
    gateway.broadcast('intentsChanged', { reason: 'updated', intentIds: ['intent_all_invoices'] });
    await expect.poll(async () => (await cacheRows('ent-edit')).length).toBe(0);
    expect(intentLoads).toBeGreaterThan(loads);

    release();
    await expect.poll(() => recorder.events.some((e) => e.type === 'complete')).toBe(true);
    recorder.stop();
    scripted.delete('show all bills');
    await learnt();
    expect(await cacheRows('ent-edit-slow')).toEqual([]);

    // Routed after the change: answered afresh, and cached again.
    const after = await ask(scopeOf('ent-edit'), 'show all invoices');
    expect(classified(after)).toMatchObject({ path: 'fast' });
    await learnt();
    expect(await cacheRows('ent-edit')).toHaveLength(1);
  });

  test('refreshes one at a time, so a slow older read never replaces a newer set', async () => {
    const pending: ((intents: ReturnType<typeof seededIntents>) => void)[] = [];
    const other = await testRouter(() => new Promise((resolve) => pending.push(resolve)), 1);
    const timed = other.refresh(); // read the table before an admin change
    const announced = other.refresh(); // read it after
    await expect.poll(() => pending.length).toBe(1);
    pending[0]?.(seededIntents().slice(0, 3)); // the old set, arriving late
    await expect.poll(() => pending.length).toBe(2);
    pending[1]?.(seededIntents());
    await Promise.all([timed, announced]);
    expect(other.matcher.size).toBe(seededIntents().length);
  });

  test('ignores a malformed announcement', async () => {
    const before = intentLoads;
    gateway.nc.publish(gateway.subject('intentsChanged'), JSON.stringify({ data: { reason: 1 } }));
    gateway.broadcast('intentsChanged', { reason: 'updated', intentIds: [] });
    await expect.poll(() => intentLoads).toBe(before + 1);
    // Both notices were delivered in order; give a reload the malformed one caused time to show.
    await new Promise((r) => setTimeout(r, 300));
    expect(intentLoads).toBe(before + 1);
  });
});
