import type { Bus } from '@munim/bus';
import { createDemoBooks } from '@munim/demo-books';
import { serveHealth } from '@munim/kit';
import { type FixtureNats, test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { buildMcpExecutor, type McpExecutorConfig } from '../src/app.ts';
import {
  freePort,
  log,
  newScope,
  readTool,
  recordEvents,
  startSdkServer,
  WRITES_EXEMPT,
  waitFor,
} from './helpers.ts';

let newNats: () => FixtureNats;
test.beforeAll(({ newNats: fixture }) => {
  newNats = fixture;
});

const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function startExecutor(config: Partial<McpExecutorConfig> & { serverUrl?: string }) {
  const bus = await newNats().bus('mcp-executor');
  const app = await buildMcpExecutor({
    bus,
    log,
    config: {
      policy: WRITES_EXEMPT,
      readTimeoutMs: 5_000,
      writeTimeoutMs: 5_000,
      resultMaxChars: 50_000,
      reconnectBackoff: { initialMs: 50, maxMs: 200 },
      ...config,
    },
  });
  await app.start();
  cleanups.push(() => app.stop());
  return { bus, app };
}

const execute = (bus: Bus, tool: string, args: Record<string, unknown> = {}, scope = newScope()) =>
  bus.request(
    'toolExecute',
    scope,
    { tool, args, callId: 'c1', isWrite: tool.startsWith('create_'), argsHash: 'h' },
    { timeoutMs: 15_000 },
  );

describe('mcp-executor resilience', () => {
  test('starts while the server is down, answers MCP_UNAVAILABLE, and becomes available once it is up', async () => {
    const port = await freePort();
    const { bus, app } = await startExecutor({ serverUrl: `http://127.0.0.1:${port}/mcp` });
    const health = serveHealth(bus, () => app.checks());
    cleanups.push(() => health.stop());

    await expect(bus.request('toolsList', newScope(), {}, { timeoutMs: 5_000 })).rejects.toMatchObject({
      code: 'MCP_UNAVAILABLE',
    });
    const early = await execute(bus, 'get_all_invoices');
    expect(early).toMatchObject({ success: false, error: { code: 'MCP_UNAVAILABLE' } });
    expect(early.error?.message).not.toMatch(/127\.0\.0\.1|http/);
    const down = await bus.request(
      'healthPing',
      newScope(),
      {},
      { timeoutMs: 2_000, params: { service: 'mcp-executor' } },
    );
    expect(down).toMatchObject({ ok: false, checks: { nats: true, mcp: false } });

    const books = createDemoBooks();
    const listening = await books.listen(port);
    cleanups.push(listening.close);
    await expect.poll(() => app.connection.connected, { timeout: 5_000 }).toBe(true);
    const up = await bus.request(
      'healthPing',
      newScope(),
      {},
      { timeoutMs: 2_000, params: { service: 'mcp-executor' } },
    );
    expect(up).toMatchObject({ ok: true, checks: { mcp: true } });
    expect(
      (await bus.request('toolsList', newScope(), {}, { timeoutMs: 5_000 })).tools.length,
    ).toBeGreaterThan(10);
    expect(await execute(bus, 'get_all_invoices', { PageSize: 1 })).toMatchObject({ success: true });
  });

  test('keeps serving the other servers while one is down, and that one again once it is back', async () => {
    const sdk = await startSdkServer([
      { tool: readTool('get_things'), run: () => ({ content: [{ type: 'text', text: '"still here"' }] }) },
    ]);
    cleanups.push(sdk.close);
    const port = await freePort();
    const books = createDemoBooks();
    let listening = await books.listen(port);
    cleanups.push(() => listening.close());
    const { bus, app } = await startExecutor({
      servers: [
        { name: 'sdk', url: sdk.url },
        { name: 'books', url: `http://127.0.0.1:${port}/mcp` },
      ],
      pingIntervalMs: 100,
    });
    await waitFor(() => app.connections.every((c) => c.connected));
    await expect.poll(() => app.registry.get('get_all_vendors') !== undefined).toBe(true);
    expect(await execute(bus, 'get_all_vendors')).toMatchObject({ success: true });

    await listening.close();
    await expect.poll(() => app.checks(), { timeout: 5_000 }).toEqual({ mcp: false });
    // The down server's tools fail fast and say so; the other server's are untouched.
    const down = await execute(bus, 'get_all_vendors');
    expect(down).toMatchObject({ success: false });
    expect(down.error?.code).toBe('MCP_UNAVAILABLE');
    expect(await execute(bus, 'get_things')).toMatchObject({ success: true, result: 'still here' });
    expect(sdk.calls).toEqual(['get_things']);

    listening = await books.listen(port);
    await expect.poll(() => app.checks(), { timeout: 5_000 }).toEqual({ mcp: true });
    expect(await execute(bus, 'get_all_vendors')).toMatchObject({ success: true });
    expect(await execute(bus, 'get_things')).toMatchObject({ success: true });
  });

  test('retries a read once on a new session after the server restarted, but never a write', async () => {
    const port = await freePort();
    const books = createDemoBooks();
    let listening = await books.listen(port);
    cleanups.push(() => listening.close());
    const { bus, app } = await startExecutor({
      serverUrl: `http://127.0.0.1:${port}/mcp`,
      pingIntervalMs: 0,
    });
    await waitFor(() => app.connection.connected);
    // Opens the tenant's session, which the restart below invalidates.
    expect(await execute(bus, 'get_all_vendors')).toMatchObject({ success: true });

    // The restarted server does not know the executor's session: the next call fails in transport.
    await listening.close();
    listening = await books.listen(port);
    const scope = newScope();
    const recorder = recordEvents(bus, scope.requestId);
    const read = await execute(bus, 'get_all_vendors', {}, scope);
    expect(read).toMatchObject({ success: true });
    await expect
      .poll(() => recorder.events.map((e) => e.type))
      .toEqual(['executing_tool', 'tool_retry', 'tool_result']);
    recorder.stop();
    expect(recorder.events[1]).toMatchObject({
      type: 'tool_retry',
      payload: { tool: 'get_all_vendors', attempt: 2 },
    });

    // A write whose response is lost is reported, not repeated.
    books.resetCalls();
    books.setFaults({ dropResponseFor: 'create_customer' });
    const write = await execute(bus, 'create_customer', { Name: 'Once Only Ltd' });
    expect(write).toMatchObject({
      success: false,
      outcome: 'unknown',
      error: { code: 'TOOL_OUTCOME_UNKNOWN' },
    });
    expect(write.error?.message).toContain('may or may not have been applied');
    expect(write.error?.message).toMatch(/read tool/);
    expect(books.calls().filter((c) => c.tool === 'create_customer')).toHaveLength(1);
    books.setFaults({});
    await expect.poll(() => app.connection.connected, { timeout: 5_000 }).toBe(true);
    expect(await execute(bus, 'get_all_vendors')).toMatchObject({ success: true });
  });

  test('follows tools/list pagination and refreshes the registry on list_changed', async () => {
    const tools = Array.from({ length: 7 }, (_, i) => ({
      tool: readTool(`get_thing_${i}`),
      run: () => ({ content: [{ type: 'text' as const, text: `thing ${i}` }] }),
    }));
    const server = await startSdkServer(tools, { pageSize: 3 });
    cleanups.push(server.close);
    const { bus, app } = await startExecutor({ serverUrl: server.url, registryRefreshMs: 3_600_000 });
    await waitFor(() => app.registry.loaded);
    const listed = await bus.request('toolsList', newScope(), {}, { timeoutMs: 5_000 });
    expect(listed.tools.map((t) => t.name)).toEqual(tools.map((t) => t.tool.name));

    await server.addTool({
      tool: readTool('reconcile_bank', { annotations: { readOnlyHint: false, destructiveHint: true } }),
      run: () => ({ content: [{ type: 'text', text: '{"matched": 3}' }] }),
    });
    await expect.poll(() => app.registry.get('reconcile_bank')?.isWrite, { timeout: 5_000 }).toBe(true);
    expect(await execute(bus, 'reconcile_bank')).toMatchObject({ success: true, result: { matched: 3 } });
  });

  test('parses text results as JSON when they are JSON and strips stack traces, links and tokens from errors', async () => {
    const server = await startSdkServer([
      { tool: readTool('get_text'), run: () => ({ content: [{ type: 'text', text: 'plain words' }] }) },
      { tool: readTool('get_json'), run: () => ({ content: [{ type: 'text', text: '[1, 2, 3]' }] }) },
      {
        tool: readTool('get_broken'),
        run: () => ({
          isError: true,
          content: [
            {
              type: 'text',
              text: 'Upstream failed: invoice locked (see https://api.example.com/v1/x?key=abc)\n    at handler (/srv/app/index.js:10:5)\n    at process (/srv/app/run.js:3:1)\nAuthorization: Bearer sk-live-123 and s3cr3t-token',
            },
          ],
        }),
      },
    ]);
    cleanups.push(server.close);
    const { bus, app } = await startExecutor({ serverUrl: server.url, authToken: 's3cr3t-token' });
    await waitFor(() => app.registry.loaded);
    expect(await execute(bus, 'get_text')).toMatchObject({ success: true, result: 'plain words' });
    expect(await execute(bus, 'get_json')).toMatchObject({ success: true, result: [1, 2, 3] });
    const broken = await execute(bus, 'get_broken');
    expect(broken).toMatchObject({ success: false, error: { code: 'TOOL_FAILED' } });
    const message = broken.error?.message ?? '';
    expect(message).toContain('invoice locked');
    expect(message).not.toMatch(/https?:|index\.js|\bat handler|sk-live-123|s3cr3t-token/);
  });

  test('sends the bearer token and cannot connect without the right one', async () => {
    const books = createDemoBooks({ authToken: 'right-token' });
    const listening = await books.listen();
    cleanups.push(listening.close);
    const good = await startExecutor({ serverUrl: listening.url, authToken: 'right-token' });
    await waitFor(() => good.app.connection.connected);
    expect(await execute(good.bus, 'get_all_vendors')).toMatchObject({ success: true });
    const bad = await startExecutor({ serverUrl: listening.url, authToken: 'wrong-token' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bad.app.connection.connected).toBe(false);
    expect(await execute(bad.bus, 'get_all_vendors')).toMatchObject({
      success: false,
      error: { code: 'MCP_UNAVAILABLE' },
    });
  });
});
