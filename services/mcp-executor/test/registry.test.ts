import type { Bus } from '@munim/bus';
import { catalog, type Message, messageSchema, type ToolsChanged } from '@munim/contracts';
import type { Database } from '@munim/db';
import { createDemoBooks } from '@munim/demo-books';
import { groupsOfToolName, primaryToolGroup } from '@munim/kit';
import { type TestNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { buildMcpExecutor } from '../src/app.ts';
import { diffTools } from '../src/registry-store.ts';
import { log, newScope, readTool, startSdkServer } from './helpers.ts';

let db: Kysely<Database>;
let nats: TestNats;
const cleanups: (() => Promise<void>)[] = [];

test.beforeAll(async ({ nats: fileNats, db: fileDb }) => {
  nats = fileNats;
  db = fileDb;
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** Every toolsChanged notice published on the test prefix, parsed with its schema. */
function recordChanges(bus: Bus): ToolsChanged[] {
  const seen: ToolsChanged[] = [];
  const schema = messageSchema(catalog.toolsChanged.schema);
  const sub = bus.nc.subscribe(bus.subject('toolsChanged'), {
    callback: (_err, msg) => void seen.push((schema.parse(msg.json()) as Message<ToolsChanged>).data),
  });
  cleanups.push(async () => sub.unsubscribe());
  return seen;
}

const registryRows = () => db.selectFrom('tool_registry').selectAll().orderBy('tool_name').execute();

describe('tool registry', () => {
  test('diffs listings by name and definition', () => {
    const a = { name: 'a', inputSchema: {}, isWrite: false };
    const b = { name: 'b', inputSchema: {}, isWrite: false };
    expect(
      diffTools(
        [a, b],
        [
          { ...a, description: 'now described' },
          { name: 'c', inputSchema: {}, isWrite: true },
        ],
      ),
    ).toEqual({
      added: ['c'],
      removed: ['b'],
      changed: ['a'],
    });
    expect(diffTools([a], [a])).toEqual({ added: [], removed: [], changed: [] });
  });

  test('stores the listing, announces changes on list_changed and on the refresh interval, counts usage', async () => {
    const server = await startSdkServer([
      {
        tool: readTool('get_things', { description: 'Lists things', annotations: { readOnlyHint: true } }),
        run: () => ({ content: [{ type: 'text', text: '[1,2]' }] }),
      },
      {
        tool: readTool('archive_thing', { annotations: { readOnlyHint: false, destructiveHint: true } }),
        run: () => ({ content: [{ type: 'text', text: '{"ok":true}' }] }),
      },
    ]);
    cleanups.push(server.close);
    const bus = await nats.bus('validator');
    const changes = recordChanges(bus);
    const app = await buildMcpExecutor({
      bus: await nats.bus('mcp-executor'),
      log,
      db,
      config: {
        serverUrl: server.url,
        readTimeoutMs: 5_000,
        writeTimeoutMs: 5_000,
        resultMaxChars: 50_000,
        registryRefreshMs: 300,
        usageFlushMs: 100,
      },
    });
    await app.start();
    cleanups.push(() => app.stop());

    await expect.poll(() => changes.length, { timeout: 5_000 }).toBe(1);
    expect(changes[0]).toEqual({
      reason: 'connected',
      added: ['archive_thing', 'get_things'].sort(),
      removed: [],
      changed: [],
      total: 2,
    });
    const rows = await registryRows();
    expect(rows.map((r) => [r.tool_name, r.is_write])).toEqual([
      ['archive_thing', true],
      ['get_things', false],
    ]);
    expect(rows[1]).toMatchObject({
      description: 'Lists things',
      input_schema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
      tool_group: null,
      usage_count: 0,
    });
    expect(rows[1]?.last_seen_at).toBeInstanceOf(Date);

    await server.addTool({ tool: readTool('get_more'), run: () => ({ content: [] }) });
    await expect.poll(() => changes.length, { timeout: 5_000 }).toBe(2);
    expect(changes[1]).toMatchObject({ added: ['get_more'], removed: [], total: 3 });
    expect(['list_changed', 'periodic']).toContain(changes[1]?.reason);
    await expect.poll(async () => (await registryRows()).map((r) => r.tool_name)).toContain('get_more');

    // Nobody is told of this removal; the periodic refresh finds it.
    server.removeToolQuietly('get_more');
    await expect.poll(() => changes.length, { timeout: 5_000 }).toBe(3);
    expect(changes[2]).toEqual({
      reason: 'periodic',
      added: [],
      removed: ['get_more'],
      changed: [],
      total: 2,
    });
    // A refresh that finds nothing new announces nothing.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(changes).toHaveLength(3);

    const scope = newScope();
    for (const n of [1, 2, 3]) {
      const reply = await bus.request(
        'toolExecute',
        scope,
        { tool: 'get_things', args: {}, callId: `${scope.requestId}:${n}`, isWrite: false, argsHash: 'h' },
        { timeoutMs: 5_000 },
      );
      expect(reply).toMatchObject({ success: true, result: [1, 2] });
    }
    await expect
      .poll(async () => (await registryRows()).find((r) => r.tool_name === 'get_things')?.usage_count)
      .toBe(3);
  });

  test('files each tool under its group of the shared table, by the name the server gave it', async () => {
    const books = await createDemoBooks().listen();
    cleanups.push(books.close);
    const app = await buildMcpExecutor({
      bus: await nats.bus('mcp-executor'),
      log,
      db,
      config: {
        // The second server lists the same tools: they come out as `accounting__<name>`, and the
        // prefix's "account" stem must not outweigh the tool's own.
        servers: [
          { name: 'books', url: books.url },
          { name: 'accounting', url: books.url },
        ],
        readTimeoutMs: 5_000,
        writeTimeoutMs: 5_000,
        resultMaxChars: 50_000,
      },
    });
    await app.start();
    cleanups.push(() => app.stop());
    await expect
      .poll(async () => (await registryRows()).map((r) => r.tool_name), { timeout: 10_000 })
      .toEqual(expect.arrayContaining(['create_payment', 'accounting__get_bill']));

    const groups = new Map((await registryRows()).map((r) => [r.tool_name, r.tool_group]));
    expect(
      Object.fromEntries(
        [
          'create_payment',
          'get_all_invoices',
          'void_invoice',
          'get_bills',
          'create_bill_payment',
          'get_all_vendors',
          'delete_contact',
          'get_all_sales_credit_notes',
          'get_charts_of_accounts',
          'get_aged_receivables_report',
          'get_aged_payables_report',
          'get_profit_loss',
          'get_balance_sheet',
          'get_cash_flow_statement',
          'get_gst_summary',
          'create_journal_entry',
          'accounting__get_all_vendors',
          'accounting__get_bill',
          'accounting__get_charts_of_accounts',
        ].map((name) => [name, groups.get(name)]),
      ),
    ).toEqual({
      create_payment: 'payments',
      get_all_invoices: 'invoices',
      void_invoice: 'invoices',
      get_bills: 'bills',
      // In both the bills and the payments container; filed under the longer stem.
      create_bill_payment: 'payments',
      get_all_vendors: 'vendors',
      // "contact" is a stem of customers and of vendors; the first in the table wins the tie.
      delete_contact: 'customers',
      get_all_sales_credit_notes: 'credit_notes',
      get_charts_of_accounts: 'accounts',
      get_aged_receivables_report: 'aging_reports',
      get_aged_payables_report: 'reports_payables',
      get_profit_loss: 'reports_pnl',
      get_balance_sheet: 'reports_balance',
      get_cash_flow_statement: 'reports_cashflow',
      get_gst_summary: 'reports_gst',
      create_journal_entry: 'journal',
      accounting__get_all_vendors: 'vendors',
      accounting__get_bill: 'bills',
      accounting__get_charts_of_accounts: 'accounts',
    });
    // Every demo tool has a group, and it is one the validator's containers put the tool in.
    for (const [name, group] of groups) {
      if (name.startsWith('accounting__') || !app.registry.get(name)) continue;
      expect(groupsOfToolName(name), name).toContain(group);
    }
  });
});

describe('primaryToolGroup', () => {
  test('picks the longest stem, the table order on a tie, and null when no stem fits', () => {
    expect(primaryToolGroup('get_expense_breakdown')).toBe('reports_pnl');
    expect(primaryToolGroup('list_expenses')).toBe('expenses');
    expect(primaryToolGroup('list_contacts')).toBe('customers');
    expect(primaryToolGroup('get-sum')).toBeNull();
    expect(primaryToolGroup('echo')).toBeNull();
    expect(primaryToolGroup('')).toBeNull();
  });
});
