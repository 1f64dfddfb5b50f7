import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ask } from '../../test/support/sse.ts';
import { startSystem } from '../../test/support/stack.ts';
import type { Suite } from '../run.ts';

const QUERIES = 80;
const CONCURRENCY = 4;
const ROUNDS = 3;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** Queries per second through all six services, fast path, `CONCURRENCY` clients at once. */
async function throughput(env: Record<string, string>): Promise<number> {
  const sys = await startSystem({ llm: false, env });
  try {
    const tenant = { entityId: 'bench', orgId: 'bench' };
    const one = async () => {
      const { events } = await ask(sys.gatewayUrl, { query: 'show all customers', ...tenant });
      if (events.at(-1)?.event !== 'complete') throw new Error(`ended with ${JSON.stringify(events.at(-1))}`);
    };
    for (let i = 0; i < 5; i++) await one();
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < QUERIES) {
          next += 1;
          await one();
        }
      }),
    );
    return QUERIES / ((performance.now() - started) / 1000);
  } finally {
    await sys.stop();
  }
}

/**
 * End-to-end throughput with tracing on (OTLP/HTTP export of every span, batch span processor,
 * 100 % sampling, to a local receiver) against tracing off, in the same run.
 */
export const tracingOverhead: Suite = {
  name: 'tracing',
  async run() {
    let received = 0;
    const sink = createServer((req, res) => {
      req.on('data', (c: Buffer) => {
        received += c.length;
      });
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
    try {
      // Alternate the two, so load from anything else on the machine falls on both alike.
      const offs: number[] = [];
      const ons: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        offs.push(await throughput({}));
        ons.push(
          await throughput({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: 'always_on' }),
        );
      }
      const off = median(offs);
      const on = median(ons);
      console.table([
        { measure: 'tracing off (anchor)', 'queries/s': off.toFixed(1), ratio: 'anchor' },
        {
          measure: 'tracing on, 100 % sampled, OTLP/HTTP',
          'queries/s': on.toFixed(1),
          ratio: `${(on / off).toFixed(2)}×`,
        },
      ]);
      console.log(
        `rounds: off ${offs.map((x) => x.toFixed(1)).join(', ')}; on ${ons.map((x) => x.toFixed(1)).join(', ')}`,
      );
      console.log(`OTLP bytes received while tracing: ${received}`);
    } finally {
      sink.close();
    }
  },
};
