import { randomUUID } from 'node:crypto';
import type { Bus } from '@munim/bus';
import { recordEvents } from '@munim/bus/testing';
import type { AgentEvent, QueryRouted, RequestScope } from '@munim/contracts';
import type { Database } from '@munim/db';
import { createLogger, type ToolCatalog } from '@munim/kit';
import { type TestNats, test } from '@munim/testkit';
import { type Kysely, sql } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
// The logger applies the feedback the router's counts are corrected by: both run here, as deployed.
import { buildLogger, LOGGER_DURABLE, type LoggerApp } from '../../logger/src/app.ts';
import { demoRegistry } from '../eval/evaluate.ts';
import type { buildRouter } from '../src/app.ts';
import { RouterStore } from '../src/store.ts';
import { buildTestRouter } from './test-router.ts';

let nats: TestNats;
const registry = demoRegistry();
const tools: ToolCatalog = {
  list: async () => registry,
  find: async (name) => registry.find((t) => t.name === name),
  invalidate: () => {},
};

/** How the stand-in agent ends a request, by query; default: answered. */
const scripted = new Map<string, (routed: QueryRouted) => AgentEvent | Promise<AgentEvent>>();
const routed = new Map<string, QueryRouted>();

let db: Kysely<Database>;
let gateway: Bus;
let routerBus: Bus;
let router: Awaited<ReturnType<typeof buildRouter>>;
let logger: LoggerApp;

function answered(data: QueryRouted): AgentEvent {
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
    },
  };
}

test.beforeAll(async ({ nats: fileNats, db: fileDb }) => {
  nats = fileNats;
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
  router = await buildTestRouter(
    { bus: routerBus, tools, store: new RouterStore(db) },
    // Every ask is routed and counted, none answered from the cache.
    { cacheEnabled: false },
  );

  await router.start();
  logger = await buildLogger({
    bus: await nats.bus('logger'),
    log: createLogger('logger', 'silent'),
    db,
    config: { concurrency: 2, learnIntervalMs: 100 },
  });
  await logger.start();
});

afterAll(async () => {
  await logger?.stop();
  await router?.stop();
});

const tenantOf = (entityId: string, orgId = 'org-1') => ({ entityId, orgId });
const scopeOf = (
  tenant: { entityId: string; orgId: string },
  conversationId = `conv-${randomUUID()}`,
): RequestScope => ({ requestId: randomUUID(), conversationId, ...tenant });

/** Submits a query as the gateway does; resolves to its events up to `complete` or `error`. */
async function ask(scope: RequestScope, query: string): Promise<AgentEvent[]> {
  const recorder = recordEvents(gateway, scope.requestId);
  await gateway.publish('querySubmitted', scope, { query });
  await expect
    .poll(() => recorder.events.some((e) => e.type === 'complete' || e.type === 'error'))
    .toBe(true);
  recorder.stop();
  return recorder.events;
}

/** Resolves once a durable consumer of the events has handled every event so far. */
async function drained(durable: string): Promise<void> {
  await expect
    .poll(async () => {
      const info = await routerBus.jsm.consumers.info(routerBus.streamName('events'), durable);
      return info.num_pending + info.num_ack_pending;
    })
    .toBe(0);
}

/** Resolves once the router has counted, and the logger stored, every request ended so far. */
async function counted(): Promise<void> {
  await drained('router-outcomes');
  await drained(LOGGER_DURABLE);
}

/** Thumbs up or down, stored as `POST /v1/feedback` stores it. */
async function thumbs(scope: RequestScope, signal: 'thumbs_up' | 'thumbs_down', as = scope): Promise<void> {
  await db
    .insertInto('feedback_log')
    .values({
      request_id: scope.requestId,
      conversation_id: scope.conversationId,
      entity_id: as.entityId,
      org_id: as.orgId,
      kind: 'explicit',
      signal,
      score: signal === 'thumbs_up' ? 1 : -1,
    })
    .execute();
}

