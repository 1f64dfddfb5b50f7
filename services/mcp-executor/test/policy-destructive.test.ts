// A tool policy that gives tier 0 (no confirmation) to a destructive tool stops the
// executor at start; a destructive tool a later listing brings under such an entry keeps its own
// tier, with an error log; `allowUnconfirmedDestructive: true` on the entry is the only way past.
// On real NATS and PostgreSQL, with an MCP server written with the SDK.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DESTRUCTIVE_VERBS } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type TestNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import pino from 'pino';
import { afterAll, describe, expect } from 'vitest';
import { buildMcpExecutor, hashArgs, ToolPolicy } from '../src/app.ts';
import { loadEnv } from '../src/env.ts';
import { newScope, type SdkTool, startSdkServer } from './helpers.ts';

let dir: string;
let db: Kysely<Database>;
let nats: TestNats;
const cleanups: (() => Promise<void>)[] = [];

test.beforeAll(async ({ nats: fileNats, db: fileDb }) => {
  nats = fileNats;
  db = fileDb;
  dir = await mkdtemp(join(tmpdir(), 'munim-policy-destructive-'));
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

const base = {
  NATS_URL: 'nats://127.0.0.1:4222',
  MCP_SERVER_URL: 'http://127.0.0.1:1/mcp',
  DATABASE_URL: 'postgres://x/y',
};
let files = 0;
/** Loads a policy file as the executor does at start. */
async function start(policy: string) {
  files += 1;
  const path = join(dir, `policy-${files}.yaml`);
  await writeFile(path, policy);
  return () => loadEnv({ ...base, TOOL_POLICY_FILE: path });
}

describe('at start', () => {
  test.each([
    ['an exact destructive name', '- { match: delete_invoice, tier: 0 }', /tools\[0\].*"delete_invoice"/],
    [
      'a glob of a destructive verb',
      '- { match: "void_*", tier: 0 }',
      /tools\[0\] \(match "void_\*"\).*"void_x"/,
    ],
    ['every tool', '- { match: "*", tier: 0 }', /tools\[0\] \(match "\*"\).*destructive/],
    ['every tool of one server', '- { match: "*", server: erp, tier: 0 }', /tools\[0\]/],
    ['every tool of an object', '- { match: "*_invoice", tier: 0 }', /"delete_invoice"|"void_invoice"/],
    ['a statement runner', '- { match: run_sql, tier: 0 }', /"run_sql"/],
    ['a destructive tool made a read', '- { match: close_period, access: read }', /"close_period"/],
    [
      'a glob a more specific entry leaves tier 0 for other verbs',
      '- { match: "*", tier: 0 }\n  - { match: "delete_*", tier: 3 }',
      /tools\[0\] \(match "\*"\).*"delete"/,
    ],
  ])('refuses a policy giving tier 0 to %s', async (_case, entries, message) => {
    const load = await start(`tools:\n  ${entries}\n`);
    expect(load).toThrow(/TOOL_POLICY_FILE: tools\[\d\] \(match .*\): gives tier 0 .*destructive tools/);
    expect(load).toThrow(message);
    expect(load).toThrow(/allowUnconfirmedDestructive: true/);
  });

  test.each([
    ['a create', '- { match: create_payment, tier: 0 }'],
    ['the creates', '- { match: "create_*", tier: 0 }'],
    ['the creates of one server, as writes', '- { match: "create_*", server: erp, access: write, tier: 0 }'],
    ['the gets, as reads', '- { match: "get_*", access: read }'],
    ['every tool, when the entry says so', '- { match: "*", tier: 0, allowUnconfirmedDestructive: true }'],
    [
      'a destructive tool, when the entry says so',
      '- { match: void_invoice, tier: 0, allowUnconfirmedDestructive: true }',
    ],
    ['a destructive tool with a tier', '- { match: "delete_*", tier: 3 }'],
    [
      'a glob whose destructive names a more specific entry confirms',
      '- { match: "delete_*", tier: 0 }\n  - { match: "delete_*", server: "*", tier: 3 }',
    ],
  ])('accepts tier 0 for %s', async (_case, entries) => {
    expect((await start(`tools:\n  ${entries}\n`))().TOOL_POLICY_FILE).toBeInstanceOf(ToolPolicy);
  });

  test('refuses tier 0 for every destructive verb, by exact name and by glob, unless the entry allows it', async () => {
    for (const verb of DESTRUCTIVE_VERBS) {
      for (const match of [`${verb}_bill`, `${verb}-*`, `*.${verb}`]) {
        const refused = await start(`tools:\n  - { match: "${match}", tier: 0 }\n`);
        expect(refused, match).toThrow(/gives tier 0/);
        const allowed = await start(
          `tools:\n  - { match: "${match}", tier: 0, allowUnconfirmedDestructive: true }\n`,
        );
        expect(allowed(), match).toHaveProperty('TOOL_POLICY_FILE');
      }
    }
  });

  test('takes allowUnconfirmedDestructive only on an entry that gives tier 0', () => {
    expect(() =>
      ToolPolicy.parse('tools:\n  - { match: "delete_*", tier: 3, allowUnconfirmedDestructive: true }\n'),
    ).toThrow(
      /tools\[0\] \(match "delete_\*"\): allowUnconfirmedDestructive: true is for an entry giving tier 0/,
    );
  });
});

describe('at a listing', () => {
  // Parsed in each test: a file the executor cannot read fails that test, not the whole file.
  const listingPolicy = () =>
    ToolPolicy.parse(
      [
        'tools:',
        '  - { match: "*", tier: 2 }',
        '  - { match: "create_*", tier: 0 }',
        '  - { match: "create_bill", tier: 3 }',
        '  - { match: "create_and_close_*", server: "*", tier: 0, allowUnconfirmedDestructive: true }',
      ].join('\n'),
    );

  test('keeps a destructive tool at its tier, whatever its annotations or name say, unless the entry allows it', () => {
    const policy = listingPolicy();
    const classify = (name: string, annotations?: Record<string, unknown>) =>
      policy.classify(name, annotations, { server: 'books' });
    expect(classify('create_invoice')).toEqual({ access: expect.objectContaining({ tier: 0 }) });
    const hinted = classify('create_snapshot', { destructiveHint: true });
    expect(hinted.access).toMatchObject({ kind: 'write', tier: 3, destructive: true });
    expect(hinted.refused).toBe('tools[1] "create_*"');
    expect(hinted.access.detail).toContain('tier 0 from the tool policy (tools[1] "create_*") refused');
    expect(classify('create_and_void_invoice')).toMatchObject({
      access: { tier: 3 },
      refused: expect.any(String),
    });
    expect(classify('create_and_close_period')).toEqual({ access: expect.objectContaining({ tier: 0 }) });
    // A read the policy gives a destructive tool is refused the same way.
    const read = ToolPolicy.parse('tools:\n  - { match: "*_period", access: read }\n');
    expect(read.classify('close_period', undefined, { server: 'books' })).toMatchObject({
      access: { kind: 'write', tier: 3 },
      refused: 'tools[0] "*_period"',
    });
    expect(read.classify('get_period', undefined, { server: 'books' })).toEqual({
      access: expect.objectContaining({ kind: 'read' }),
    });
  });

  test('refuses tier 0 to a destructive tool a later listing brings, logs an error, and asks for approval', async () => {
    const lines: Record<string, unknown>[] = [];
    const ran: string[] = [];
    const tool = (name: string): SdkTool => ({
      tool: { name, inputSchema: { type: 'object', properties: {} } },
      run: () => {
        ran.push(name);
        return { content: [{ type: 'text', text: 'done' }] };
      },
    });
    const server = await startSdkServer([tool('create_invoice'), tool('create_bill'), tool('list_bills')]);
    cleanups.push(server.close);
    const app = await buildMcpExecutor({
      bus: await nats.bus('mcp-executor'),
      log: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }),
      db,
      config: {
        servers: [{ name: 'books', url: server.url }],
        readTimeoutMs: 5_000,
        writeTimeoutMs: 5_000,
        resultMaxChars: 50_000,
        policy: listingPolicy(),
      },
    });
    await app.start();
    cleanups.push(() => app.stop());
    await expect.poll(() => app.registry.loaded, { timeout: 10_000 }).toBe(true);
    const agent = await nats.bus('agent');
    const execute = (name: string) => {
      const scope = newScope();
      return agent.request(
        'toolExecute',
        scope,
        { tool: name, args: {}, callId: `${scope.requestId}:1`, isWrite: true, argsHash: hashArgs({}) },
        { timeoutMs: 10_000 },
      );
    };

    // The exact entry decides over the glob before it; the admin view's detail names it.
    expect(app.registry.get('create_bill')?.access).toMatchObject({ tier: 3, reason: 'verb' });
    expect(app.registry.get('create_bill')?.access?.detail).toContain(
      'tier 3 from the tool policy (tools[2] "create_bill")',
    );
    expect(app.registry.get('create_invoice')?.access).toMatchObject({ tier: 0 });
    expect(await execute('create_invoice')).toMatchObject({ success: true });

    await server.addTool(tool('create_and_void_invoice'));
    await expect.poll(() => app.registry.get('create_and_void_invoice'), { timeout: 5_000 }).toBeDefined();
    expect(app.registry.get('create_and_void_invoice')?.access).toMatchObject({ tier: 3, destructive: true });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 50,
        server: 'books',
        tool: 'create_and_void_invoice',
        entry: 'tools[1] "create_*"',
        msg: expect.stringContaining('tool policy refused: tier 0 for a destructive tool'),
      }),
    );
    expect(await execute('create_and_void_invoice')).toMatchObject({
      success: false,
      error: { code: 'WRITE_NOT_APPROVED' },
    });
    expect(ran).toEqual(['create_invoice']);

    // What `GET /v1/admin/tools` shows: the deciding entry, and the refusal.
    const rows = await db
      .selectFrom('tool_registry')
      .select(['tool_name', 'confirm_tier', 'access_detail'])
      .where('tool_name', 'in', ['create_bill', 'create_and_void_invoice'])
      .orderBy('tool_name')
      .execute();
    expect(rows).toEqual([
      {
        tool_name: 'create_and_void_invoice',
        confirm_tier: 3,
        access_detail: expect.stringContaining('tier 0 from the tool policy (tools[1] "create_*") refused'),
      },
      {
        tool_name: 'create_bill',
        confirm_tier: 3,
        access_detail: expect.stringContaining('(tools[2] "create_bill")'),
      },
    ]);
  });
});
