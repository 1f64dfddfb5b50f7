import type { Bus } from '@munim/bus';
import type { ExecutionResult } from '@munim/contracts';
import { createDemoBooks, type DemoBooks, TOOLS } from '@munim/demo-books';
import { type FixtureNats, test } from '@munim/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect } from 'vitest';
import { ANNOUNCE_READ_AFTER_MS } from '../src/announce.ts';
import { buildMcpExecutor, type McpExecutor, type McpExecutorConfig } from '../src/app.ts';
import { log, newScope, recordEvents, WRITES_EXEMPT, waitFor } from './helpers.ts';

let newNats: () => FixtureNats;
test.beforeAll(({ newNats: fixture }) => {
  newNats = fixture;
});

let books: DemoBooks;
let serverUrl: string;
let closeBooks: () => Promise<void>;
const cleanups: (() => Promise<void>)[] = [];

/** An executor on its own subject prefix, talking to the demo books. */
async function startExecutor(
  overrides: Partial<McpExecutorConfig> = {},
): Promise<{ bus: Bus; app: McpExecutor }> {
  const bus = await newNats().bus('mcp-executor');
  const app = await buildMcpExecutor({
    bus,
    log,
    config: {
      serverUrl,
      readTimeoutMs: 5_000,
      writeTimeoutMs: 10_000,
      resultMaxChars: 50_000,
      policy: WRITES_EXEMPT,
      ...overrides,
    },
  });
  await app.start();
  await waitFor(() => app.registry.loaded);
  cleanups.push(() => app.stop());
  return { bus, app };
}

const execute = (
  bus: Bus,
  scope: ReturnType<typeof newScope>,
  tool: string,
  args: Record<string, unknown> = {},
) =>
  bus.request(
    'toolExecute',
    scope,
    { tool, args, callId: `call-${tool}`, isWrite: tool.startsWith('create_'), argsHash: 'h' },
    { timeoutMs: 15_000 },
  );

let main: { bus: Bus; app: McpExecutor };

beforeAll(async () => {
  books = createDemoBooks({ asOf: new Date('2025-06-30T00:00:00Z') });
  const listening = await books.listen();
  serverUrl = listening.url;
  closeBooks = listening.close;
  main = await startExecutor();
});

beforeEach(() => {
  books.resetCalls();
  books.setFaults({});
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await closeBooks();
});

