import type { Bus } from '@munim/bus';
import { createDemoBooks, type DemoBooks } from '@munim/demo-books';
import { buildMcpExecutor, type McpExecutor, ToolPolicy } from '@munim/mcp-executor';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { buildValidator, type Validator } from '../src/app.ts';
import { log, newScope } from './helpers.ts';

let books: DemoBooks;
let closeBooks: () => Promise<void>;
let serverUrl: string;
let bus: Bus;
let executor: McpExecutor;
let validator: Validator;

test.beforeAll(async ({ nats }) => {
  books = createDemoBooks({ asOf: new Date('2025-06-30T00:00:00Z') });
  const listening = await books.listen();
  closeBooks = listening.close;
  serverUrl = listening.url;
  bus = await nats.bus('validator');
  validator = await buildValidator({
    bus,
    log,
    config: { toolsTtlMs: 60_000, toolsRequestTimeoutMs: 2_000 },
  });
  await validator.start();
});

afterAll(async () => {
  await validator.stop();
  await executor?.stop();
  await closeBooks();
});

describe('validator with the real MCP executor', () => {
  test('answers SERVICE_UNAVAILABLE while no executor serves the registry', async () => {
    await expect(
      bus.request(
        'toolValidate',
        newScope(),
        { tool: 'get_bills', args: {}, callId: 'c', attempt: 1 },
        { timeoutMs: 5_000 },
      ),
    ).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  test('blocks a bad write before the server sees it and passes a good one that then runs once', async () => {
    executor = await buildMcpExecutor({
      bus,
      log,
      config: {
        serverUrl,
        readTimeoutMs: 5_000,
        writeTimeoutMs: 5_000,
        resultMaxChars: 50_000,
        // No user here to approve the payment (and no database to prove it): the operator exempts it.
        policy: ToolPolicy.parse('tools:\n  - { match: create_payment, tier: 0 }\n'),
      },
    });
    await executor.start();
    await expect.poll(() => executor.registry.loaded, { timeout: 5_000 }).toBe(true);
    const scope = newScope();
    books.resetCalls();

    const blocked = await bus.request(
      'toolValidate',
      scope,
      { tool: 'create_payment', args: { Amount: 5000 }, callId: 'c1', attempt: 1 },
      { timeoutMs: 5_000 },
    );
    expect(blocked).toMatchObject({ status: 'blocked', missingFields: ['AccountId', 'Applications'] });
    expect(blocked.suggestedTools).toEqual(['get_charts_of_accounts', 'get_all_invoices']);

    const invoice = books.store.invoices.find((i) => i.Status === 'AUTHORISED');
    const bank = books.store.accounts.find((a) => a.Type === 'ASSET');
    const args = {
      AccountId: bank?.AccountId,
      Amount: 1000,
      Applications: [{ InvoiceId: invoice?.InvoiceId, Amount: 1000 }],
    };
    const passed = await bus.request(
      'toolValidate',
      scope,
      { tool: 'create_payment', args, callId: 'c1', attempt: 2 },
      { timeoutMs: 5_000 },
    );
    expect(passed.status).toBe('passed');
    const executed = await bus.request(
      'toolExecute',
      scope,
      {
        tool: 'create_payment',
        args: passed.args ?? {},
        callId: 'c1',
        isWrite: passed.isWrite,
        argsHash: passed.argsHash,
      },
      { timeoutMs: 10_000 },
    );
    expect(executed).toMatchObject({ success: true, result: { Amount: 1000 } });
    expect(books.calls().map((c) => c.tool)).toEqual(['create_payment']);
  });

  test('collapses the real registry into containers and never sends a container call to the server', async () => {
    const scope = newScope();
    books.resetCalls();
    const offered = await bus.request('toolsContainers', scope, { collapse: 'always' }, { timeoutMs: 5_000 });
    const names = offered.containers.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['invoices', 'bills', 'payments', 'reports_pnl']));
    // Every tool is offered exactly once: inside a container or as itself.
    const inside = new Set(offered.containers.flatMap((c) => c.functions));
    for (const tool of offered.tools) expect(inside.has(tool.name)).toBe(false);
    expect(inside.size + offered.tools.length).toBe(executor.registry.list().length);

    const expanded = await bus.request(
      'toolValidate',
      scope,
      { tool: 'bills', args: {}, callId: 'c9', attempt: 1 },
      { timeoutMs: 5_000 },
    );
    expect(expanded.container).toMatchObject({ name: 'bills', expand: true });
    expect(expanded.container?.functions).toContain('approve_bill');
    expect(books.calls()).toEqual([]);
  });
});
