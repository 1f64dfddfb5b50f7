import { randomUUID } from 'node:crypto';
import { type AgentEvent, EVENTS_PER_MESSAGE, streamSeqOf } from '@munim/contracts';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus, eventsOf, type FollowedEvent } from '../src/index.ts';
import { natsUrl } from '../src/testing.ts';

const prefix = `t${randomUUID().slice(0, 8)}`;
let bus: Bus;
const scope = () => ({ requestId: randomUUID(), conversationId: 'c1', entityId: 'e1', orgId: 'o1' });

beforeAll(async () => {
  const nc = await connect({ servers: natsUrl() });
  bus = await Bus.create({ nc, prefix, service: 'router' });
  await bus.ensureStreams();
});

afterAll(async () => {
  for (const key of ['work', 'events'] as const)
    await bus.jsm.streams.delete(bus.streamName(key)).catch(() => {});
  await bus.nc.drain();
});

const steps: AgentEvent[] = [
  { type: 'route_started', payload: { intentCount: 3, toolCount: 2 } },
  { type: 'intent_detecting', payload: { intentCount: 3 } },
  { type: 'entities_extracted', payload: { entities: { customerName: 'Sharma Traders' } } },
  {
    type: 'tools_filtered',
    payload: { strategy: 'intent', groups: [], tools: ['get_all_invoices'], count: 1 },
  },
];

async function collect(following: AsyncIterable<FollowedEvent>): Promise<FollowedEvent[]> {
  const out: FollowedEvent[] = [];
  for await (const e of following) out.push(e);
  return out;
}

describe('events sent together', () => {
  it('are one message on the stream, and each its own event with its own increasing sequence', async () => {
    const s = scope();
    const before = (await bus.jsm.streams.info(bus.streamName('events'))).state.messages;
    const first = await bus.emit(s, {
      type: 'understanding_started',
      payload: { query: 'show all invoices' },
    });
    const batch = await bus.emitAll(s, steps, undefined, `${s.requestId}:router:routed`);
    const end = await bus.emit(s, { type: 'error', payload: { code: 'INTERNAL', message: 'x' } });
    expect((await bus.jsm.streams.info(bus.streamName('events'))).state.messages - before).toBe(3);

    const events = await collect(await bus.follow(s.requestId));
    expect(events.map((e) => e.message.data.type)).toEqual([
      'understanding_started',
      ...steps.map((e) => e.type),
      'error',
    ]);
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs[0]).toBe(first.seq);
    expect(seqs[4]).toBe(batch.seq);
    expect(seqs.at(-1)).toBe(end.seq);
    // The batch's events share their message's stream sequence.
    expect(new Set(seqs.slice(1, 5).map(streamSeqOf)).size).toBe(1);
    expect(batch.messages.map((m) => m.id)).toEqual(events.slice(1, 5).map((e) => e.message.id));
    expect((await bus.lastEvent(s.requestId))?.seq).toBe(end.seq);
  });

  it('resume after an event in the middle of a batch with the rest of it', async () => {
    const s = scope();
    await bus.emitAll(s, steps);
    await bus.emitAll(s, [
      { type: 'response_chunk', payload: { text: 'Three invoices are overdue.' } },
      { type: 'error', payload: { code: 'INTERNAL', message: 'x' } },
    ]);
    const all = await collect(await bus.follow(s.requestId));
    expect(all).toHaveLength(6);
    const resumed = await collect(await bus.follow(s.requestId, { afterSeq: all[1]!.seq }));
    expect(resumed.map((e) => e.seq)).toEqual(all.slice(2).map((e) => e.seq));
    expect(resumed.map((e) => e.message.data.type)).toEqual(all.slice(2).map((e) => e.message.data.type));
    // After the batch's last event: the next message only.
    const next = await collect(await bus.follow(s.requestId, { afterSeq: all[3]!.seq }));
    expect(next.map((e) => e.message.data.type)).toEqual(['response_chunk', 'error']);
  });

  it('go out as several messages when there are more than one message may carry, in order', async () => {
    const s = scope();
    const chunks: AgentEvent[] = Array.from({ length: EVENTS_PER_MESSAGE + 5 }, (_, i) => ({
      type: 'response_chunk',
      payload: { text: `part ${i}` },
    }));
    await bus.emitAll(s, [...chunks, { type: 'error', payload: { code: 'INTERNAL', message: 'x' } }]);
    const events = await collect(await bus.follow(s.requestId));
    expect(events.map((e) => (e.message.data.payload as { text?: string }).text ?? 'end')).toEqual([
      ...chunks.map((_, i) => `part ${i}`),
      'end',
    ]);
    expect(new Set(events.map((e) => streamSeqOf(e.seq))).size).toBe(2);
  });

  it('a consumer handles each event of a batch, in order, with its sequence', async () => {
    const s = scope();
    const seen: { type: string; seq: number }[] = [];
    const c = await bus.consume(
      'requestEvents',
      async (m, ctx) => void seen.push({ type: m.data.type, seq: ctx.seq }),
      {
        durable: `observer-${randomUUID().slice(0, 8)}`,
        startAt: 'new',
        reportMalformed: false,
      },
    );
    try {
      const { seq } = await bus.emitAll(s, steps);
      await expect.poll(() => seen.length).toBe(steps.length);
      expect(seen.map((e) => e.type)).toEqual(steps.map((e) => e.type));
      expect(seen.at(-1)?.seq).toBe(seq);
    } finally {
      await c.stop();
    }
  });
});

describe('a forged batch', () => {
  const envelope = (s: ReturnType<typeof scope>, data: unknown) => ({
    id: randomUUID(),
    ...s,
    service: 'agent',
    ts: new Date().toISOString(),
    data,
  });
  const chunk = { type: 'response_chunk', payload: { text: 'hi' } };

  it('is refused whole: events of two requests, an empty one, an oversized one, one bad event', () => {
    const a = scope();
    const b = scope();
    const mixed = eventsOf(7, [envelope(a, chunk), envelope(b, chunk)]);
    expect(mixed).toMatchObject({ ok: false, detail: 'event 2 of 2 is of another request' });
    expect(eventsOf(7, [])).toMatchObject({ ok: false, detail: expect.stringContaining('this one 0') });
    const many = Array.from({ length: EVENTS_PER_MESSAGE + 1 }, () => envelope(a, chunk));
    expect(eventsOf(7, many)).toMatchObject({ ok: false, detail: expect.stringContaining('this one 101') });
    const bad = eventsOf(7, [
      envelope(a, chunk),
      envelope(a, { type: 'complete', payload: { response: 42 } }),
    ]);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.detail).toMatch(/^event 2 of 2: /);
    expect(eventsOf(7, [envelope(a, chunk)])).toMatchObject({ ok: true, events: [{ seq: 700 }] });
  });

  it('is skipped by a follower, which goes on to the next message', async () => {
    const s = scope();
    const other = scope();
    await bus.js.publish(
      bus.subject('requestEvents', { requestId: s.requestId }),
      JSON.stringify([
        envelope(s, chunk),
        envelope(other, { type: 'error', payload: { code: 'INTERNAL', message: 'forged' } }),
      ]),
    );
    await bus.emit(s, { type: 'error', payload: { code: 'INTERNAL', message: 'real' } });
    const events = await collect(await bus.follow(s.requestId));
    expect(events.map((e) => e.message.data)).toEqual([
      { type: 'error', payload: { code: 'INTERNAL', message: 'real' } },
    ]);
  });
});