describe('mcp-executor against the demo books', () => {
  test('serves the tool registry with write tools marked', async () => {
    const { tools } = await main.bus.request('toolsList', newScope(), {}, { timeoutMs: 5_000 });
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('get_all_invoices')?.isWrite).toBe(false);
    expect(byName.get('get_charts_of_accounts')?.isWrite).toBe(false);
    expect(byName.get('create_payment')?.isWrite).toBe(true);
    expect(byName.get('void_invoice')?.isWrite).toBe(true);
    expect(byName.get('create_payment')?.inputSchema).toMatchObject({
      required: ['AccountId', 'Amount', 'Applications'],
    });
    expect(byName.get('void_invoice')?.annotations?.destructiveHint).toBe(true);
    expect(await main.app.checks()).toEqual({ mcp: true });
  });

  test('executes a read and emits executing_tool then tool_result on the request subject', async () => {
    const scope = newScope();
    const recorder = recordEvents(main.bus, scope.requestId);
    const reply = await execute(main.bus, scope, 'get_all_invoices', { PageSize: 5 });
    expect(reply.success).toBe(true);
    expect(reply.truncated).toBe(false);
    const result = reply.result as { Invoices: { InvoiceId: string }[]; TotalCount: number };
    expect(result.Invoices).toHaveLength(5);
    expect(result.TotalCount).toBe(books.store.invoices.length);
    expect(books.calls()).toMatchObject([{ tool: 'get_all_invoices', args: { PageSize: 5 } }]);

    await expect.poll(() => recorder.events.length).toBe(2);
    recorder.stop();
    expect(recorder.events.map((e) => e.type)).toEqual(['executing_tool', 'tool_result']);
    expect(recorder.events[0]).toEqual({
      type: 'executing_tool',
      payload: { tool: 'get_all_invoices', callId: 'call-get_all_invoices', args: { PageSize: 5 } },
    });
    expect(recorder.events[1]).toMatchObject({
      type: 'tool_result',
      payload: { tool: 'get_all_invoices', success: true, callId: 'call-get_all_invoices', truncated: false },
    });
    // The event says what the result held; the data itself went to the caller in the reply.
    expect(recorder.events[1]?.payload).not.toHaveProperty('result');
    expect(recorder.events[1]?.payload).toHaveProperty('recordCount', 5);
    expect((await main.bus.lastEvent(scope.requestId))?.message.data.type).toBe('tool_result');
    // A read answered before its announcement was due goes out with it, one stream message.
    const stored = await main.bus.jsm.streams.getMessage(main.bus.streamName('events'), {
      last_by_subj: main.bus.subject('requestEvents', { requestId: scope.requestId }),
    });
    const body = [stored!.json<unknown>()].flat() as { data: { type: string } }[];
    // (One that took about as long as the announcement allows may have been announced alone.)
    const types = body.map((m) => m.data.type);
    if (reply.durationMs < ANNOUNCE_READ_AFTER_MS - 1)
      expect(types).toEqual(['executing_tool', 'tool_result']);
    else expect([['tool_result'], ['executing_tool', 'tool_result']]).toContainEqual(types);
  });

  test('announces a slow read and any write while the call is still running', async () => {
    books.setFaults({ delayMs: { get_all_customers: 600, create_customer: 600 } });
    for (const [tool, args] of [
      ['get_all_customers', {}],
      ['create_customer', { Name: 'Announced Ltd' }],
    ] as const) {
      const scope = newScope();
      const recorder = recordEvents(main.bus, scope.requestId);
      const pending = execute(main.bus, scope, tool, args);
      await expect
        .poll(() => recorder.events.map((e) => e.type), { timeout: 500 })
        .toEqual(['executing_tool']);
      // The server has the call and has not answered yet.
      expect(books.calls().map((c) => c.tool)).toContain(tool);
      expect((await pending).success).toBe(true);
      await expect.poll(() => recorder.events.map((e) => e.type)).toEqual(['executing_tool', 'tool_result']);
      recorder.stop();
    }
  });

  test('reports an isError result as a failure with a sanitized message', async () => {
    const scope = newScope();
    const reply = await execute(main.bus, scope, 'get_invoice', {
      InvoiceId: '00000000-0000-4000-8000-000000000000',
    });
    expect(reply).toMatchObject({ tool: 'get_invoice', success: false, error: { code: 'TOOL_FAILED' } });
    expect(reply.error?.message).toContain('Invoice not found');
    expect(reply.result).toBeUndefined();
  });

  test('answers an unknown tool with TOOL_NOT_FOUND without calling the server', async () => {
    const scope = newScope();
    const recorder = recordEvents(main.bus, scope.requestId);
    const reply = await execute(main.bus, scope, 'make_coffee');
    expect(reply).toMatchObject({ success: false, error: { code: 'TOOL_NOT_FOUND' } });
    expect(reply.error?.message).toContain('make_coffee');
    await expect.poll(() => recorder.events.length).toBe(1);
    recorder.stop();
    expect(recorder.events[0]).toMatchObject({
      type: 'tool_result',
      payload: { tool: 'make_coffee', success: false },
    });
    expect(books.calls()).toEqual([]);
  });

  test('gives a read its read timeout and a write its longer write timeout', async () => {
    const quick = await startExecutor({ readTimeoutMs: 300, writeTimeoutMs: 5_000 });
    books.setFaults({ delayMs: { get_all_customers: 1_500, create_customer: 800 } });
    const slowRead = await execute(quick.bus, newScope(), 'get_all_customers');
    expect(slowRead).toMatchObject({ success: false, error: { code: 'TOOL_TIMEOUT' } });
    expect(slowRead.error?.message).toContain('get_all_customers');
    const slowWrite: ExecutionResult = await execute(quick.bus, newScope(), 'create_customer', {
      Name: 'Slow Ltd',
    });
    expect(slowWrite.success).toBe(true);
    expect(slowWrite.result).toMatchObject({ Name: 'Slow Ltd' });
  });

  test('truncates a large result keeping the item count', async () => {
    const small = await startExecutor({ resultMaxChars: 3_000 });
    const scope = newScope();
    const recorder = recordEvents(small.bus, scope.requestId);
    const reply = await execute(small.bus, scope, 'get_all_invoices', { PageSize: 40 });
    expect(reply.success).toBe(true);
    expect(reply.truncated).toBe(true);
    const result = reply.result as {
      Invoices: unknown[];
      TotalCount: number;
      truncated: boolean;
      total_items: number;
      shown_items: number;
    };
    expect(JSON.stringify(result).length).toBeLessThanOrEqual(3_000);
    expect(result.truncated).toBe(true);
    expect(result.total_items).toBe(40);
    expect(result.shown_items).toBe(result.Invoices.length);
    expect(result.shown_items).toBeGreaterThan(0);
    expect(result.shown_items).toBeLessThan(40);
    expect(result.TotalCount).toBe(books.store.invoices.length);
    await expect.poll(() => recorder.events.length).toBe(2);
    recorder.stop();
    expect(recorder.events[1]).toMatchObject({
      type: 'tool_result',
      payload: { truncated: true, recordCount: result.shown_items },
    });
  });
});
