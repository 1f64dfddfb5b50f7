/**
 * Following requests through the bus's one subscription to what the events stream republishes
 * (live.ts), on the real NATS. Live copies are core NATS: they can be lost. These cases lose them
 * on purpose (the stream stops republishing for a while, or the follower's connection breaks) and
 * check that every event still reaches the follow once, in order, from the stream itself.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentEvent } from '@munim/contracts';
import type { NatsConnection, SubscriptionOptions } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus } from '../src/connect.ts';
import { Bus, type BusLogger, type FollowedEvent, type Following } from '../src/index.ts';
import { natsUrl, newScope, TestNats } from '../src/testing.ts';
import { startProxy } from './proxy.ts';

const nats = new TestNats();
let publisher: Bus;
let follower: Bus;
const lines: { msg: string; obj: Record<string, unknown> }[] = [];
const log: BusLogger = {
  info: (obj, msg) => void lines.push({ msg, obj: obj as Record<string, unknown> }),
  warn: (obj, msg) => void lines.push({ msg, obj: obj as Record<string, unknown> }),
  error: (obj, msg) => void lines.push({ msg, obj: obj as Record<string, unknown> }),
};
const extra: Bus[] = [];

const scope = newScope;
const chunk = (text: string): AgentEvent => ({ type: 'response_chunk', payload: { text } });
const end: AgentEvent = { type: 'error', payload: { code: 'INTERNAL', message: 'the end' } };
const textOf = (e: FollowedEvent) =>
  e.message.data.type === 'response_chunk' ? (e.message.data.payload as { text: string }).text : 'END';

/** A new request, followed, whose first event the follow has read. */
async function followedPastOne() {
  const s = scope();
  const reading = collect(await follower.follow(s.requestId, { fresh: true }));
  await publisher.emit(s, chunk('one'));
  await expect.poll(() => reading.got.length).toBe(1);
  return { s, ...reading };
}

/** Reads a follow to its end in the background. */
function collect(following: Following) {
  const got: FollowedEvent[] = [];
  const done = (async () => {
    for await (const e of following) got.push(e);
  })();
  return { got, done };
}

/** While on, the follower's connection drops every message it receives, as a broken route would. */
const losing = { on: false, dropped: 0 };

/** Loses the live copies of what `publish` stores (counting them, so none slips past late). */
async function losingWhile(copies: number, publish: () => Promise<unknown>): Promise<void> {
  losing.dropped = 0;
  losing.on = true;
  try {
    await publish();
    await expect.poll(() => losing.dropped).toBe(copies);
  } finally {
    losing.on = false;
  }
}

