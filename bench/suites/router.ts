import { randomBytes } from 'node:crypto';
import type { ToolDefinition } from '@munim/contracts';
import { connect } from '@nats-io/transport-node';
import { demoRegistry, loadQueries, seededIntents } from '../../services/router/eval/evaluate.ts';
import { type Intent, IntentMatcher } from '../../services/router/src/intents.ts';
import { routeQuery } from '../../services/router/src/route.ts';
import type { Suite } from '../run.ts';
import { percentile, report, sample } from '../stats.ts';

const NOUNS = [
  'widget',
  'asset',
  'lease',
  'loan',
  'grant',
  'payroll',
  'salary',
  'rent',
  'travel',
  'fuel',
  'order',
];
const QUALIFIERS = [
  'monthly',
  'pending',
  'regional',
  'annual',
  'archived',
  'shared',
  'foreign',
  'branch',
  'team',
];

/** The seeded catalog padded with synthetic intents to `count`. */
function intents(count: number): Intent[] {
  const out = seededIntents();
  for (let i = out.length; i < count; i++) {
    const noun = NOUNS[i % NOUNS.length] as string;
    const q = QUALIFIERS[Math.floor(i / NOUNS.length) % QUALIFIERS.length] as string;
    out.push({
      id: `synthetic_${i}`,
      name: `${q}_${noun}_${i}`,
      moduleId: null,
      description: null,
      trainingPhrases: [`show ${q} ${noun} ${i}`, `${q} ${noun} report ${i}`, `${noun} ${q} dikhao ${i}`],
      resolutionFlow: [{ tool: 'get_all_invoices', args: {}, description: 'x', purpose: 'x' }],
    });
  }
  return out;
}

/** The demo books' tools padded with synthetic tools to `count`. */
function tools(count: number): ToolDefinition[] {
  const out = demoRegistry();
  for (let i = out.length; i < count; i++) {
    const noun = NOUNS[i % NOUNS.length] as string;
    out.push({
      name: `get_${noun}_records_${i}`,
      description: `Lists ${noun} records with amounts and dates`,
      inputSchema: { type: 'object' },
      isWrite: false,
    });
  }
  return out;
}

/** Routing compute per query with 500 intents and 150 tools, against a bare NATS request/reply. */
export const routerSuite: Suite = {
  name: 'router',
  async run() {
    const matcher = new IntentMatcher();
    matcher.replace(intents(500));
    const registry = tools(150);
    const queries = loadQueries().map((q) => q.q);
    let i = 0;
    const routing = await sample(
      3000,
      async () => {
        routeQuery({
          query: queries[i++ % queries.length] as string,
          matcher,
          registry,
          thresholdFor: () => 0.85,
          strategy: 'dynamic',
        });
      },
      300,
    );
    const nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
    const subject = `bench.router.${randomBytes(4).toString('hex')}`;
    const sub = nc.subscribe(subject, { callback: (_e, m) => void m.respond(m.data) });
    const anchor = await sample(
      500,
      async () => {
        await nc.request(subject, 'ping', { timeout: 2000 });
      },
      20,
    );
    sub.unsubscribe();
    await nc.close();
    const anchorMs = percentile(anchor, 50);
    report([
      { name: 'NATS request/reply (anchor)', ms: anchor },
      { name: 'routeQuery, 500 intents, 150 tools', ms: routing, anchorMs },
    ]);
    console.log(
      `routing p50 ${percentile(routing, 50).toFixed(3)} ms, p99 ${percentile(routing, 99).toFixed(3)} ms (goal p50 ≤ 1 ms); ` +
        `anchor p50 ${anchorMs.toFixed(3)} ms, p99 ${percentile(anchor, 99).toFixed(3)} ms`,
    );
  },
};
