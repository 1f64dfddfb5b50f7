import { connect, type Socket } from 'node:net';
import type { Bus } from '@munim/bus';
import { type FixtureNats, test } from '@munim/testkit';
import { afterAll, describe, expect, vi } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { connectedOf, fakeBackend, postQuery, readSse, startGateway } from './helpers.ts';

const CLIENTS = 1000;
const BATCH = 100;
let testBus: FixtureNats;
let gateway: Gateway;
let url: string;
let bus: Bus;
let backend: Awaited<ReturnType<typeof fakeBackend>>;

/** Subscriptions the gateway's NATS connection holds (nats.js keeps no public count). */
function natsSubscriptions(): number {
  return (
    bus.nc as unknown as { protocol: { subscriptions: { size(): number } } }
  ).protocol.subscriptions.size();
}

test.beforeAll(async ({ nats }) => {
  testBus = nats;
  ({ gateway, url, bus } = await startGateway(testBus, {
    MAX_STREAMS_PER_KEY: String(CLIENTS + 10),
    MAX_STREAMS_TOTAL: String(CLIENTS + 10),
    RATE_LIMIT_MAX: String(CLIENTS * 2),
  }));
  // The request never ends, so every replay stays live until its client goes away.
  backend = await fakeBackend(testBus, () => []);
});

afterAll(async () => {
  await backend?.stop();
  await gateway?.stop();
});

/** A raw HTTP client following a request's events; resolves once the `connected` event arrived. */
function follow(port: number, requestId: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let seen = '';
    socket.setEncoding('utf8');
    socket.on('error', reject);
    socket.on('data', (chunk: string) => {
      seen += chunk;
      if (seen.includes('event: connected')) resolve(socket);
    });
    socket.write(
      `GET /v1/requests/${requestId}/events HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\n\r\n`,
    );
  });
}

describe('clients that go away', () => {
  test(`frees every stream and follow of ${CLIENTS} dropped clients, which cost no JetStream consumer or NATS subscription of their own`, async () => {
    const abort = new AbortController();
    const first = await postQuery(
      url,
      { query: 'never answered', entityId: 'ent-a', orgId: 'org-a' },
      {},
      abort.signal,
    );
    const { events } = await readSse(first, { stopWhen: (e) => e.length > 0, abort });
    const { requestId } = connectedOf(events);
    await vi.waitFor(() => expect(gateway.openStreamCount()).toBe(0));
    const baseline = {
      streams: gateway.openStreamCount(),
      consumers: await testBus.consumerCount(bus, 'events'),
      subscriptions: natsSubscriptions(),
      follows: bus.followCount(),
    };

    const port = Number(new URL(url).port);
    const sockets: Socket[] = [];
    for (let i = 0; i < CLIENTS; i += BATCH) {
      sockets.push(...(await Promise.all(Array.from({ length: BATCH }, () => follow(port, requestId)))));
    }
    expect(gateway.openStreamCount()).toBe(baseline.streams + CLIENTS);
    expect(bus.followCount()).toBe(baseline.follows + CLIENTS);
    // Every follow listens through the bus's one subscription to the stream's live copies.
    expect(await testBus.consumerCount(bus, 'events')).toBe(baseline.consumers);
    expect(natsSubscriptions()).toBeLessThanOrEqual(baseline.subscriptions + 1);

    // Half leave with a TCP reset, half just close: neither says goodbye at the HTTP level.
    sockets.forEach((socket, index) => {
      if (index % 2 === 0) socket.resetAndDestroy();
      else socket.destroy();
    });

    await vi.waitFor(
      async () => {
        expect(gateway.openStreamCount()).toBe(baseline.streams);
        expect(bus.followCount()).toBe(baseline.follows);
        expect(await testBus.consumerCount(bus, 'events')).toBe(baseline.consumers);
      },
      { timeout: 15_000, interval: 200 },
    );
  }, 30_000);
});