/** A connection whose subscriptions hand nothing on while `losing.on` (fault injection). */
function lossy(nc: NatsConnection): NatsConnection {
  return new Proxy(nc, {
    get(target, prop) {
      if (prop === 'subscribe')
        return (subject: string, opts: SubscriptionOptions = {}) =>
          target.subscribe(subject, {
            ...opts,
            callback: (err, msg) => {
              if (err || !losing.on) opts.callback?.(err, msg);
              else losing.dropped += 1;
            },
          });
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

beforeAll(async () => {
  publisher = await nats.bus('agent');
  const nc = await connect({ servers: natsUrl() });
  follower = await Bus.create({ nc: lossy(nc), prefix: nats.prefix, service: 'gateway', log });
  extra.push(follower);
});

afterAll(async () => {
  await Promise.all(extra.map((b) => b.nc.close().catch(() => {})));
  await nats.cleanup();
});

describe('following requests through one live subscription', () => {
  it('serves many follows at once from one subscription, each its own events once and in order, making no consumer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 1, maxLength: 6 }), {
          minLength: 1,
          maxLength: 12,
        }),
        async (requests) => {
          const scopes = requests.map(() => scope());
          const follows = await Promise.all(scopes.map((s) => follower.follow(s.requestId, { fresh: true })));
          const reading = follows.map(collect);
          // Interleaved across requests, as a busy system publishes them.
          const longest = Math.max(...requests.map((r) => r.length));
          for (let i = 0; i < longest; i += 1)
            await Promise.all(
              requests.map((texts, r) => {
                const text = texts[i];
                return text === undefined ? undefined : publisher.emit(scopes[r]!, chunk(text));
              }),
            );
          await Promise.all(scopes.map((s) => publisher.emit(s, end)));
          await Promise.all(reading.map((r) => r.done));
          requests.forEach((texts, r) => {
            expect(reading[r]!.got.map(textOf)).toEqual([...texts, 'END']);
          });
          await Promise.all(follows.map((f) => f.stop()));
        },
      ),
      { numRuns: 8 },
    );
    const consumers = [];
    for await (const c of follower.jsm.consumers.list(follower.streamName('events'))) consumers.push(c);
    expect(consumers).toEqual([]);
  }, 60_000);

  it('reads from the stream the events whose live copies were lost, before the next one of its request', async () => {
    const { s, got, done } = await followedPastOne();
    await losingWhile(2, async () => {
      await publisher.emit(s, chunk('two'));
      await publisher.emit(s, chunk('three'));
    });
    await publisher.emit(s, chunk('four'));
    await publisher.emit(s, end);
    await done;
    expect(got.map(textOf)).toEqual(['one', 'two', 'three', 'four', 'END']);
    expect(got.map((e) => e.seq)).toEqual(got.map((e) => e.seq).sort((a, b) => a - b));
  });

  it('reads a lost end as soon as any later event shows the stream skipped ahead', async () => {
    const { s, got, done } = await followedPastOne();
    await losingWhile(2, async () => {
      await publisher.emit(s, chunk('two'));
      await publisher.emit(s, end);
    });
    lines.length = 0;
    // Another request's event: its sequence is past the ones this follower never heard.
    await publisher.emit(scope(), chunk('elsewhere'));
    await done;
    expect(got.map(textOf)).toEqual(['one', 'two', 'END']);
    expect(lines.some((l) => l.obj.requestId === s.requestId && l.obj.why === 'gap')).toBe(true);
  });

  it('reads a lost end with nothing after it once the follow has been quiet a while', async () => {
    const { s, got, done } = await followedPastOne();
    await losingWhile(1, () => publisher.emit(s, end));
    await expect(Promise.race([done.then(() => 'ended'), sleep(15_000).then(() => 'waiting')])).resolves.toBe(
      'ended',
    );
    expect(got.map(textOf)).toEqual(['one', 'END']);
  }, 20_000);

  it('catches up what was stored while its connection was down', async () => {
    const proxy = await startProxy(natsUrl());
    const behind = await connectBus({ servers: proxy.url, prefix: nats.prefix, service: 'gateway' });
    try {
      const s = scope();
      const { got, done } = collect(await behind.follow(s.requestId, { fresh: true }));
      await publisher.emit(s, chunk('one'));
      await expect.poll(() => got.length).toBe(1);
      proxy.cut();
      await publisher.emit(s, chunk('two'));
      await publisher.emit(s, end);
      await done;
      expect(got.map(textOf)).toEqual(['one', 'two', 'END']);
    } finally {
      // The proxy closes once the connections through it have.
      await behind.nc.close();
      await proxy.close();
    }
  }, 30_000);

  it('replays a finished request from the stream, and resumes after a Last-Event-ID without repeating one', async () => {
    const s = scope();
    await publisher.emit(s, chunk('one'));
    await publisher.emitAll(s, [chunk('two'), chunk('three')]);
    await publisher.emit(s, end);
    const all = collect(await follower.follow(s.requestId));
    await all.done;
    expect(all.got.map(textOf)).toEqual(['one', 'two', 'three', 'END']);
    for (const [i, from] of all.got.slice(0, -1).entries()) {
      const resumed = collect(await follower.follow(s.requestId, { afterSeq: from.seq }));
      await resumed.done;
      expect(resumed.got.map(textOf)).toEqual(all.got.slice(i + 1).map(textOf));
    }
  });

  it('follows on a stream made before republishing existed: given it in place, or read from the stream, warned', async () => {
    const other = new TestNats();
    const seen: string[] = [];
    const warnLog: BusLogger = { ...log, warn: (_obj, msg) => void seen.push(msg) };
    const nc = await connect({ servers: natsUrl() });
    const old = await Bus.create({ nc, prefix: other.prefix, service: 'agent', log: warnLog });
    extra.push(old);
    const name = old.streamName('events');
    await old.jsm.streams.add({ name, subjects: [`${other.prefix}.events.>`] });
    await old.emit(scope(), chunk('kept'));
    await old.ensureStreams();
    const info = await old.jsm.streams.info(name);
    expect(info.state.messages).toBe(1);
    if (info.config.republish) {
      expect(info.config.republish).toMatchObject({
        src: `${other.prefix}.events.>`,
        dest: `${other.prefix}.live.events.>`,
      });
    } else {
      // nats-server before 2.9.12 cannot add it to an existing stream (this machine's 2.9.10).
      expect(seen.join('\n')).toMatch(/does not republish what it stores .*upgrade it to 2\.10/);
    }
    // Either way a follow gets every event once, in order.
    const s = scope();
    const { got, done } = collect(await old.follow(s.requestId, { fresh: true }));
    for (const text of ['a', 'b', 'c']) await old.emit(s, chunk(text));
    await old.emit(s, end);
    await done;
    expect(got.map(textOf)).toEqual(['a', 'b', 'c', 'END']);
    for (const key of ['work', 'events'] as const)
      await old.jsm.streams.delete(old.streamName(key)).catch(() => {});
  });
});