/** Resolves once the logger has learnt all the feedback there is. */
async function learnt(): Promise<void> {
  await expect
    .poll(async () => {
      const { n } = await db
        .selectFrom('feedback_log')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('learned_at', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(n);
    })
    .toBe(0);
}

/** The stats row of the intent and bucket a fast-path request was counted in. */
async function statsOf(scope: RequestScope) {
  const route = routed.get(scope.requestId)?.route;
  expect(route?.path).toBe('fast');
  const { rows } = await sql<{
    total_attempts: number;
    successful_attempts: number;
    failed_attempts: number;
    avg_feedback_score: number | null;
  }>`select s.total_attempts, s.successful_attempts, s.failed_attempts, s.avg_feedback_score
    from intent_routing_stats s join routing_outcomes o
      on o.intent_id = s.intent_id and o.confidence_bucket = s.confidence_bucket
    where o.request_id = ${scope.requestId}`.execute(db);
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

const intentOf = (scope: RequestScope) => routed.get(scope.requestId)?.route.intent?.id ?? 'none';

const classified = (events: AgentEvent[]) =>
  events.find((e): e is Extract<AgentEvent, { type: 'route_classified' }> => e.type === 'route_classified')
    ?.payload;

describe('explicit feedback moves the threshold of the intent that answered', () => {
  test('counts a thumbed-down fast-path answer as a failure: the score falls and the lowered threshold goes back up', async () => {
    const tenant = tenantOf('ent-thumbs');
    const query = 'show profit and loss';
    // One earlier failure of the same intent at the same confidence: 19 of 20 succeeded.
    scripted.set('Show profit and loss', () => ({
      type: 'error',
      payload: { code: 'TOOL_FAILED', message: 'down' },
    }));
    const scopes: RequestScope[] = [];
    for (let i = 0; i < 20; i++) {
      const scope = scopeOf(tenant);
      const events = await ask(scope, i === 0 ? 'Show profit and loss' : query);
      expect(classified(events)).toMatchObject({ path: 'fast' });
      scopes.push(scope);
    }
    await counted();
    const [, first, second, third] = scopes as [RequestScope, RequestScope, RequestScope, RequestScope];
    const intent = intentOf(first);
    await router.refresh();
    expect(await statsOf(first)).toEqual({
      total_attempts: 20,
      successful_attempts: 19,
      failed_attempts: 1,
      avg_feedback_score: null,
    });
    expect(router.thresholdFor(intent)).toBe(0.8);

    await thumbs(first, 'thumbs_down');
    await learnt();
    await router.refresh();
    expect(await statsOf(first)).toEqual({
      total_attempts: 20,
      successful_attempts: 18,
      failed_attempts: 2,
      avg_feedback_score: -1,
    });
    expect(router.thresholdFor(intent)).toBe(0.85);

    // A thumbs-up elsewhere moves the mean, not the counts.
    await thumbs(second, 'thumbs_up');
    await thumbs(third, 'thumbs_up');
    await learnt();
    expect(await statsOf(first)).toMatchObject({ successful_attempts: 18, failed_attempts: 2 });
    expect((await statsOf(first)).avg_feedback_score).toBeCloseTo(1 / 3, 10);

    // The user's last word counts: a change of mind turns the failure back into a success.
    await thumbs(first, 'thumbs_up');
    await learnt();
    await router.refresh();
    expect(await statsOf(first)).toEqual({
      total_attempts: 20,
      successful_attempts: 19,
      failed_attempts: 1,
      avg_feedback_score: 1,
    });
    expect(router.thresholdFor(intent)).toBe(0.8);
  });

  test('waits for the outcome of an answer thumbed down before the router counted it', async () => {
    const query = 'show balance sheet';
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    scripted.set(query, async (data) => {
      await gate;
      return answered(data);
    });
    const scope = scopeOf(tenantOf('ent-early'));
    const pending = ask(scope, query);
    await expect.poll(() => routed.has(scope.requestId)).toBe(true);
    await thumbs(scope, 'thumbs_down');
    // Not learnt while the request runs: its success is not counted yet, so there is nothing to turn.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const waiting = await db
      .selectFrom('feedback_log')
      .select('learned_at')
      .where('request_id', '=', scope.requestId)
      .executeTakeFirstOrThrow();
    expect(waiting.learned_at).toBeNull();

    release();
    await pending;
    await counted();
    await learnt();
    expect(await statsOf(scope)).toEqual({
      total_attempts: 1,
      successful_attempts: 0,
      failed_attempts: 1,
      avg_feedback_score: -1,
    });
  });
});

describe('implicit feedback', () => {
  test('counts a fast-path answer the user asked again in other words as a failure', async () => {
    const tenant = tenantOf('ent-rephrase');
    const conversation = `conv-${randomUUID()}`;
    const first = scopeOf(tenant, conversation);
    expect(classified(await ask(first, 'show all customers'))).toMatchObject({ path: 'fast' });
    await counted();
    expect(await statsOf(first)).toMatchObject({ successful_attempts: 1, failed_attempts: 0 });

    await ask(scopeOf(tenant, conversation), 'list all the customers please');
    await counted();
    await expect
      .poll(() =>
        db
          .selectFrom('feedback_log')
          .select(['signal', 'score'])
          .where('request_id', '=', first.requestId)
          .execute(),
      )
      .toEqual([{ signal: 'rephrase', score: -1 }]);
    await learnt();
    const stats = await statsOf(first);
    // The rephrase itself was answered on the same intent: one success, and the first a failure.
    expect(stats).toMatchObject({ failed_attempts: 1, avg_feedback_score: -1 });
    expect(stats.successful_attempts + stats.failed_attempts).toBe(stats.total_attempts);
    expect(stats.total_attempts).toBe(2);
  });

  test('counts an answer followed by “that’s wrong” as a failure', async () => {
    const tenant = tenantOf('ent-correction');
    const conversation = `conv-${randomUUID()}`;
    const first = scopeOf(tenant, conversation);
    expect(classified(await ask(first, 'show all vendors'))).toMatchObject({ path: 'fast' });
    await ask(scopeOf(tenant, conversation), 'no, that’s wrong');
    await counted();
    await expect
      .poll(() =>
        db.selectFrom('feedback_log').select('signal').where('request_id', '=', first.requestId).execute(),
      )
      .toEqual([{ signal: 'correction' }]);
    await learnt();
    expect(await statsOf(first)).toEqual({
      total_attempts: 1,
      successful_attempts: 0,
      failed_attempts: 1,
      avg_feedback_score: -1,
    });
  });

  test('moves the feedback score of an LLM-path pattern, and a pattern users reject is not suggested as an intent', async () => {
    const query = 'which customer has grown the fastest this year';
    const scopes: RequestScope[] = [];
    for (let i = 0; i < 9; i++) {
      const scope = scopeOf(tenantOf(`ent-pattern-${i}`));
      expect(classified(await ask(scope, query))).toMatchObject({ path: 'llm' });
      scopes.push(scope);
    }
    await counted();
    await thumbs(scopes[0]!, 'thumbs_down');
    await thumbs(scopes[1]!, 'thumbs_down');
    await thumbs(scopes[2]!, 'thumbs_up');
    await learnt();
    const pattern = await db
      .selectFrom('llm_path_patterns')
      .selectAll()
      .where('query_text', '=', query)
      .executeTakeFirstOrThrow();
    expect(pattern.occurrence_count).toBe(9);
    expect(pattern.avg_feedback_score).toBeCloseTo(-1 / 3, 10);

    await ask(scopeOf(tenantOf('ent-pattern-9')), query);
    await counted();
    const suggested = await db
      .selectFrom('suggested_intents')
      .select('id')
      .where('pattern_hash', '=', pattern.query_hash)
      .execute();
    expect(suggested).toEqual([]);
  });
});

describe('feedback is counted once, and only for its own tenant', () => {
  test('ignores feedback in another tenant’s name, explicit or implicit', async () => {
    const mine = tenantOf('ent-shared', 'org-a');
    const theirs = tenantOf('ent-shared', 'org-b');
    const conversation = `conv-${randomUUID()}`;
    const scope = scopeOf(mine, conversation);
    expect(classified(await ask(scope, 'show all bills'))).toMatchObject({ path: 'fast' });
    await counted();
    const before = await statsOf(scope);

    // Another org (same entity id, same conversation id) thumbs it down and asks it again.
    await thumbs(scope, 'thumbs_down', { ...scope, ...theirs });
    await ask(scopeOf(theirs, conversation), 'list all the bills please');
    await counted();
    await learnt();
    const after = await statsOf(scope);
    // Their own request is counted (one more success); this one is not turned into a failure.
    expect(after).toEqual({
      ...before,
      total_attempts: before.total_attempts + 1,
      successful_attempts: before.successful_attempts + 1,
    });
    const own = await db
      .selectFrom('routing_outcomes')
      .select('feedback_score')
      .where('request_id', '=', scope.requestId)
      .executeTakeFirstOrThrow();
    expect(own.feedback_score).toBeNull();

    await thumbs(scope, 'thumbs_down');
    await learnt();
    expect(await statsOf(scope)).toMatchObject({
      successful_attempts: after.successful_attempts - 1,
      failed_attempts: after.failed_attempts + 1,
    });
  });

  test('counts feedback delivered twice once: a retried thumbs, a redelivered event, a second learning', async () => {
    const tenant = tenantOf('ent-twice');
    const conversation = `conv-${randomUUID()}`;
    const first = scopeOf(tenant, conversation);
    expect(classified(await ask(first, 'show all invoices'))).toMatchObject({ path: 'fast' });
    const thumbed = scopeOf(tenant);
    expect(classified(await ask(thumbed, 'show all invoices'))).toMatchObject({ path: 'fast' });
    await counted();
    expect(await statsOf(first)).toMatchObject({ total_attempts: 2, successful_attempts: 2 });

    // The client retried its thumbs-down.
    await thumbs(thumbed, 'thumbs_down');
    await thumbs(thumbed, 'thumbs_down');
    // The rephrase's first event delivered again, as a redelivery brings it.
    const rephrase = scopeOf(tenant, conversation);
    const raw: Uint8Array[] = [];
    const subject = routerBus.subject('requestEvents', { requestId: rephrase.requestId });
    const sub = routerBus.nc.subscribe(subject, { callback: (_err, msg) => void raw.push(msg.data) });
    await ask(rephrase, 'list all the invoices please');
    sub.unsubscribe();
    // Sent alone, or with the routing steps when routing was quick.
    const started = raw.find((bytes) =>
      [JSON.parse(new TextDecoder().decode(bytes))]
        .flat()
        .some((m: { data: { type: string } }) => m.data.type === 'understanding_started'),
    );
    expect(started).toBeDefined();
    await counted();
    await learnt();
    await routerBus.js.publish(subject, started!, { msgID: `again-${randomUUID()}` });
    await counted();
    await learnt();

    const expected = {
      total_attempts: 3,
      successful_attempts: 1,
      failed_attempts: 2,
      avg_feedback_score: -1,
    };
    expect(await statsOf(first)).toEqual(expected);
    const signals = await db
      .selectFrom('feedback_log')
      .select(['request_id', 'signal'])
      .where('request_id', 'in', [first.requestId, thumbed.requestId])
      .orderBy('id')
      .execute();
    expect(signals).toEqual([
      { request_id: thumbed.requestId, signal: 'thumbs_down' },
      { request_id: thumbed.requestId, signal: 'thumbs_down' },
      { request_id: first.requestId, signal: 'rephrase' },
    ]);

    // Learning all of it again (a pass cut short after its commit, say) changes nothing.
    await db
      .updateTable('feedback_log')
      .set({ learned_at: null })
      .where('request_id', 'in', [first.requestId, thumbed.requestId])
      .execute();
    await learnt();
    expect(await statsOf(first)).toEqual(expected);
  });
});

// Last in the file: nats-server 2.9 ignores a TERM with a reason, so the malformed message stays
// pending on the durables until its ack wait, and `counted()` would wait for it.
describe('a malformed event', () => {
  test('is terminated with an error event and teaches nothing; the feedback after it is still learnt', async () => {
    const tenant = tenantOf('ent-malformed');
    const conversation = `conv-${randomUUID()}`;
    const first = scopeOf(tenant, conversation);
    expect(classified(await ask(first, 'show all bills'))).toMatchObject({ path: 'fast' });
    await counted();
    const before = await statsOf(first);

    const bad = scopeOf(tenant, conversation);
    const recorder = recordEvents(gateway, bad.requestId);
    await gateway.js.publish(
      gateway.subject('requestEvents', { requestId: bad.requestId }),
      JSON.stringify({
        id: `bad-${randomUUID()}`,
        ...bad,
        service: 'router',
        ts: new Date().toISOString(),
        data: { type: 'understanding_started', payload: { query: ['list', 'all', 'the', 'bills'] } },
      }),
    );
    await expect
      .poll(() => recorder.events.find((e) => e.type === 'error')?.payload)
      .toMatchObject({ code: 'MALFORMED_MESSAGE' });
    recorder.stop();

    await ask(scopeOf(tenant, conversation), 'list all the bills please');
    await expect
      .poll(() =>
        db.selectFrom('feedback_log').select('signal').where('request_id', '=', first.requestId).execute(),
      )
      .toEqual([{ signal: 'rephrase' }]);
    await learnt();
    await expect.poll(async () => (await statsOf(first)).failed_attempts).toBe(before.failed_attempts + 1);
  });
});
