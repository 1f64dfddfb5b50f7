/**
 * The bus when a NATS server goes away (test/e2e/cluster.test.ts runs the whole
 * system through it). Each case failed before its fix:
 * - a reply written into a connection that then broke was lost, and the caller waited out its
 *   whole timeout (70 s for a tool call); so was a request, or a reply sent while the caller was
 *   reconnecting;
 * - a publish while its stream elected a new leader failed ("no responders");
 * - a durable consumer whose leader died stalled for two missed heartbeats of a 30 s pull;
 * - a follow whose ordered consumer lived on the dead server never heard of the request again (a
 *   follow now listens to the stream's republished messages: it must hear the next leader's);
 * - instances starting together while a stream's replicas changed failed on unanswered calls.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentEvent, RequestScope } from '@munim/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus } from '../src/connect.ts';
import type { Bus, FollowedEvent } from '../src/index.ts';
import { natsUrl } from '../src/testing.ts';
import { type NatsCluster, startNatsCluster } from './nats-cluster.ts';
import { startProxy } from './proxy.ts';

const NATS_URL = natsUrl();
const scope = (): RequestScope => ({
  requestId: randomUUID(),
  conversationId: 'c1',
  entityId: 'e1',
  orgId: 'o1',
});
const chunk = (text: string): AgentEvent => ({ type: 'response_chunk', payload: { text } });
const buses: Bus[] = [];
const bus = async (opts: Parameters<typeof connectBus>[0]) => {
  const b = await connectBus(opts);
  buses.push(b);
  return b;
};

afterAll(async () => {
  await Promise.all(buses.map((b) => b.nc.close().catch(() => {})));
});

describe('a request and its reply across a broken connection', () => {
  const prefix = `t${randomUUID().slice(0, 8)}`;

  it('sends a reply again when the connection it was written into breaks', async () => {
    const proxy = await startProxy(NATS_URL);
    try {
      const executor = await bus({ servers: proxy.url, prefix, service: 'mcp-executor' });
      const agent = await bus({ servers: NATS_URL, prefix, service: 'agent' });
      executor.serve('toolsList', async () => {
        // The reply is written, never arrives, and then the connection breaks.
        proxy.swallow();
        setTimeout(() => proxy.cut(), 100);
        return { tools: [] };
      });
      await executor.flush();
      const started = Date.now();
      await expect(agent.request('toolsList', scope(), {}, { timeoutMs: 15_000 })).resolves.toEqual({
        tools: [],
      });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      proxy.cut();
      await proxy.close();
    }
  });

  it('sends a request again when the connection it was written into breaks', async () => {
    const proxy = await startProxy(NATS_URL);
    try {
      const executor = await bus({ servers: NATS_URL, prefix: `${prefix}b`, service: 'mcp-executor' });
      const agent = await bus({ servers: proxy.url, prefix: `${prefix}b`, service: 'agent' });
      let calls = 0;
      executor.serve('toolsList', async () => {
        calls += 1;
        return { tools: [] };
      });
      await executor.flush();
      await agent.flush();
      proxy.swallow();
      const started = Date.now();
      const answer = agent.request('toolsList', scope(), {}, { timeoutMs: 15_000 });
      await sleep(100);
      proxy.cut();
      await expect(answer).resolves.toEqual({ tools: [] });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(calls).toBe(1);
    } finally {
      proxy.cut();
      await proxy.close();
    }
  });
});

describe('a three-node JetStream cluster', () => {
  let cluster: NatsCluster;
  beforeAll(async () => {
    cluster = await startNatsCluster();
  }, 30_000);
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.nc.close().catch(() => {})));
    await cluster?.stop();
  });

  it('gives a single-copy stream and its durable consumer three copies in place, from instances starting together', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const one = await bus({ servers: cluster.url, prefix, service: 'agent', streams: { replicas: 1 } });
    await one.ensureStreams();
    await one.ensureConsumer('querySubmitted', { durable: 'agent' });
    await one.publish('querySubmitted', scope(), { query: 'kept' });
    const work = one.streamName('work');
    const before = await one.jsm.streams.info(work);
    expect(before.config.num_replicas).toBe(1);

    // Every service runs this at start; while a stream changes its replicas its leader is being
    // elected and calls go unanswered, so each instance waits that out instead of failing.
    const instances = await Promise.all(
      [1, 2, 3, 4].map(() =>
        bus({ servers: cluster.url, prefix, service: 'agent', streams: { replicas: 3 } }),
      ),
    );
    await Promise.all(
      instances.map(async (b) => {
        await b.ensureStreams();
        await b.ensureConsumer('querySubmitted', { durable: 'agent' });
      }),
    );
    const after = await one.jsm.streams.info(work);
    expect(after.config.num_replicas).toBe(3);
    expect(after.created).toBe(before.created);
    expect(after.state.messages).toBe(1);
    const copies = async () => {
      const stream = (await one.jsm.streams.info(work)).cluster?.replicas ?? [];
      const consumer = (await one.jsm.consumers.info(work, 'agent')).cluster?.replicas ?? [];
      return [stream.filter((r) => r.current).length, consumer.length];
    };
    // The copies are made after the change is accepted: on a loaded machine that takes a while.
    expect((await one.jsm.consumers.info(work, 'agent')).config.num_replicas).toBe(3);
    // nats-server 2.9 places a scaled durable's copies well after its stream's under load (CI runs
    // saw none after 60 s, and on a slower machine not all after 120 s): what is checked is that
    // they come, not how soon.
    await expect.poll(copies, { timeout: 200_000, interval: 500 }).toEqual([2, 2]);
  }, 280_000);

  it('publishes through the election, resumes its durable consumer and its follow, losing and repeating nothing', async () => {
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const setup = await bus({ servers: cluster.url, prefix, service: 'gateway', streams: { replicas: 3 } });
    await setup.ensureStreams();
    const events = setup.streamName('events');
    const work = setup.streamName('work');
    // The victim leads the events stream; everyone else talks to another server, and stays there.
    const victimName = (await setup.jsm.streams.info(events)).cluster?.leader;
    const victim = cluster.nodes.findIndex((n) => n.name === victimName);
    const safe = cluster.nodes.find((_, i) => i !== victim)?.url as string;
    const agent = await bus({ servers: safe, prefix, service: 'agent', streams: { replicas: 3 } });
    const gateway = await bus({ servers: safe, prefix, service: 'gateway', streams: { replicas: 3 } });

    // The work stream's durable consumer is led by the victim too.
    const handled: string[] = [];
    const consumer = await agent.consume('querySubmitted', async (m) => void handled.push(m.data.query), {
      durable: 'router',
    });
    await agent.ensureConsumer('querySubmitted', { durable: 'router' });
    for (let i = 0; i < 20; i += 1) {
      const leader = (await setup.jsm.consumers.info(work, 'router')).cluster?.leader;
      if (leader === victimName) break;
      await setup.nc
        .request(`$JS.API.CONSUMER.LEADER.STEPDOWN.${work}.router`, '', { timeout: 2_000 })
        .catch(() => {});
      await sleep(500);
    }
    expect((await setup.jsm.consumers.info(work, 'router')).cluster?.leader).toBe(victimName);
    await agent.publish('querySubmitted', scope(), { query: 'before' });
    await expect.poll(() => handled).toEqual(['before']);

    // A follow on another server than the stream's leader: it hears the leader's republished
    // copies, and must hear the next leader's after the election.
    const s = scope();
    const following = await gateway.follow(s.requestId, { fresh: true });
    const got: FollowedEvent[] = [];
    const reading = (async () => {
      for await (const e of following) got.push(e);
    })();
    await agent.emit(s, chunk('one'));
    await expect.poll(() => got.length).toBe(1);

    await cluster.kill(victim);
    // Published at once, while the events stream has no leader: retried until one is elected.
    await agent.emit(s, chunk('two'));
    await agent.emit(s, chunk('three'));
    await agent.emit(s, { type: 'error', payload: { code: 'INTERNAL', message: 'the end' } });
    await agent.publish('querySubmitted', scope(), { query: 'after' });

    await expect.poll(() => handled, { timeout: 60_000 }).toEqual(['before', 'after']);
    // The follow ends by itself, on the error event: a follow that lost its consumer for good never would.
    await expect(Promise.race([reading.then(() => 'ended'), sleep(60_000)])).resolves.toBe('ended');
    expect(
      got.map((e) =>
        e.message.data.type === 'error' ? 'end' : (e.message.data.payload as { text: string }).text,
      ),
    ).toEqual(['one', 'two', 'three', 'end']);
    const seqs = got.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    // Each event is in the stream once: a retried publish that had landed was a duplicate.
    const info = await setup.jsm.streams.info(events);
    expect(info.state.messages).toBe(4);
    await following.stop();
    await consumer.stop();
  }, 150_000);
  it('sends a request still waiting again when a server leaves the cluster (it may have held the request)', async () => {
    // The test before killed a server: all three are needed here.
    for (const [i, node] of cluster.nodes.entries()) if (!node.running()) await cluster.restart(i);
    await cluster.waitForMetaLeader();
    const prefix = `t${randomUUID().slice(0, 8)}`;
    const [a, b] = cluster.nodes;
    const responder = await bus({ servers: a!.url, prefix, service: 'mcp-executor' });
    const requester = await bus({ servers: b!.url, prefix, service: 'agent' });
    let calls = 0;
    // The first copy is lost on its way (as with a server that dies holding it): never answered.
    responder.serve('toolsList', async () => {
      calls += 1;
      if (calls === 1) return new Promise<never>(() => {});
      return { tools: [] };
    });
    // The requester's server must know the responder first: interest crosses the cluster's routes in
    // the order it was made, so once a subscription made after the responder's is heard there, so is it.
    const probe = `${prefix}.probe`;
    responder.nc.subscribe(probe, {
      callback: (_err, msg) => {
        msg.respond();
      },
    });
    await responder.flush();
    await expect
      .poll(
        () =>
          requester.nc.request(probe, undefined, { timeout: 500 }).then(
            () => true,
            () => false,
          ),
        { timeout: 20_000, interval: 100 },
      )
      .toBe(true);
    const asked = requester.request('toolsList', scope(), {}, { timeoutMs: 30_000 });
    await expect.poll(() => calls).toBe(1);
    // Another server leaves: the requester's server tells it, and what it still waits for goes again.
    const third = cluster.nodes.findIndex((n) => n !== a && n !== b);
    await cluster.kill(third);
    try {
      await expect(asked).resolves.toEqual({ tools: [] });
      expect(calls).toBeGreaterThanOrEqual(2);
    } finally {
      await cluster.restart(third);
    }
  }, 60_000);
});
