// The admin API of pinned tool definitions: changed tools show both
// definitions, an operator accepts or refuses exactly the definition reviewed (its hash), each
// decision is recorded with who made it and announced to the executors, and bad input is named.
import { createHash } from 'node:crypto';
import type { ToolPinChanged } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type FixtureNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { startGateway } from './helpers.ts';

let testBus: FixtureNats;
const ADMIN_KEY = 'admin-key-tool-pins-00001';
let db: Kysely<Database>;
let gateway: Gateway;
let url: string;
const notices: ToolPinChanged[] = [];

const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
const get = (path: string, h: Record<string, string> = headers) => fetch(`${url}${path}`, { headers: h });
const post = (path: string, body: unknown, h: Record<string, string> = headers) =>
  fetch(`${url}${path}`, { method: 'POST', headers: h, body: JSON.stringify(body) });

const definition = (name: string, description: string) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { status: { type: 'string' } } },
});
const hashOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

/** A pin as the executor leaves it: pinned at `pinned`, the server listing `listed` now. */
async function pin(server: string, tool: string, pinned: string, listed = pinned) {
  const before = definition(tool, pinned);
  const after = definition(tool, listed);
  await db
    .insertInto('tool_pins')
    .values({
      server_name: server,
      tool_name: tool,
      pinned_hash: hashOf(before),
      pinned_definition: JSON.stringify(before),
      listed_hash: hashOf(after),
      listed_definition: JSON.stringify(after),
    })
    .execute();
  await db
    .insertInto('tool_registry')
    .values({
      tool_name: tool,
      server_name: server,
      description: pinned,
      is_write: false,
      access_reason: 'verb',
    })
    .onConflict((oc) => oc.column('tool_name').doNothing())
    .execute();
  return { before: hashOf(before), after: hashOf(after) };
}

interface Change {
  server: string;
  tool: string;
  state: string;
  differs: string[];
  pinned: { hash: string; definition: { description: string }; acceptedBy: string | null };
  listed: { hash: string; definition: { description: string } };
  refused: { hash: string; by: string } | null;
}
const changes = async () =>
  ((await (await get('/v1/admin/tools/changes')).json()) as { changes: Change[] }).changes;
const pinStates = async () =>
  Object.fromEntries(
    (
      (await (await get('/v1/admin/tools')).json()) as {
        tools: { name: string; pin: { state: string } | null }[];
      }
    ).tools.map((t) => [t.name, t.pin?.state ?? null]),
  );

test.beforeAll(async ({ nats, db: fileDb }) => {
  testBus = nats;
  db = fileDb;
  ({ gateway, url } = await startGateway(testBus, { GATEWAY_ADMIN_KEYS: ADMIN_KEY }, db));
  const executor = await testBus.bus('mcp-executor');
  executor.listen('toolPinChanged', (message) => void notices.push(message.data));
  await executor.flush();
});

afterAll(async () => {
  await gateway?.stop();
});

describe('changed tool definitions', () => {
  let listInvoices: { before: string; after: string };

  test('lists each changed tool with its pinned and listed definitions, and every tool’s pin state', async () => {
    listInvoices = await pin(
      'books',
      'list_invoices',
      'Lists invoices',
      'Lists invoices and voids old drafts',
    );
    await pin('books', 'get_contact', 'Reads one contact');
    await pin('ledger', 'list_entries', 'Lists entries', 'Lists entries, then posts accruals');
    const found = await changes();
    expect(found.map((c) => [c.server, c.tool, c.state])).toEqual([
      ['books', 'list_invoices', 'changed'],
      ['ledger', 'list_entries', 'changed'],
    ]);
    expect(found[0]).toMatchObject({
      differs: ['description'],
      pinned: { hash: listInvoices.before, definition: { description: 'Lists invoices' }, acceptedBy: null },
      listed: {
        hash: listInvoices.after,
        definition: { description: 'Lists invoices and voids old drafts' },
      },
      refused: null,
    });
    expect(await pinStates()).toEqual({
      get_contact: 'pinned',
      list_entries: 'changed',
      list_invoices: 'changed',
    });
  });

  test('refuses bad input with a 4xx naming what is wrong, and changes nothing', async () => {
    const unknown = await post('/v1/admin/tools/books/post_journal/accept', { hash: listInvoices.after });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      error: { field: 'tool', message: expect.stringContaining('"post_journal"') },
    });

    const stale = await post('/v1/admin/tools/books/list_invoices/accept', { hash: listInvoices.before });
    expect(stale.status).toBe(409);
    const staleBody = (await stale.json()) as { error: { field: string; message: string } };
    expect(staleBody.error.field).toBe('hash');
    expect(staleBody.error.message).toContain(listInvoices.after.slice(0, 12));

    const malformed = await post('/v1/admin/tools/books/list_invoices/accept', { hash: 'abc' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { field: 'hash' } });

    const nothingToDo = await post('/v1/admin/tools/books/get_contact/refuse', {
      hash: hashOf(definition('get_contact', 'Reads one contact')),
    });
    expect(nothingToDo.status).toBe(409);
    expect(await nothingToDo.json()).toMatchObject({
      error: { message: expect.stringContaining('no change awaiting review') },
    });

    const stranger = await post(
      '/v1/admin/tools/books/list_invoices/accept',
      { hash: listInvoices.after },
      {
        'content-type': 'application/json',
      },
    );
    expect(stranger.status).toBe(401);
    expect((await changes()).map((c) => c.state)).toEqual(['changed', 'changed']);
    expect(notices).toEqual([]);
  });

  test('refuses a change, keeping it withheld, and accepts it later, recording who and announcing each', async () => {
    const refused = await post('/v1/admin/tools/books/list_invoices/refuse', { hash: listInvoices.after });
    expect(refused.status).toBe(200);
    expect(await refused.json()).toMatchObject({
      state: 'refused',
      refused: { hash: listInvoices.after, by: expect.stringMatching(/^admin:/) },
    });
    expect((await pinStates()).list_invoices).toBe('refused');
    await expect.poll(() => notices).toEqual([{ reason: 'refused', server: 'books', tool: 'list_invoices' }]);

    const accepted = await post('/v1/admin/tools/books/list_invoices/accept', { hash: listInvoices.after });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({
      state: 'pinned',
      differs: [],
      pinned: { hash: listInvoices.after, acceptedBy: expect.stringMatching(/^admin:/) },
      refused: null,
    });
    await expect
      .poll(() => notices.at(-1))
      .toEqual({ reason: 'accepted', server: 'books', tool: 'list_invoices' });
    const row = await db
      .selectFrom('tool_pins')
      .selectAll()
      .where('tool_name', '=', 'list_invoices')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: 'pinned', pinned_hash: listInvoices.after });
    expect(row.pinned_definition.description).toBe('Lists invoices and voids old drafts');
    expect((await changes()).map((c) => c.tool)).toEqual(['list_entries']);

    // Accepting again is no new decision: the tool has nothing awaiting review.
    const again = await post('/v1/admin/tools/books/list_invoices/accept', { hash: listInvoices.after });
    expect(again.status).toBe(409);
  });
});
