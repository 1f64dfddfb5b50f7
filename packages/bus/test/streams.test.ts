import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { afterAll, describe, expect, it } from 'vitest';
import { Bus, type BusLogger, DEFAULT_EVENTS_MAX_AGE_MS, type StreamSettings } from '../src/index.ts';
import { natsUrl } from '../src/testing.ts';

const NATS_URL = natsUrl();
const buses: Bus[] = [];
const scope = () => ({ requestId: randomUUID(), conversationId: 'c1', entityId: 'e1', orgId: 'o1' });
const ms = (n: number) => n * 1_000_000;

async function busOn(prefix: string, streams: StreamSettings, log?: BusLogger): Promise<Bus> {
  const nc = await connect({ servers: NATS_URL, noAsyncTraces: true });
  const bus = await Bus.create({ nc, prefix, service: 'gateway', streams, ...(log ? { log } : {}) });
  buses.push(bus);
  return bus;
}

afterAll(async () => {
  const prefixes = new Set(buses.map((b) => b.prefix));
  const first = buses[0];
  if (first)
    for (const prefix of prefixes)
      for (const name of ['WORK', 'EVENTS'])
        await first.jsm.streams.delete(`${prefix.toUpperCase()}_${name}`).catch(() => {});
  await Promise.all(buses.map((b) => b.nc.drain().catch(() => {})));
});

describe('ensureStreams', () => {
  it('keeps today’s limits by default: a week of events, work until it is taken', async () => {
    const bus = await busOn(`t${randomUUID().slice(0, 8)}`, {});
    await bus.ensureStreams();
    const events = (await bus.jsm.streams.info(bus.streamName('events'))).config;
    const work = (await bus.jsm.streams.info(bus.streamName('work'))).config;
    expect(events).toMatchObject({
      num_replicas: 1,
      storage: 'file',
      max_age: ms(DEFAULT_EVENTS_MAX_AGE_MS),
    });
    expect(work).toMatchObject({ num_replicas: 1, storage: 'file', max_age: 0, retention: 'workqueue' });
    expect(events.max_bytes).toBe(-1);
    expect(work.max_bytes).toBe(-1);
  });

  it('applies the storage and limits it is given, a full WORK refusing new work', async () => {
    const bus = await busOn(`t${randomUUID().slice(0, 8)}`, {
      storage: 'memory',
      maxAgeMs: 3_600_000,
      maxBytes: 10_000_000,
    });
    await bus.ensureStreams();
    for (const key of ['work', 'events'] as const) {
      const config = (await bus.jsm.streams.info(bus.streamName(key))).config;
      expect(config, key).toMatchObject({ storage: 'memory', max_age: ms(3_600_000), max_bytes: 10_000_000 });
      expect(config.discard, key).toBe(key === 'work' ? 'new' : 'old');
    }
  });

  it('updates a stream in place, its messages kept, and only reports a storage it cannot change', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const first = await busOn(prefix, {});
    await first.ensureStreams();
    await first.emit(scope(), { type: 'response_chunk', payload: { text: 'kept' } });
    const before = await first.jsm.streams.info(first.streamName('events'));

    const warnings: string[] = [];
    const log: BusLogger = { info: () => {}, error: () => {}, warn: (_o, msg) => void warnings.push(msg) };
    const second = await busOn(prefix, { storage: 'memory', maxAgeMs: 60_000, maxBytes: 5_000_000 }, log);
    await second.ensureStreams();
    const after = await second.jsm.streams.info(second.streamName('events'));
    expect(after.created).toBe(before.created);
    expect(after.state.messages).toBe(1);
    expect(after.config).toMatchObject({ storage: 'file', max_age: ms(60_000), max_bytes: 5_000_000 });
    expect(warnings.filter((w) => /keeps its storage/.test(w))).toHaveLength(2);
  });

  it('gives durable consumers the streams’ replicas', async () => {
    const bus = await busOn(`t${randomUUID().slice(0, 8)}`, { replicas: 1 });
    await bus.ensureStreams();
    const stream = await bus.ensureConsumer('requestEvents', { durable: 'logger' });
    expect((await bus.jsm.consumers.info(stream, 'logger')).config.num_replicas).toBe(1);
  });
});
