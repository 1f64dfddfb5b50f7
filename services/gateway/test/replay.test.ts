import type { Bus } from '@munim/bus';
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
  type SseEvent,
  startGateway,
} from './helpers.ts';

let testBus: FixtureNats;
let gateway: Gateway;
let url: string;
let bus: Bus;
let backend: Awaited<ReturnType<typeof fakeBackend>>;
const holds = new Map<string, ReturnType<typeof gate>>();
let finished: SseEvent[];
let finishedId: string;

test.beforeAll(async ({ nats }) => {
  testBus = nats;
  ({ gateway, url, bus } = await startGateway(testBus));
  backend = await fakeBackend(testBus, async (message) => {
    const { query } = message.data;
    const first = [
      { type: 'understanding_started', payload: { query } },
      { type: 'response_chunk', payload: { text: 'Cash is ' } },
    ] as const;
    const hold = holds.get(query);
    if (!hold)
      return [
        ...first,
        { type: 'response_chunk', payload: { text: 'fine.' } },
        completeEvent(query, 'Cash is fine.'),
      ];
    await backend.agent.emit(message, first[0]);
    await backend.agent.emit(message, first[1]);
    await hold.promise;
    return [completeEvent(query, 'Cash is fine.')];
  });
  const response = await postQuery(url, { query: 'how is cash', entityId: 'e1', orgId: 'o1' });
  finished = (await readSse(response)).events;
  finishedId = connectedOf(finished).requestId;
});

afterAll(async () => {
  await backend?.stop();
  await gateway?.stop();
});

function replay(requestId: string, headers: Record<string, string> = {}, query = '') {
  return fetch(`${url}/v1/requests/${requestId}/events${query}`, { headers });
}

describe('GET /v1/requests/:requestId/events', () => {
  test('replays every event of a finished request and ends after the last', async () => {
    expect(finished.map((e) => e.event)).toEqual([
      'connected',
      'understanding_started',
      'response_chunk',
      'response_chunk',
      'complete',
    ]);
    const response = await replay(finishedId);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect((await readSse(response)).events).toEqual(finished);
  });

  test('replays exactly the events after Last-Event-ID (header or query)', async () => {
    const lastSeen = finished[1]?.id ?? '';
    const byHeader = await readSse(await replay(finishedId, { 'last-event-id': lastSeen }));
    expect(byHeader.events).toEqual(finished.slice(2));
    const byQuery = await readSse(await replay(finishedId, {}, `?lastEventId=${lastSeen}`));
    expect(byQuery.events).toEqual(finished.slice(2));
  });

  test('ends at once when the client already has the last event of a finished request', async () => {
    const response = await replay(finishedId, { 'last-event-id': finished.at(-1)?.id ?? '' });
    expect(response.status).toBe(200);
    expect((await readSse(response)).events).toEqual([]);
  });

  test('goes on live for a running request', async () => {
    const hold = gate();
    holds.set('running query', hold);
    const original = await postQuery(url, { query: 'running query', entityId: 'e1', orgId: 'o1' });
    let requestId = '';
    const originalRead = readSse(original, {
      stopWhen: (events) => {
        requestId ||= (events[0]?.data as { requestId?: string } | undefined)?.requestId ?? '';
        return false;
      },
    });
    await expect.poll(() => requestId).not.toBe('');
    const live = await replay(requestId);
    const { events } = await readSse(live, {
      stopWhen: (events) => {
        if (events.some((e) => e.data && (e.data as { text?: string }).text === 'Cash is ')) hold.open();
        return false;
      },
    });
    expect(events.map((e) => e.event)).toEqual([
      'connected',
      'understanding_started',
      'response_chunk',
      'complete',
    ]);
    expect((await originalRead).events).toEqual(events);
  });

  test('answers 404 for an unknown request id', async () => {
    const response = await replay('0f1e2d3c-unknown');
    expect(response.status).toBe(404);
    const body = HttpErrorSchema.parse(await response.json());
    expect(body.error.code).toBe('NOT_FOUND');
  });

  test('answers 400 for a malformed request id or Last-Event-ID, publishing nothing', async () => {
    const eventsBefore = await testBus.lastSeq(bus, 'events');
    const badId = await gateway.app.inject({ method: 'GET', url: '/v1/requests/bad.id/events' });
    expect(badId.statusCode).toBe(400);
    expect(HttpErrorSchema.parse(badId.json()).error).toMatchObject({
      code: 'BAD_REQUEST',
      field: 'requestId',
    });
    const badLast = await gateway.app.inject({
      method: 'GET',
      url: `/v1/requests/${finishedId}/events`,
      headers: { 'last-event-id': 'yesterday' },
    });
    expect(badLast.statusCode).toBe(400);
    expect(HttpErrorSchema.parse(badLast.json()).error).toMatchObject({
      code: 'BAD_REQUEST',
      field: 'Last-Event-ID',
    });
    expect(await testBus.lastSeq(bus, 'events')).toBe(eventsBefore);
  });
});
