import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { ask } from '../../test/support/sse.ts';
import { startSystem } from '../../test/support/stack.ts';
import type { Suite } from '../run.ts';
import { percentile, report, sample } from '../stats.ts';

const RUNS = 20;

/**
 * End-to-end latency through all six services (separate processes, real NATS and PostgreSQL):
 * the fast path and the self-correcting write flow (a blocked payment corrected by the model),
 * against a bare NATS request/reply round trip measured in the same run.
 */
export const e2eLatency: Suite = {
  name: 'e2e-latency',
  async run() {
    // The payment runs without the confirmation card here (the operator's policy exempts it, tier 0):
    // the figure is the validated write flow itself.
    const dir = await mkdtemp(join(tmpdir(), 'munim-bench-'));
    const policy = join(dir, 'policy.yaml');
    await writeFile(policy, 'tools:\n  - { match: create_payment, tier: 0 }\n');
    const sys = await startSystem({ env: { TOOL_POLICY_FILE: policy } });
    try {
      const nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
      const subject = `${sys.prefix}.bench.echo`;
      nc.subscribe(subject, {
        callback: (_e, m) => {
          m.respond(m.data);
        },
      });
      const payload = new TextEncoder().encode(JSON.stringify({ query: 'show all invoices' }));
      const anchor = await sample(
        500,
        async () => void (await nc.request(subject, payload, { timeout: 1000 })),
        50,
      );
      const anchorMs = percentile(anchor, 50);

      const tenant = { entityId: 'bench', orgId: 'bench' };
      const bank = sys.books.store.accounts.find((a) => /bank/i.test(a.Name))?.AccountId;
      const invoice = sys.books.store.invoices.find((i) => i.Status === 'AUTHORISED')?.InvoiceId;
      const write = 'Record ₹1 payment from Acme Corp';
      sys.llm?.script({
        match: 'show all invoices',
        repeat: true,
        turns: [{ content: 'Here are your invoices.' }],
      });
      sys.llm?.script({
        match: write,
        repeat: true,
        turns: [
          { toolCalls: [{ name: 'create_payment', arguments: { AccountId: bank } }] },
          { toolCalls: [{ name: 'get_all_invoices', arguments: { Search: 'Acme Corp', PageSize: 5 } }] },
          {
            toolCalls: [
              {
                name: 'create_payment',
                arguments: { AccountId: bank, Amount: 1, Applications: [{ InvoiceId: invoice, Amount: 1 }] },
              },
            ],
          },
          { content: 'Payment recorded.' },
        ],
      });
      const expectComplete = async (query: string) => {
        const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
        const last = events.at(-1);
        if (last?.event !== 'complete' || last.data.status !== 'answered') {
          throw new Error(`${query}: ended with ${JSON.stringify(last)}`);
        }
      };
      const fast = await sample(RUNS, () => expectComplete('show all invoices'));
      const writeFlow = await sample(RUNS, () => expectComplete(write));
      report([
        { name: 'bare NATS request/reply', ms: anchor },
        { name: 'fast path "show all invoices" (POST → complete)', ms: fast, anchorMs },
        { name: 'self-correcting write flow (4 LLM turns, 1 block)', ms: writeFlow, anchorMs },
      ]);
      await nc.close();
    } finally {
      await sys.stop();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
