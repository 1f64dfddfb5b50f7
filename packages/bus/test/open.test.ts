// A request is opened by one `connected` event, whoever opens it (the gateway after submitting, the
// router before its first event, a router redelivery minutes later) and however many times.
import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus } from '../src/index.ts';
import { natsUrl } from '../src/testing.ts';

const prefix = `t${randomUUID().slice(0, 8)}`;
let gateway: Bus;
let router: Bus;
const scope = () => ({ requestId: randomUUID(), conversationId: 'c1', entityId: 'e1', orgId: 'o1' });

beforeAll(async () => {
  gateway = await Bus.create({ nc: await connect({ servers: natsUrl() }), prefix, service: 'gateway' });
  await gateway.ensureStreams();
  router = await Bus.create({ nc: await connect({ servers: natsUrl() }), prefix, service: 'router' });
});

afterAll(async () => {
  for (const key of ['work', 'events'] as const)
    await gateway.jsm.streams.delete(gateway.streamName(key)).catch(() => {});
  await Promise.all([gateway.nc.drain(), router.nc.drain()]);
});

/** The types of the events stored for a request, in order. */
async function stored(requestId: string): Promise<string[]> {
  const following = await gateway.follow(requestId);
  const last = await gateway.lastEvent(requestId);
  const types: string[] = [];
  if (last) {
    for await (const e of following) {
      types.push(e.message.data.type);
      if (e.seq >= last.seq) break;
    }
  }
  await following.stop();
  return types;
}

describe('opening a request', () => {
  it('stores one connected event for any number of opens, at once or one after another', async () => {
    for (const opens of [1, 2, 5]) {
      const s = scope();
      const results = await Promise.all(
        Array.from({ length: opens }, (_, i) => (i % 2 === 0 ? gateway : router).open(s)),
      );
      expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
      expect((await router.open(s)).duplicate).toBe(true);
      expect(await stored(s.requestId)).toEqual(['connected']);
    }
  });

  it('does not open again a request whose opening the stream no longer remembers by id', async () => {
    // Past the stream's duplicate window the opening's message id is forgotten: played here by a
    // `connected` stored under another id, then the request's events.
    const s = scope();
    await gateway.emit(
      s,
      { type: 'connected', payload: { requestId: s.requestId, conversationId: s.conversationId } },
      undefined,
      `forgotten-${s.requestId}`,
    );
    await router.emit(s, { type: 'understanding_started', payload: { query: 'show bills' } });
    expect(await router.open(s)).toEqual({ duplicate: true });
    expect(await stored(s.requestId)).toEqual(['connected', 'understanding_started']);
  });
});
