import { randomUUID } from 'node:crypto';
import type { AgentEvent, Message, QuerySubmitted } from '@munim/contracts';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus, MalformedMessageError, RequestFailedError } from '../src/index.ts';
import { natsUrl } from '../src/testing.ts';

const prefix = `t${randomUUID().slice(0, 8)}`;
let bus: Bus;
const scope = () => ({ requestId: randomUUID(), conversationId: 'c1', entityId: 'e1', orgId: 'o1' });

beforeAll(async () => {
  const nc = await connect({ servers: natsUrl() });
  bus = await Bus.create({ nc, prefix, service: 'gateway' });
  await bus.ensureStreams();
});

afterAll(async () => {
  for (const key of ['work', 'events'] as const)
    await bus.jsm.streams.delete(bus.streamName(key)).catch(() => {});
  await bus.nc.drain();
});

describe('bus', () => {
  it('refuses to publish a message that fails its schema', async () => {
    await expect(
      bus.publish('querySubmitted', scope(), { query: 42 } as unknown as QuerySubmitted),
    ).rejects.toBeInstanceOf(MalformedMessageError);
  });

  it('delivers a published message once to one of the consumers sharing a durable', async () => {
    const got: Message<QuerySubmitted>[] = [];
    const a = await bus.consume('querySubmitted', async (m) => void got.push(m), { durable: 'router' });
    const b = await bus.consume('querySubmitted', async (m) => void got.push(m), { durable: 'router' });
    const s = scope();
    const { message } = await bus.publish('querySubmitted', s, { query: 'show all invoices' });
    await expect.poll(() => got.length).toBe(1);
    expect(got[0]).toEqual(message);
    expect(got[0]?.requestId).toBe(s.requestId);
    // A second copy to the other consumer would come with the first, before a message sent after it.
    const { message: marker } = await bus.publish('querySubmitted', scope(), { query: 'marker' });
    await expect.poll(() => got.some((m) => m.id === marker.id)).toBe(true);
    await a.stop();
    await b.stop();
    expect(got.map((m) => m.id)).toEqual([message.id, marker.id]);
    // Acked (an ack is sent without waiting, so the server may take a moment), and never sent again.
    const info = () => bus.jsm.consumers.info(bus.streamName('work'), 'router');
    await expect.poll(async () => (await info()).num_ack_pending).toBe(0);
    expect((await info()).num_redelivered).toBe(0);
  });

  it('dedupes a republished message id', async () => {
    const s = scope();
    const first = await bus.publish('querySubmitted', s, { query: 'x' }, { msgID: `dup-${s.requestId}` });
    const second = await bus.publish('querySubmitted', s, { query: 'x' }, { msgID: `dup-${s.requestId}` });
    expect(first.duplicate).toBe(false);
    expect(second.duplicate).toBe(true);
  });

  it('terminates a malformed message with an error event for its request and keeps consuming', async () => {
    const got: string[] = [];
    const c = await bus.consume('querySubmitted', async (m) => void got.push(m.data.query), {
      durable: 'router',
    });
    const s = scope();
    const following = await bus.follow(s.requestId);
    await bus.js.publish(bus.subject('querySubmitted'), JSON.stringify({ ...s, data: { query: 1 } }));
    await bus.publish('querySubmitted', s, { query: 'after' });
    const events: AgentEvent[] = [];
    for await (const e of following) events.push(e.message.data);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'error', payload: { code: 'MALFORMED_MESSAGE' } });
    expect((events[0] as { payload: { message: string } }).payload.message).toContain('data.query');
    await expect.poll(() => got).toContain('after');
    await c.stop();
  });

  it('redelivers when the handler fails, then succeeds', async () => {
    let attempts = 0;
    const c = await bus.consume(
      'queryRouted',
      async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('transient');
      },
      { durable: 'agent' },
    );
    await bus.publish('queryRouted', scope(), {
      query: 'q',
      route: {
        path: 'llm',
        category: 'unified',
        confidence: 0,
        tier: 'cheap',
        intent: null,
        extractedEntities: {},
        strategy: 's',
        toolGroups: [],
        tools: [],
        pipeline: [],
        reasoning: '',
      },
    });
    await expect.poll(() => attempts, { timeout: 5000 }).toBe(2);
    await c.stop();
  });

  it('serves request/reply with typed errors', async () => {
    const sub = bus.serve('toolsList', async () => ({ tools: [] }));
    await expect(bus.request('toolsList', scope(), {}, { timeoutMs: 2000 })).resolves.toEqual({ tools: [] });
    await sub.stop();
    // Nobody answered: a request safe to repeat may be sent again (`unanswered`).
    await expect(bus.request('toolsList', scope(), {}, { timeoutMs: 500 })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      unanswered: true,
    });
    const bad = bus.serve('toolsList', async () => ({ tools: 'nope' }) as never);
    await expect(bus.request('toolsList', scope(), {}, { timeoutMs: 2000 })).rejects.toBeInstanceOf(
      RequestFailedError,
    );
    await bad.stop();
    // An answer that is an error is not one to send again.
    const refusing = bus.serve('toolsList', async () => {
      throw new Error('no');
    });
    await expect(bus.request('toolsList', scope(), {}, { timeoutMs: 2000 })).rejects.toMatchObject({
      code: 'INTERNAL',
      unanswered: false,
    });
    await refusing.stop();
    // A responder that never answers: the patched nats-core (patches/) still rejects on timeout.
    const silent = bus.nc.subscribe(bus.subject('toolsList'), { callback: () => undefined });
    await expect(bus.request('toolsList', scope(), {}, { timeoutMs: 200 })).rejects.toMatchObject({
      code: 'TIMEOUT',
      unanswered: true,
    });
    silent.unsubscribe();
  });

  it('stops serving only when the handlers running have answered', async () => {
    let release: () => void = () => undefined;
    let started = 0;
    const served = bus.serve('toolsList', async () => {
      started += 1;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { tools: [] };
    });
    await bus.flush();
    const answer = bus.request('toolsList', scope(), {}, { timeoutMs: 5000 });
    await expect.poll(() => started).toBe(1);
    let stopped = false;
    const stopping = served.stop().then(() => {
      stopped = true;
    });
    // Draining: the handler still runs, so stop() has not resolved; a new request finds no one.
    await expect(bus.request('toolsList', scope(), {}, { timeoutMs: 500 })).rejects.toMatchObject({
      unanswered: true,
    });
    expect(stopped).toBe(false);
    release();
    await expect(answer).resolves.toEqual({ tools: [] });
    await stopping;
    expect(stopped).toBe(true);
    expect(started).toBe(1);
  });

  it('answers early with ctx.reply: the event published just before it is in the stream first', async () => {
    const second = await Bus.create({
      nc: await connect({ servers: natsUrl() }),
      prefix,
      service: 'mcp-executor',
    });
    const acks: Promise<unknown>[] = [];
    const sub = second.serve('toolsList', async (message, ctx) => {
      // Not awaited: the reply must not wait for the stream's ack, yet must land after the event.
      acks.push(second.emit(message, { type: 'response_chunk', payload: { text: 'from the server' } }));
      ctx.reply({ tools: [] });
      return { tools: 'ignored once replied' } as never;
    });
    // The server has the subscription before the other connection's first request.
    await second.flush();
    try {
      for (let i = 0; i < 20; i += 1) {
        const s = scope();
        await expect(bus.request('toolsList', s, {}, { timeoutMs: 2000 })).resolves.toEqual({ tools: [] });
        await bus.emit(s, { type: 'response_chunk', payload: { text: 'from the caller' } });
        await bus.emit(s, { type: 'error', payload: { code: 'INTERNAL', message: 'end' } });
        const texts: string[] = [];
        const following = await bus.follow(s.requestId);
        for await (const e of following) {
          if (e.message.data.type === 'response_chunk') texts.push(e.message.data.payload.text);
        }
        await following.stop();
        expect(texts).toEqual(['from the server', 'from the caller']);
      }
      await Promise.all(acks);
    } finally {
      await sub.stop();
      await second.nc.drain();
    }
  });

  it('follows a request from the start or after a sequence, ending at complete', async () => {
    const s = scope();
    const seqs: number[] = [];
    seqs.push(
      (await bus.emit(s, { type: 'connected', payload: { requestId: s.requestId, conversationId: 'c1' } }))
        .seq,
    );
    seqs.push((await bus.emit(s, { type: 'response_chunk', payload: { text: 'hi' } })).seq);
    const live = await bus.follow(s.requestId, { afterSeq: seqs[0] });
    const got: number[] = [];
    const done = (async () => {
      for await (const e of live) got.push(e.seq);
    })();
    seqs.push((await bus.emit(s, { type: 'error', payload: { code: 'INTERNAL', message: 'x' } })).seq);
    await done;
    expect(got).toEqual(seqs.slice(1));
    expect((await bus.lastEvent(s.requestId))?.seq).toBe(seqs[2]);
    expect(await bus.lastEvent('nope')).toBeNull();
  });
});

describe('observers of a stream', () => {
  it('can start at new messages and leave malformed ones unreported', async () => {
    const s = scope();
    await bus.emit(s, { type: 'response_chunk', payload: { text: 'before' } });
    const seen: string[] = [];
    const c = await bus.consume('requestEvents', async (m) => void seen.push(m.data.type), {
      durable: `observer-${randomUUID().slice(0, 8)}`,
      startAt: 'new',
      reportMalformed: false,
    });
    await bus.js.publish(
      bus.subject('requestEvents', { requestId: s.requestId }),
      JSON.stringify({ ...s, data: 1 }),
    );
    await bus.emit(s, { type: 'response_chunk', payload: { text: 'after' } });
    await expect.poll(() => seen).toEqual(['response_chunk']);
    const stored = await bus.lastEvent(s.requestId);
    expect(stored?.message.data).toEqual({ type: 'response_chunk', payload: { text: 'after' } });
    await c.stop();
  });
});
