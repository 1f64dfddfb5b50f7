import { createDemoBooks } from '@munim/demo-books';
import { ConfigError } from '@munim/kit';
import { type FixtureNats, test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { buildMcpExecutor, type McpExecutorConfig } from '../src/app.ts';
import { loadEnv } from '../src/env.ts';
import { parseServerList, ServerSpecError } from '../src/servers.ts';
import { log, newScope, readTool, startSdkServer, WRITES_EXEMPT, waitFor } from './helpers.ts';

let newNats: () => FixtureNats;
test.beforeAll(({ newNats: fixture }) => {
  newNats = fixture;
});

const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

async function startExecutor(
  config: Omit<McpExecutorConfig, 'readTimeoutMs' | 'writeTimeoutMs' | 'resultMaxChars'>,
) {
  const own = newNats();
  const app = await buildMcpExecutor({
    bus: await own.bus('mcp-executor'),
    log,
    config: {
      readTimeoutMs: 5_000,
      writeTimeoutMs: 5_000,
      resultMaxChars: 50_000,
      policy: WRITES_EXEMPT,
      ...config,
    },
  });
  await app.start();
  cleanups.push(() => app.stop());
  return { app, bus: await own.bus('agent') };
}

describe('MCP_SERVERS', () => {
  test('reads a comma list of URLs and stdio commands, naming each server uniquely', () => {
    expect(
      parseServerList(
        'http://books.local:3100/mcp, stdio:npx -y @modelcontextprotocol/server-memory,http://books.local/x',
      ),
    ).toEqual([
      { name: 'books', url: 'http://books.local:3100/mcp' },
      { name: 'server-memory', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
      { name: 'books2', url: 'http://books.local/x' },
    ]);
  });

  test('reads a JSON list of strings and objects, with tokens for HTTP servers only', () => {
    expect(
      parseServerList(
        JSON.stringify([
          { name: 'ledger', url: 'https://ledger.example/mcp', tenantParams: false },
          { command: 'node', args: ['srv.js'], env: { MODE: 'x' } },
          'stdio:python3 -m tool_server',
        ]),
        { authToken: 'tok' },
      ),
    ).toEqual([
      { name: 'ledger', url: 'https://ledger.example/mcp', tenantParams: false, authToken: 'tok' },
      { name: 'srv', command: 'node', args: ['srv.js'], env: { MODE: 'x' } },
      { name: 'tool_server', command: 'python3', args: ['-m', 'tool_server'] },
    ]);
  });

  test('refuses malformed lists with a message that says what is wrong', () => {
    expect(() => parseServerList('ftp://x')).toThrow(ServerSpecError);
    expect(() => parseServerList('[{"url":"http://a/mcp","command":"x"}]')).toThrow(/not both/);
    expect(() => parseServerList('[{"name":"a b","url":"http://a/mcp"}]')).toThrow(/entry 1: name/);
    expect(() =>
      parseServerList('[{"name":"a","url":"http://a/mcp"},{"name":"a","url":"http://b/mcp"}]'),
    ).toThrow(/used twice/);
    expect(() => parseServerList('[')).toThrow(/JSON/);
    expect(() => parseServerList(' , ')).toThrow(/no server/);
    expect(() => parseServerList('stdio:')).toThrow(/needs a command/);

    const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
    expect(() => loadEnv({ DATABASE_URL, MCP_SERVERS: 'ftp://x' })).toThrow(ConfigError);
    expect(() => loadEnv({ DATABASE_URL, MCP_SERVERS: 'ftp://x' })).toThrow(/MCP_SERVERS/);
    expect(() => loadEnv({ DATABASE_URL })).toThrow(/MCP_SERVER_URL.*MCP_SERVERS/);
    expect(loadEnv({ DATABASE_URL, MCP_SERVERS: 'stdio:node x.js' }).MCP_SERVERS).toEqual([
      { name: 'x', command: 'node', args: ['x.js'] },
    ]);
  });
});

describe('several servers', () => {
  test('serves the tools of every server, prefixing a name that a later server also lists', async () => {
    const first = await startSdkServer([
      { tool: readTool('get_things'), run: () => ({ content: [{ type: 'text', text: '"from first"' }] }) },
    ]);
    const second = await startSdkServer([
      { tool: readTool('get_things'), run: () => ({ content: [{ type: 'text', text: '"from second"' }] }) },
      {
        tool: readTool('create_thing', { annotations: {} }),
        run: () => ({ content: [{ type: 'text', text: '{"created":true}' }] }),
      },
    ]);
    cleanups.push(first.close, second.close);
    const { app, bus } = await startExecutor({
      servers: [
        { name: 'one', url: first.url },
        { name: 'two', url: second.url },
      ],
    });
    await waitFor(() => app.connections.every((c) => c.connected));
    await expect.poll(() => app.registry.list().length).toBe(3);
    expect(app.registry.list().map((t) => [t.name, t.isWrite])).toEqual([
      ['get_things', false],
      ['two__get_things', false],
      ['create_thing', true],
    ]);

    const run = (tool: string) =>
      bus.request(
        'toolExecute',
        newScope(),
        { tool, args: {}, callId: 'c', isWrite: tool.includes('create_'), argsHash: 'h' },
        { timeoutMs: 5_000 },
      );
    expect(await run('get_things')).toMatchObject({ success: true, result: 'from first' });
    expect(await run('two__get_things')).toMatchObject({ success: true, result: 'from second' });
    expect(await run('create_thing')).toMatchObject({ success: true, result: { created: true } });
    expect(first.calls).toEqual(['get_things']);
    expect(second.calls).toEqual(['get_things', 'create_thing']);
    expect(await app.checks()).toEqual({ mcp: true });
  });

  test("sends the bearer token and the tenant's entityid and orgid on the tenant's own session", async () => {
    const books = createDemoBooks({ authToken: 'sekret-token' });
    const listening = await books.listen();
    cleanups.push(listening.close);
    const { app, bus } = await startExecutor({ serverUrl: listening.url, authToken: 'sekret-token' });
    await waitFor(() => app.registry.loaded);
    const call = (entityId: string, orgId: string) =>
      bus.request(
        'toolExecute',
        { ...newScope(), entityId, orgId },
        { tool: 'get_all_vendors', args: {}, callId: 'c', isWrite: false, argsHash: 'h' },
        { timeoutMs: 5_000 },
      );
    expect(await call('ent-7', 'org-9')).toMatchObject({ success: true });
    expect(await call('ent-8', 'org-9')).toMatchObject({ success: true });
    expect(await call('ent-7', 'org-9')).toMatchObject({ success: true });
    expect(books.calls().map((c) => [c.entityId, c.orgId])).toEqual([
      ['ent-7', 'org-9'],
      ['ent-8', 'org-9'],
      ['ent-7', 'org-9'],
    ]);

    const wrongToken = await startExecutor({
      serverUrl: listening.url,
      authToken: 'wrong',
      reconnectBackoff: { initialMs: 50, maxMs: 100 },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(wrongToken.app.registry.loaded).toBe(false);
    expect(await wrongToken.app.checks()).toEqual({ mcp: false });
  });
});
