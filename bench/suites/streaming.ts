import { randomUUID } from 'node:crypto';
import { createParser } from 'eventsource-parser';
import { startSystem } from '../../test/support/stack.ts';
import type { Suite } from '../run.ts';
import { percentile, report } from '../stats.ts';

const RUNS = Number(process.env.BENCH_STREAMING_RUNS ?? 20);
/** The scripted model: this many words, one delta each, this far apart (about 50 tokens a second). */
const WORDS = 60;
const TOKEN_MS = Number(process.env.BENCH_STREAMING_TOKEN_MS ?? 20);

const now = () => performance.timeOrigin + performance.now();

interface Timing {
  modelFirst: number;
  clientFirst: number;
  modelLast: number;
  complete: number;
}

/**
 * Time to the first `response_chunk` on the LLM path, all six services in separate processes,
 * against the scripted model's own first token in the same run: the user should see the first
 * word about when the model writes it, not after the last one.
 */
export const streamingSuite: Suite = {
  name: 'streaming',
  async run() {
    const sys = await startSystem();
    try {
      const tenant = { entityId: 'bench-stream', orgId: 'bench-stream' };
      const words = Array.from({ length: WORDS }, (_, i) => `figure${i + 1}`);
      sys.llm?.script({
        match: /cash position this week/,
        repeat: true,
        turns: [{ content: `Cash is steady: ${words.join(' ')}.`, chunkDelayMs: TOKEN_MS }],
      });
      const once = async (): Promise<Timing> => {
        // A question of its own each time: the router's response cache would answer a repeat.
        const query = `how is my cash position this week ${randomUUID().slice(0, 8)}`;
        const start = now();
        const res = await fetch(`${sys.gatewayUrl}/v1/query`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query, ...tenant }),
        });
        let clientFirst: number | undefined;
        let complete: number | undefined;
        let path: unknown;
        const parser = createParser({
          onEvent: (e) => {
            if (e.event === 'response_chunk') clientFirst ??= now();
            if (e.event === 'route_classified') path = JSON.parse(e.data).path;
            if (e.event === 'complete') complete = now();
          },
        });
        const decoder = new TextDecoder();
        for await (const chunk of res.body as AsyncIterable<Uint8Array>)
          parser.feed(decoder.decode(chunk, { stream: true }));
        const streamed = sys.llm?.requestsFor(query).at(-1)?.streamed;
        if (path !== 'llm' || !clientFirst || !complete || !streamed?.firstAt || !streamed.lastAt)
          throw new Error(`${query}: not answered on the LLM path with a streamed answer (${String(path)})`);
        return {
          modelFirst: streamed.firstAt - start,
          clientFirst: clientFirst - start,
          modelLast: streamed.lastAt - start,
          complete: complete - start,
        };
      };
      for (let i = 0; i < 2; i++) await once();
      const runs: Timing[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await once());
      const column = (k: keyof Timing) => runs.map((r) => r[k]);
      const anchorMs = percentile(column('modelFirst'), 50);
      console.log(`scripted model: ${WORDS + 3} text deltas, ${TOKEN_MS} ms apart; times since the POST`);
      report([
        { name: 'model writes its first token', ms: column('modelFirst') },
        { name: 'client gets the first response_chunk', ms: column('clientFirst'), anchorMs },
        { name: 'model writes its last token', ms: column('modelLast'), anchorMs },
        { name: 'client gets complete', ms: column('complete'), anchorMs },
      ]);
      const ratios = runs.map((r) => r.clientFirst / r.modelFirst);
      const lag = runs.map((r) => r.clientFirst - r.modelFirst);
      console.log(
        `first chunk / model first token, per run: p50 ${percentile(ratios, 50).toFixed(2)}×, ` +
          `p95 ${percentile(ratios, 95).toFixed(2)}×; lag p50 ${percentile(lag, 50).toFixed(1)} ms, ` +
          `p95 ${percentile(lag, 95).toFixed(1)} ms (one token is ${TOKEN_MS} ms)`,
      );
    } finally {
      await sys.stop();
    }
  },
};
