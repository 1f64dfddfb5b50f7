// Tool definitions are pinned, so a server cannot change a tool under its approval: a tool whose wire definition changes
// between listings is not offered and not called until an operator accepts the change, across
// restarts and instances, on real PostgreSQL and NATS with an MCP server written with the SDK.
import type { ToolList } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type TestNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, describe, expect } from 'vitest';
import { buildMcpExecutor } from '../src/app.ts';
import { definitionHash, MemoryPins, PgPins, type PinStore, wireDefinition } from '../src/pins.ts';
import { ToolPolicy } from '../src/policy.ts';
import { ServerPool } from '../src/pool.ts';
import type { ListedTool } from '../src/registry.ts';
import { newScope, readTool, type SdkTool, startSdkServer } from './helpers.ts';

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

const listed = (name: string, extra: Partial<ListedTool> = {}): ListedTool => ({
  name,
  inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
  ...extra,
});

/** A small seeded generator, so a failure names a seed that reproduces it. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('wire definitions', () => {
  test('hash the same whatever order a server writes keys in, and differently when any part changes', () => {
    const next = random(2026);
    const word = () => Math.floor(next() * 36 ** 4).toString(36);
    for (let i = 0; i < 300; i += 1) {
      const properties = Object.fromEntries(
        Array.from({ length: 1 + Math.floor(next() * 5) }, () => [word(), { type: 'string' }]),
      );
      const tool = listed(`tool_${word()}`, {
        title: word(),
        description: `${word()} ${word()}`,
        inputSchema: { type: 'object', properties, required: Object.keys(properties).slice(0, 1) },
        annotations: { readOnlyHint: next() < 0.5, destructiveHint: next() < 0.5 },
      });
      const hash = definitionHash(wireDefinition(tool));
      const reordered = {
        annotations: Object.fromEntries(Object.entries(tool.annotations ?? {}).reverse()),
        inputSchema: Object.fromEntries(
          Object.entries(tool.inputSchema)
            .reverse()
            .map(([k, v]) => [
              k,
              k === 'properties' ? Object.fromEntries(Object.entries(properties).reverse()) : v,
            ]),
        ),
        description: tool.description,
        title: tool.title,
        name: tool.name,
      } as ListedTool;
      expect(definitionHash(wireDefinition(reordered)), `seed 2026, tool ${i}`).toBe(hash);
      const changes: Partial<ListedTool>[] = [
        { name: `${tool.name}x` },
        { title: `${tool.title}.` },
        { title: undefined },
        { description: `${tool.description} and deletes it` },
        { inputSchema: { ...tool.inputSchema, required: [] } },
        { inputSchema: { ...tool.inputSchema, properties: { ...properties, extra: { type: 'number' } } } },
        { annotations: { ...tool.annotations, readOnlyHint: !tool.annotations?.readOnlyHint } },
        { annotations: undefined },
      ];
      for (const change of changes) {
        expect(definitionHash(wireDefinition({ ...tool, ...change })), JSON.stringify(change)).not.toBe(hash);
      }
    }
  });
});

describe.each([
  ['PostgreSQL', () => new PgPins(db)],
  ['memory', () => new MemoryPins()],
])('pins in %s', (_, make) => {
  test('pin the first listing, withhold a change, pin an addition, and take a revert back', async () => {
    const pins = make();
    const server = `books-${Math.random().toString(36).slice(2, 8)}`;
    const first = await pins.record(server, [listed('list_invoices'), listed('create_invoice')]);
    expect([...first.values()].map((v) => [v.state, v.added])).toEqual([
      ['pinned', false],
      ['pinned', false],
    ]);
    const pinnedHash = first.get('list_invoices')?.hash;

    const changed = await pins.record(server, [
      listed('list_invoices', { description: 'Lists invoices, then voids the overdue ones' }),
      listed('create_invoice'),
      listed('get_contact'),
    ]);
    expect(changed.get('list_invoices')).toMatchObject({ state: 'changed', added: false });
    expect(changed.get('list_invoices')?.hash).not.toBe(pinnedHash);
    expect(changed.get('create_invoice')).toMatchObject({ state: 'pinned', added: false });
    expect(changed.get('get_contact')).toMatchObject({ state: 'pinned', added: true });

    // Back to what was pinned: offered again, nobody needed.
    const reverted = await pins.record(server, [listed('list_invoices'), listed('get_contact')]);
    expect(reverted.get('list_invoices')).toEqual({ state: 'pinned', hash: pinnedHash, added: false });

    // Removed, then listed again with another definition: still the old pin decides.
    await pins.record(server, [listed('get_contact')]);
    const readded = await pins.record(server, [listed('create_invoice', { title: 'Create and send' })]);
    expect(readded.get('create_invoice')).toMatchObject({ state: 'changed', added: false });

    // The same server under another name has pins of its own.
    const other = await pins.record(`${server}-eu`, [
      listed('list_invoices', { description: 'Lists invoices, then voids the overdue ones' }),
    ]);
    expect(other.get('list_invoices')).toMatchObject({ state: 'pinned', added: false });
  });
});

describe('pins shared by several executor instances', () => {
  test('agree when instances record the same first listing at once, and see each other’s changes', async () => {
    const server = 'shared-books';
    const instances = [new PgPins(db), new PgPins(db), new PgPins(db)];
    const tools = Array.from({ length: 20 }, (_, i) => listed(`get_thing_${i}`));
    const verdicts = await Promise.all(instances.map((pins) => pins.record(server, tools)));
    for (const verdict of verdicts) {
      expect([...verdict.values()].every((v) => v.state === 'pinned')).toBe(true);
    }
    const changedTools = tools.map((t, i) => (i === 3 ? { ...t, description: 'now it posts' } : t));
    await instances[0]?.record(server, changedTools);
    const seen = await instances[2]?.record(server, changedTools);
    expect(seen?.get('get_thing_3')?.state).toBe('changed');
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from tool_pins where server_name = ${server}`.execute(db);
    expect(rows[0]?.n).toBe(20);
  });
});

describe('an executor with pinned tools', () => {
  test('withholds a changed tool from the registry and refuses its calls until the change is accepted', async () => {
    const lines: Record<string, unknown>[] = [];
    const captured = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const ran: string[] = [];
    const tool = (name: string, description: string): SdkTool => ({
      tool: readTool(name, { description }),
      run: () => {
        ran.push(name);
        return { content: [{ type: 'text', text: '[{"InvoiceNumber":"INV-1"}]' }] };
      },
    });
    const server = await startSdkServer([
      tool('list_invoices', 'Lists invoices'),
      tool('get_contact', 'Reads one contact'),
    ]);
    cleanups.push(server.close);
    const start = async () => {
      const app = await buildMcpExecutor({
        bus: await nats.bus('mcp-executor'),
        log: captured,
        db,
        config: {
          servers: [{ name: 'pinned-books', url: server.url }],
          readTimeoutMs: 5_000,
          writeTimeoutMs: 5_000,
          resultMaxChars: 50_000,
        },
      });
      await app.start();
      cleanups.push(() => app.stop());
      return app;
    };
    const gateway = await nats.bus('gateway');
    const agent = await nats.bus('agent');
    const offered = async () =>
      ((await agent.request('toolsList', newScope(), {}, { timeoutMs: 5_000 })) as ToolList).tools
        .map((t) => t.name)
        .sort();
    const call = (name: string) => {
      const scope = newScope();
      return agent.request(
        'toolExecute',
        scope,
        { tool: name, args: {}, callId: `${scope.requestId}:1`, isWrite: false, argsHash: 'h' },
        { timeoutMs: 5_000 },
      );
    };

    let app = await start();
    await expect.poll(offered, { timeout: 5_000 }).toEqual(['get_contact', 'list_invoices']);

    await server.addTool(tool('list_invoices', 'Lists the invoices, newest first'));
    await expect.poll(offered, { timeout: 5_000 }).toEqual(['get_contact']);
    const refused = await call('list_invoices');
    expect(refused).toMatchObject({ success: false, error: { code: 'TOOL_BLOCKED' } });
    expect(refused.error?.message).toMatch(/"list_invoices".*"pinned-books".*definition changed/);
    expect(ran).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({ server: 'pinned-books', tool: 'list_invoices', state: 'changed' }),
    );

    // An addition is classified by the normal rule, pinned and logged.
    await server.addTool({
      tool: { name: 'void_invoice', inputSchema: { type: 'object' } },
      run: () => ({ content: [] }),
    });
    await expect.poll(offered, { timeout: 5_000 }).toContain('void_invoice');
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'tool added: classified and pinned',
        server: 'pinned-books',
        tool: 'void_invoice',
        kind: 'write',
      }),
    );

    // A restart does not forget: the change is still withheld.
    await app.stop();
    app = await start();
    await expect.poll(() => app.registry.loaded, { timeout: 5_000 }).toBe(true);
    expect(await offered()).toEqual(['get_contact', 'void_invoice']);

    // An operator refuses (what the gateway's admin API writes): still withheld, and the refusal says so.
    await db
      .updateTable('tool_pins')
      .set((eb) => ({
        refused_hash: eb.ref('listed_hash'),
        refused_by: 'admin:test',
        refused_at: new Date(),
      }))
      .where('server_name', '=', 'pinned-books')
      .where('tool_name', '=', 'list_invoices')
      .execute();
    gateway.broadcast('toolPinChanged', { reason: 'refused', server: 'pinned-books', tool: 'list_invoices' });
    await expect
      .poll(async () => (await call('list_invoices')).error?.message, { timeout: 5_000 })
      .toMatch(/"list_invoices".*an operator refused/);
    expect(await offered()).toEqual(['get_contact', 'void_invoice']);

    // An operator accepts (what the gateway's admin API writes) and says so on the bus.
    await db
      .updateTable('tool_pins')
      .set((eb) => ({
        pinned_hash: eb.ref('listed_hash'),
        pinned_definition: sql<string>`listed_definition`,
      }))
      .where('server_name', '=', 'pinned-books')
      .where('tool_name', '=', 'list_invoices')
      .execute();
    gateway.broadcast('toolPinChanged', {
      reason: 'accepted',
      server: 'pinned-books',
      tool: 'list_invoices',
    });
    await expect.poll(offered, { timeout: 5_000 }).toEqual(['get_contact', 'list_invoices', 'void_invoice']);
    const accepted = await call('list_invoices');
    expect(accepted, JSON.stringify(accepted.error)).toMatchObject({ success: true });
    expect(ran).toEqual(['list_invoices']);
    expect(app.registry.get('list_invoices')?.description).toBe('Lists the invoices, newest first');
  });
});

describe('one server under two names', () => {
  test('keeps a pin per name: accepting a change under one name leaves it withheld under the other', async () => {
    const server = await startSdkServer([
      { tool: readTool('list_bills', { description: 'Lists bills' }), run: () => ({ content: [] }) },
    ]);
    cleanups.push(server.close);
    const app = await buildMcpExecutor({
      bus: await nats.bus('mcp-executor'),
      log: pino({ level: 'silent' }),
      db,
      config: {
        servers: [
          { name: 'bills-in', url: server.url },
          { name: 'bills-eu', url: server.url },
        ],
        readTimeoutMs: 5_000,
        writeTimeoutMs: 5_000,
        resultMaxChars: 50_000,
      },
    });
    await app.start();
    cleanups.push(() => app.stop());
    const offered = () =>
      app.registry
        .list()
        .map((t) => t.name)
        .sort();
    await expect.poll(offered, { timeout: 5_000 }).toEqual(['bills-eu__list_bills', 'list_bills']);

    await server.addTool({
      tool: readTool('list_bills', { description: 'Lists bills due this week' }),
      run: () => ({ content: [] }),
    });
    await expect.poll(offered, { timeout: 5_000 }).toEqual([]);

    await db
      .updateTable('tool_pins')
      .set((eb) => ({
        pinned_hash: eb.ref('listed_hash'),
        pinned_definition: sql<string>`listed_definition`,
      }))
      .where('server_name', '=', 'bills-in')
      .execute();
    const gateway = await nats.bus('gateway');
    gateway.broadcast('toolPinChanged', { reason: 'accepted', server: 'bills-in', tool: 'list_bills' });
    await expect.poll(offered, { timeout: 5_000 }).toEqual(['list_bills']);

    const scope = newScope();
    const refused = await app.execute({
      id: scope.requestId,
      service: 'agent',
      ts: new Date().toISOString(),
      ...scope,
      data: {
        tool: 'bills-eu__list_bills',
        args: {},
        callId: `${scope.requestId}:1`,
        isWrite: false,
        argsHash: 'h',
      },
    });
    expect(refused).toMatchObject({ success: false, error: { code: 'TOOL_BLOCKED' } });
    expect(refused.error?.message).toContain('"bills-eu"');
    expect(server.calls).toEqual([]);
  });
});

describe('pins that cannot be checked', () => {
  test('leave the tools as they were, keep the session, and withhold the change once they can be', async () => {
    const server = await startSdkServer([
      { tool: readTool('list_journals', { description: 'Lists journals' }), run: () => ({ content: [] }) },
    ]);
    cleanups.push(server.close);
    const lines: Record<string, unknown>[] = [];
    const memory = new MemoryPins();
    let down = false;
    const pins: PinStore = {
      record: (name, tools) =>
        down
          ? Promise.reject(
              Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
            )
          : memory.record(name, tools),
    };
    const pool = new ServerPool({
      specs: [{ name: 'journals', url: server.url }],
      log: pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) }),
      policy: ToolPolicy.none,
      listTimeoutMs: 5_000,
      onToolsChanged: () => undefined,
      pins,
    });
    pool.start();
    cleanups.push(() => pool.stop());
    await expect
      .poll(() => pool.registry.get('list_journals')?.description, { timeout: 5_000 })
      .toBe('Lists journals');

    down = true;
    await server.addTool({
      tool: readTool('list_journals', { description: 'Lists journals and reverses drafts' }),
      run: () => ({ content: [] }),
    });
    await expect
      .poll(() => lines.some((l) => String(l.err).includes('could not check the tool pins')), {
        timeout: 5_000,
      })
      .toBe(true);
    expect(pool.registry.get('list_journals')?.description).toBe('Lists journals');
    expect(pool.connected).toBe(true);
    expect(lines.map((l) => l.msg)).not.toContain('MCP session lost; reconnecting');

    down = false;
    await pool.refresh('pins back');
    expect(pool.registry.get('list_journals')).toBeUndefined();
    expect(pool.withheld('list_journals')).toMatch(/definition changed/);
  });
});

describe('a change noticed during a reload', () => {
  test('is not lost: an ask during a reload gets one more reload after it', async () => {
    const server = await startSdkServer([
      {
        tool: readTool('list_credit_notes', { description: 'Lists credit notes' }),
        run: () => ({ content: [] }),
      },
    ]);
    cleanups.push(server.close);
    const memory = new MemoryPins();
    let hold: Promise<void> | undefined;
    const pins: PinStore = {
      record: async (name, tools) => {
        const verdicts = await memory.record(name, tools);
        await hold;
        return verdicts;
      },
    };
    const pool = new ServerPool({
      specs: [{ name: 'notes', url: server.url }],
      log: pino({ level: 'silent' }),
      policy: ToolPolicy.none,
      listTimeoutMs: 5_000,
      onToolsChanged: () => undefined,
      pins,
    });
    pool.start();
    cleanups.push(() => pool.stop());
    await expect
      .poll(() => pool.registry.get('list_credit_notes') !== undefined, { timeout: 5_000 })
      .toBe(true);

    // A periodic reload lists the old definition and is held before it applies it.
    const { promise, resolve } = Promise.withResolvers<void>();
    hold = promise;
    const periodic = pool.refresh('periodic');
    await new Promise((done) => setTimeout(done, 100));
    await server.addTool({
      tool: readTool('list_credit_notes', { description: 'Lists credit notes and applies them to invoices' }),
      run: () => ({ content: [] }),
    });
    const noticed = pool.refresh('list_changed');
    hold = undefined;
    resolve();
    await periodic;
    await noticed;
    expect(pool.registry.get('list_credit_notes')).toBeUndefined();
    expect(pool.withheld('list_credit_notes')).toMatch(/definition changed/);
  });
});
