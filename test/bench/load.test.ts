/**
 * The pieces of `npm run bench -- load` (and `-- scale`): the load generator, in its own process,
 * against the anchor server, in its own, counts answers, bytes and events right, and spreads its
 * clients over several servers; the CPU meter finds processes and their listening ports. Nothing
 * here is timed: speed is what the benchmark measures.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Anchor, forkAnchor, sseMessages } from '../../bench/load/anchor.ts';
import { CpuMeter, pidListeningOn, procStat } from '../../bench/load/cpu.ts';
import { clientTarget, forkGenerator, type LoadPlan } from '../../bench/load/generator.ts';

const sse = (id: number, event: string, data: unknown) =>
  `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** A proposal that waits for its confirmation: every request gets it, confirmations included. */
const STREAM = [
  sse(1, 'connected', { requestId: 'req-anchor', conversationId: 'c' }),
  sse(2, 'route_classified', { path: 'llm', category: 'write', confidence: 0.9 }),
  ': heartbeat\n\n',
  sse(3, 'response_chunk', { text: 'Creating ₹5,000 customer…' }),
  sse(4, 'mcq', { actionId: 'act-1', question: 'Create it?' }),
  sse(5, 'complete', { status: 'awaiting_confirmation', response: 'Confirm?' }),
].join('');
const BYTES = Buffer.byteLength(STREAM);
const EVENTS = 5;

let anchor: Anchor;
beforeAll(async () => {
  anchor = await forkAnchor(STREAM);
});
afterAll(async () => {
  await anchor?.stop();
});

const plan = (flow: LoadPlan['flow']): LoadPlan => ({
  url: anchor.url,
  concurrency: 3,
  warmupMs: 300,
  durationMs: 1000,
  flow,
});

describe('the load benchmark', () => {
  it('splits a stream into its SSE messages', () => {
    expect(sseMessages(STREAM)).toHaveLength(6);
    expect(sseMessages(STREAM).join('')).toBe(STREAM);
  });

  it('counts answers, bytes and events of the window, and every event of every request', async () => {
    const edges: string[] = [];
    let pid: number | undefined;
    const result = await forkGenerator(
      plan({ kind: 'repeat', body: { query: 'q', entityId: 'e', orgId: 'o' } }),
      {
        onStart: (child) => {
          pid = child.pid;
        },
        onEdge: (edge) => edges.push(edge),
      },
    );
    expect(pid).not.toBe(process.pid);
    expect(edges).toEqual(['window-open', 'window-close']);
    const w = result.window;
    expect(result.problems).toEqual([]);
    expect(w.answers).toBeGreaterThan(0);
    expect([w.errors, w.failures]).toEqual([0, 0]);
    expect(w.bytes).toBe(w.answers * BYTES);
    expect(w.events).toBe(w.answers * EVENTS);
    expect(w.latencyMs).toHaveLength(w.answers);
    expect(w.statuses).toEqual({ awaiting_confirmation: w.answers });
    expect(w.steps.query?.answers).toBe(w.answers);
    // Warm-up and drain included: every request, each with the ids of its events.
    expect(result.completed).toBe(result.requests);
    expect(result.requests).toBeGreaterThanOrEqual(w.answers);
    expect(result.received).toHaveLength(result.requests);
    for (const r of result.received) expect(r).toEqual({ requestId: 'req-anchor', seqs: [1, 2, 3, 4, 5] });
  });

  it('runs the mixed flow: reads, a write proposal, and its confirmation with the mcq actionId', async () => {
    const result = await forkGenerator(
      plan({
        kind: 'mixed',
        tenant: { entityId: 'e', orgId: 'o' },
        reads: ['a', 'b'],
        write: 'create {tag}',
      }),
      {},
    );
    const { steps, answers, bytes } = result.window;
    expect(result.problems).toEqual([]);
    expect(Object.keys(steps).sort()).toEqual(['read 1', 'read 2', 'write confirmation', 'write proposal']);
    const sum = Object.values(steps).reduce((n, s) => n + s.answers, 0);
    expect(sum).toBe(answers);
    expect(bytes).toBe(answers * BYTES);
    // A confirmation follows its proposal (the anchor's answer always awaits one).
    expect(steps['write confirmation']?.answers).toBeLessThanOrEqual(
      (steps['write proposal']?.answers ?? 0) + 3,
    );
  });

  it('spreads the clients round-robin over several servers, each client staying on its own', () => {
    expect(clientTarget('http://127.0.0.1:1', 7).href).toBe('http://127.0.0.1:1/v1/query');
    expect(() => clientTarget([], 0)).toThrow(/at least one URL/);
    for (let servers = 1; servers <= 5; servers++) {
      const urls = Array.from({ length: servers }, (_, i) => `http://127.0.0.1:${1000 + i}`);
      for (let clients = 0; clients <= 23; clients++) {
        const targets = Array.from({ length: clients }, (_, i) => clientTarget(urls, i).origin);
        expect(targets).toEqual(targets.map((_, i) => urls[i % servers]));
        const per = urls.map((url) => targets.filter((t) => t === url).length);
        // As even as it can be: no server has more than one client beyond another.
        expect(Math.max(...per) - Math.min(...per)).toBeLessThanOrEqual(clients === 0 ? 0 : 1);
        expect(per.reduce((a, b) => a + b, 0)).toBe(clients);
      }
    }
  });

  it('drives every server of a plan with several URLs', async () => {
    const second = await forkAnchor(STREAM.replace('req-anchor', 'req-second'));
    try {
      const result = await forkGenerator(
        {
          ...plan({ kind: 'repeat', body: { query: 'q', entityId: 'e', orgId: 'o' } }),
          url: [anchor.url, second.url],
          concurrency: 4,
        },
        {},
      );
      expect(result.problems).toEqual([]);
      expect(result.completed).toBe(result.requests);
      // Two clients on each server: both answered.
      expect(new Set(result.received.map((r) => r.requestId))).toEqual(new Set(['req-anchor', 'req-second']));
    } finally {
      await second.stop();
    }
  });

  it('reads CPU times from /proc and finds who listens on a port', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    expect(pidListeningOn(port)).toBe(process.pid);
    await new Promise((resolve) => server.close(resolve));

    const before = procStat(process.pid);
    expect(before?.ticks).toBeGreaterThanOrEqual(0);
    const meter = new CpuMeter(() => new Map([[process.pid, 'self']]));
    meter.start();
    const { byLabel, machineMs } = meter.stop();
    expect(byLabel.get('self')?.processes).toBe(1);
    expect(byLabel.get('self')?.ms).toBeGreaterThanOrEqual(0);
    expect(machineMs).toBeGreaterThanOrEqual(0);
    expect(procStat(process.pid)?.ticks).toBeGreaterThanOrEqual(before?.ticks ?? 0);
  });
});
