import { classifyTool, isWriteTool, type ToolDefinition } from '@munim/contracts';
import { toolList } from '@munim/demo-books';
import { newScope, TestNats } from '../../packages/bus/src/testing.ts';
import { createLogger } from '../../packages/kit/src/index.ts';
import { buildValidator, SchemaCompiler, validateCall } from '../../services/validator/src/app.ts';
import type { Suite } from '../run.ts';
import { percentile, report, sample } from '../stats.ts';

/** A write tool with 10 fields of every kind (flat fields plus nesting), classified as the registry does. */
const tenFieldTool: ToolDefinition = {
  name: 'create_health_entry',
  isWrite: true,
  access: classifyTool('create_health_entry'),
  inputSchema: {
    type: 'object',
    properties: {
      user_id: { type: 'string', maxLength: 50 },
      weight: { type: 'number', minimum: 0, maximum: 500 },
      height: { type: 'integer', minimum: 0, maximum: 300 },
      is_smoker: { type: 'boolean' },
      activity_level: { type: 'string', enum: ['sedentary', 'light', 'moderate', 'active', 'very_active'] },
      notes: { type: 'string', maxLength: 500 },
      recorded_at: { type: 'string', format: 'date-time' },
      Date: { type: 'string', format: 'date' },
      Amount: { type: 'number', minimum: 0 },
      Lines: {
        type: 'array',
        items: {
          type: 'object',
          properties: { Description: { type: 'string' }, UnitPrice: { type: 'number', minimum: 0 } },
          required: ['Description'],
        },
      },
    },
    required: ['user_id', 'weight', 'height', 'is_smoker', 'activity_level', 'recorded_at'],
  },
};
const tenFields = {
  user_id: 'user_123',
  weight: 72.5,
  height: 180,
  is_smoker: false,
  activity_level: 'moderate',
  notes: 'Great day — नमस्ते',
  recorded_at: '2025-10-05T14:30:00Z',
  Date: '2025-10-05',
  Amount: 5000,
  Lines: [{ Description: 'Steel rods', UnitPrice: 450 }],
};

/** Per-call time in ms of a synchronous function, each call timed on its own. */
function sampleSync(runs: number, fn: () => void, warmup: number): number[] {
  for (let i = 0; i < warmup; i++) fn();
  const out = new Array<number>(runs);
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    fn();
    out[i] = Number(process.hrtime.bigint() - start) / 1e6;
  }
  return out;
}

/**
 * Validator cost: the compute of one validation (10-field payload, schema compiled once), and one
 * validator hop over NATS (request → validate → reply, envelopes parsed on both sides) against a
 * bare NATS request/reply with the same payload measured in the same run.
 */
export const validatorSuite: Suite = {
  name: 'validator',
  async run() {
    const compiler = new SchemaCompiler();
    const request = { tool: tenFieldTool.name, args: tenFields, callId: 'c', attempt: 1 };
    const available = new Set<string>();
    const check = () => {
      if (validateCall(tenFieldTool, request, compiler, available).status !== 'passed')
        throw new Error('expected pass');
    };
    const compute = sampleSync(20_000, check, 5_000);
    const computeUs = (p: number) => (percentile(compute, p) * 1000).toFixed(2);
    console.log(
      `validation compute per call (10 fields): p50 ${computeUs(50)} µs, p99 ${computeUs(99)} µs (goal p50 ≤ 20 µs)`,
    );

    const nats = new TestNats();
    const bus = await nats.bus('validator');
    const registry: ToolDefinition[] = [
      ...toolList().map((t) => ({
        name: t.name,
        inputSchema: t.inputSchema as Record<string, unknown>,
        annotations: t.annotations,
        isWrite: isWriteTool(t.name, t.annotations),
      })),
      // A read twin, so the hop measures validation without the write_validation event publish.
      { ...tenFieldTool, name: 'get_health_entry', isWrite: false },
      tenFieldTool,
    ];
    bus.serve('toolsList', async () => ({ tools: registry }));
    const validator = await buildValidator({
      bus,
      log: createLogger('validator', 'silent'),
      config: { toolsTtlMs: 3_600_000, toolsRequestTimeoutMs: 2_000 },
    });
    await validator.start();
    try {
      const subject = `${nats.prefix}.bench.echo`;
      bus.nc.subscribe(subject, { callback: (_e, m) => void m.respond(m.data) });
      const scope = newScope();
      const payload = new TextEncoder().encode(
        JSON.stringify({ ...scope, data: { ...request, tool: 'get_health_entry' } }),
      );
      const bare = () => bus.nc.request(subject, payload, { timeout: 2_000 }).then(() => undefined);
      // The typed bus with a handler that does nothing: what any service hop costs over bare NATS.
      bus.serve(
        'healthPing',
        async () => ({ service: 'validator', instanceId: 'bench', ok: true, checks: {} }),
        { params: { service: 'bench' } },
      );
      const noop = () =>
        bus
          .request('healthPing', scope, {}, { timeoutMs: 2_000, params: { service: 'bench' } })
          .then(() => undefined);
      const hop = (tool: string) => () =>
        bus.request('toolValidate', scope, { ...request, tool }, { timeoutMs: 2_000 }).then((r) => {
          if (r.status !== 'passed') throw new Error(r.message);
        });
      // Interleaved rounds so drift on a shared machine hits both alike.
      const anchor: number[] = [];
      const busOnly: number[] = [];
      const read: number[] = [];
      const write: number[] = [];
      for (let round = 0; round < 5; round++) {
        anchor.push(...(await sample(400, bare, 100)));
        busOnly.push(...(await sample(400, noop, 100)));
        read.push(...(await sample(400, hop('get_health_entry'), 100)));
        write.push(...(await sample(200, hop(tenFieldTool.name), 50)));
      }
      const anchorMs = percentile(anchor, 50);
      report([
        { name: 'bare NATS request/reply (same payload)', ms: anchor },
        { name: 'typed bus hop, no-op handler (healthPing)', ms: busOnly, anchorMs },
        { name: 'validator hop, read (toolValidate request/reply)', ms: read, anchorMs },
        { name: 'validator hop, write (+ write_validation event)', ms: write, anchorMs },
      ]);
      console.log(`hop p50 / bare p50 (read): ${(percentile(read, 50) / anchorMs).toFixed(2)}× (goal ≤ 2×)`);
    } finally {
      await validator.stop();
      await nats.cleanup();
    }
  },
};
