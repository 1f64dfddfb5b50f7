import { type Bus, traceIdOf } from '@munim/bus';
import { HttpErrorSchema } from '@munim/contracts';
import { type FixtureNats, test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import {
  completeEvent,
  connectedOf,
  fakeBackend,
  gate,
  postQuery,
  readSse,
  startGateway,
} from './helpers.ts';

let testBus: FixtureNats;
let gateway: Gateway;
let url: string;
let bus: Bus;
let backend: Awaited<ReturnType<typeof fakeBackend>>;
/** Queries whose text starts with "hold" wait here before their last event. */
const holds = new Map<string, ReturnType<typeof gate>>();

test.beforeAll(async ({ nats }) => {
  testBus = nats;
  ({ gateway, url, bus } = await startGateway(testBus, { SSE_HEARTBEAT_MS: '50' }));
  backend = await fakeBackend(testBus, async (message) => {
    const { query } = message.data;
    if (query.startsWith('never')) return [{ type: 'understanding_started', payload: { query } }];
    const hold = holds.get(query);
    if (hold) await hold.promise;
    return [
      { type: 'understanding_started', payload: { query } },
      { type: 'route_classified', payload: { path: 'llm', category: 'unified', confidence: 0.4 } },
      { type: 'response_chunk', payload: { text: 'You have ' } },
      { type: 'response_chunk', payload: { text: '3 overdue invoices.' } },
      completeEvent(query, 'You have 3 overdue invoices.'),
    ];
  });
});

afterAll(async () => {
  await backend?.stop();
  await gateway?.stop();
});

describe('POST /v1/query', () => {
  test('streams connected first, then every event in order with increasing ids, ending at complete', async () => {
    const response = await postQuery(url, { query: 'show overdue invoices', entityId: 'e1', orgId: 'o1' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const { events } = await readSse(response);
    expect(events.map((e) => e.event)).toEqual([
      'connected',
      'understanding_started',
      'route_classified',
      'response_chunk',
      'response_chunk',
      'complete',
    ]);
    const ids = events.map((e) => Number(e.id));
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    const connected = connectedOf(events);
    expect(connected.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(connected.conversationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(events[5]?.data).toMatchObject({ response: 'You have 3 overdue invoices.', status: 'answered' });
  });

  test('publishes querySubmitted with the query, tenant, conversation and a traceparent header', async () => {
    const response = await postQuery(url, {
      query: '  list unpaid bills  ',
      entityId: 'ent-7',
      orgId: 'org-9',
      conversationId: 'conv-42',
    });
    const { events } = await readSse(response);
    const connected = connectedOf(events);
    expect(connected.conversationId).toBe('conv-42');
    const got = backend.received.find((r) => r.message.requestId === connected.requestId);
    expect(got?.message).toMatchObject({
      requestId: connected.requestId,
      conversationId: 'conv-42',
      entityId: 'ent-7',
      orgId: 'org-9',
      service: 'gateway',
      data: { query: 'list unpaid bills' },
    });
    expect(traceIdOf(got?.traceparent)).toMatch(/^[0-9a-f]{32}$/);
    // The caller named the conversation: it may exist, so readers look it up.
    expect(got?.message.data).not.toHaveProperty('newConversation');
  });

  test('marks a query whose conversation it named itself as the start of a new conversation', async () => {
    const response = await postQuery(url, { query: 'list unpaid bills', entityId: 'ent-7', orgId: 'org-9' });
    const connected = connectedOf((await readSse(response)).events);
    const got = backend.received.find((r) => r.message.requestId === connected.requestId);
    expect(got?.message.conversationId).toBe(connected.conversationId);
    expect(got?.message.data).toMatchObject({ query: 'list unpaid bills', newConversation: true });
  });

  test('forwards an mcqResponse for a conversation', async () => {
    const response = await postQuery(url, {
      entityId: 'e1',
      orgId: 'o1',
      conversationId: 'conv-mcq',
      mcqResponse: { actionId: 'act-1', value: 'confirm' },
    });
    expect(response.status).toBe(200);
    const { events } = await readSse(response);
    expect(events.at(-1)?.event).toBe('complete');
    const requestId = connectedOf(events).requestId;
    const got = backend.received.find((r) => r.message.requestId === requestId);
    expect(got?.message.data).toEqual({ query: '', mcqResponse: { actionId: 'act-1', value: 'confirm' } });
    expect(got?.message.conversationId).toBe('conv-mcq');
  });

  test('sends heartbeat comments while a request is running', async () => {
    const hold = gate();
    holds.set('hold heartbeat', hold);
    const response = await postQuery(url, { query: 'hold heartbeat', entityId: 'e1', orgId: 'o1' });
    const { events, comments } = await readSse(response, {
      stopWhen: (_events, comments) => {
        if (comments.length > 0) hold.open();
        return false;
      },
    });
    expect(comments.length).toBeGreaterThan(0);
    expect(events.at(-1)?.event).toBe('complete');
  });

  const valid = { query: 'show overdue invoices', entityId: 'e1', orgId: 'o1' };
  const badBodies: [string, string | object, string, string?][] = [
    ['malformed JSON', '{"query": "show', 'body'],
    ['a missing query', { entityId: 'e1', orgId: 'o1' }, 'query'],
    ['an empty query', { ...valid, query: '   ' }, 'query'],
    ['a query over 4000 characters', { ...valid, query: 'x'.repeat(4001) }, 'query'],
    ['an unknown field', { ...valid, priority: 'high' }, 'priority'],
    ['a wrong type of entityId', { ...valid, entityId: 42 }, 'entityId'],
    ['a missing orgId', { query: 'q', entityId: 'e1' }, 'orgId'],
    ['a bad conversation id', { ...valid, conversationId: 'has spaces' }, 'conversationId'],
    [
      'an mcqResponse without conversationId',
      { entityId: 'e1', orgId: 'o1', mcqResponse: { actionId: 'a', value: 'confirm' } },
      'conversationId',
    ],
    [
      'a bad mcqResponse value',
      { entityId: 'e1', orgId: 'o1', conversationId: 'c', mcqResponse: { actionId: 'a', value: 'maybe' } },
      'mcqResponse.value',
    ],
    ['a body over the size limit', { ...valid, query: 'x'.repeat(70 * 1024) }, 'body'],
    ['a JSON array', [valid], 'body'],
    ['a non-JSON content type', 'query=show', 'content-type', 'text/plain'],
    ['a form content type', 'query=show', 'content-type', 'application/x-www-form-urlencoded'],
  ];

  test.each(badBodies)(
    'rejects %s with 400 naming the field, publishing nothing',
    async (_name, body, field, type) => {
      const workBefore = await testBus.lastSeq(bus, 'work');
      const eventsBefore = await testBus.lastSeq(bus, 'events');
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/v1/query',
        headers: { 'content-type': type ?? 'application/json' },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      const error = HttpErrorSchema.parse(response.json());
      expect(error.error.code).toBe('BAD_REQUEST');
      expect(error.error.field).toBe(field);
      expect(error.error.message).toContain(field);
      expect(await testBus.lastSeq(bus, 'work')).toBe(workBefore);
      expect(await testBus.lastSeq(bus, 'events')).toBe(eventsBefore);
    },
  );

  test('rejects a request without a body', async () => {
    const response = await gateway.app.inject({ method: 'POST', url: '/v1/query' });
    expect(response.statusCode).toBe(400);
    expect(HttpErrorSchema.parse(response.json()).error.field).toBe('body');
  });

  test('stops following when the client disconnects, leaving no consumer behind', async () => {
    const baseline = await testBus.consumerCount(bus, 'events');
    const abort = new AbortController();
    const response = await postQuery(
      url,
      { query: 'never ends', entityId: 'e1', orgId: 'o1' },
      {},
      abort.signal,
    );
    const { events } = await readSse(response, {
      abort,
      stopWhen: (events) => events.some((e) => e.event === 'understanding_started'),
    });
    expect(events[0]?.event).toBe('connected');
    await expect.poll(() => testBus.consumerCount(bus, 'events'), { timeout: 5000 }).toBe(baseline);
  });

  test('answers unknown routes with a JSON 404', async () => {
    const response = await gateway.app.inject({ method: 'GET', url: '/v1/nope' });
    expect(response.statusCode).toBe(404);
    expect(HttpErrorSchema.parse(response.json()).error.code).toBe('NOT_FOUND');
  });

  test('reports the process as up on /healthz', async () => {
    const response = await gateway.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });
});

describe('stream ends', () => {
  test('ends a stream that gets no answer in STREAM_TIMEOUT_MS with an error TIMEOUT', async () => {
    const { gateway: slow, url: slowUrl } = await startGateway(testBus, { STREAM_TIMEOUT_MS: '300' });
    try {
      const response = await postQuery(slowUrl, { query: 'never answers', entityId: 'e1', orgId: 'o1' });
      const { events } = await readSse(response);
      expect(events[0]?.event).toBe('connected');
      expect(events.at(-1)).toMatchObject({ event: 'error', id: undefined, data: { code: 'TIMEOUT' } });
    } finally {
      await slow.stop();
    }
  });

  test('ends open streams with SERVICE_UNAVAILABLE when the gateway stops', async () => {
    const { gateway: doomed, url: doomedUrl, bus: doomedBus } = await startGateway(testBus);
    const baseline = await testBus.consumerCount(doomedBus, 'events');
    const response = await postQuery(doomedUrl, { query: 'never finishes', entityId: 'e1', orgId: 'o1' });
    let stopping: Promise<void> | undefined;
    const { events } = await readSse(response, {
      stopWhen: (events) => {
        if (!stopping && events.some((e) => e.event === 'understanding_started')) stopping = doomed.stop();
        return false;
      },
    });
    await stopping;
    expect(events.at(-1)).toMatchObject({
      event: 'error',
      data: { code: 'SERVICE_UNAVAILABLE', message: 'gateway shutting down' },
    });
    expect(await testBus.consumerCount(doomedBus, 'events')).toBe(baseline);
  });

  test('answers 503 without opening a stream when the bus is gone', async () => {
    const { gateway: cut, bus: cutBus } = await startGateway(testBus);
    try {
      await cutBus.nc.close();
      const query = await cut.app.inject({
        method: 'POST',
        url: '/v1/query',
        payload: { query: 'show invoices', entityId: 'e1', orgId: 'o1' },
      });
      expect(query.statusCode).toBe(503);
      expect(HttpErrorSchema.parse(query.json()).error.code).toBe('SERVICE_UNAVAILABLE');
      const ready = await cut.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'unavailable', nats: false });
    } finally {
      await cut.stop();
    }
  });
});
