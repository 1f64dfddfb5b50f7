// Tool definitions are pinned, through the whole system: two MCP
// servers written here, one over Streamable HTTP and one spawned over stdio, change a read tool's
// description while the system runs. The changed tool is not offered to the model and a call of it
// never reaches its server until an operator accepts the change through the admin API (bound to
// the definition's hash); then it is offered and called again, by either of two executor instances.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { offeredToolNames } from '@munim/scripted-llm';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { loggedCalls } from '../support/mcp-fixture.ts';
import {
  initialDescriptions,
  type PinnedBooks,
  type PinnedBooksCall,
  startPinnedBooks,
} from '../support/pinned-books.ts';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

const ADMIN_KEY = 'admin-key-pinned-tools-0001';
const TENANT_KEY = 'tenant-key-pinned-tools-0001';
const tenant = { entityId: 'ent-pinned', orgId: 'org-pinned' };
const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };

/** The two servers: their configured name, the read tool whose description changes, and how they run. */
const SERVERS = [
  { transport: 'Streamable HTTP', server: 'books', noun: 'invoices', tool: 'list_invoices' },
  { transport: 'stdio', server: 'vendors', noun: 'bills', tool: 'list_bills' },
] as const;

let sys: TestSystem;
let http: PinnedBooks;
let dir: string;
const descriptionsFile = join(tmpdir(), `pinned-books-${randomUUID()}.json`);
const callLog = () => join(dir, 'stdio-calls.jsonl');

/** What a server has received so far. */
function received(server: string): PinnedBooksCall[] {
  if (server === 'books') return http.calls;
  return loggedCalls(callLog());
}

/** Changes the description of a server's tool the way that server learns of it. */
async function redescribe(server: string, tool: string, description: string): Promise<void> {
  if (server === 'books') return http.describe(tool, description);
  writeFileSync(descriptionsFile, JSON.stringify({ ...initialDescriptions('bills'), [tool]: description }));
}

interface Change {
  server: string;
  tool: string;
  state: string;
  differs: string[];
  pinned: { hash: string; definition: { description: string } };
  listed: { hash: string; definition: { description: string } };
}

const adminGet = async <T>(path: string): Promise<T> => {
  const response = await fetch(`${sys.gatewayUrl}${path}`, { headers: admin });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
};
const changes = async () => (await adminGet<{ changes: Change[] }>('/v1/admin/tools/changes')).changes;
const pinOf = async (server: string, name: string) =>
  (
    await adminGet<{ tools: { name: string; server: string; pin: { state: string } | null }[] }>(
      `/v1/admin/tools?server=${server}`,
    )
  ).tools.find((t) => t.name === name)?.pin?.state;

/** Asks a question for which the model calls `tool`; returns the events and what the model was offered. */
async function askFor(tool: string): Promise<{ events: SseEvent[]; offered: string[] }> {
  const query = `pinned books: ${tool} please ${randomUUID().slice(0, 8)}`;
  sys.llm?.script({
    match: query,
    turns: [{ toolCalls: [{ name: tool, arguments: {} }] }, { content: 'Here is what the books say.' }],
  });
  const { events } = await ask(
    sys.gatewayUrl,
    { query, ...tenant },
    { authorization: `Bearer ${TENANT_KEY}` },
  );
  return { events, offered: offeredToolNames(sys.llm?.requestsFor(query)[0]?.body) };
}

const toolResults = (events: SseEvent[], tool: string) =>
  events.filter((e) => e.event === 'tool_result' && e.data.tool === tool).map((e) => e.data.success);

/** Polls until the model is offered `tool` (or, with `offered` false, no longer offered it). */
async function untilOffered(tool: string, offered: boolean): Promise<void> {
  await expect
    .poll(async () => (await askFor('get_contact')).offered.includes(tool), {
      timeout: 20_000,
      interval: 500,
    })
    .toBe(offered);
}

test.beforeAll(async ({ database, nats }) => {
  dir = mkdtempSync(join(tmpdir(), 'pinned-tools-'));
  http = await startPinnedBooks('invoices');
  const script = fileURLToPath(new URL('../support/pinned-books.ts', import.meta.url));
  const servers = [
    { name: 'books', url: http.url },
    {
      name: 'vendors',
      command: process.execPath,
      args: [script, 'bills'],
      env: { PINNED_BOOKS_DESCRIPTIONS: descriptionsFile, FIXTURE_CALL_LOG: callLog() },
    },
  ];
  writeFileSync(descriptionsFile, JSON.stringify(initialDescriptions('bills')));
  // Two executors: each must withhold the changed tool, and each must hear the operator's decision.
  sys = await startSystem({
    database,
    nats,
    scale: { 'mcp-executor': 2 },
    env: {
      MCP_SERVERS: JSON.stringify(servers),
      GATEWAY_ADMIN_KEYS: ADMIN_KEY,
      GATEWAY_API_KEYS: `${TENANT_KEY}:${tenant.entityId}:${tenant.orgId}`,
      TOOL_STRATEGY: 'direct_llm_all_mcp_tools',
      TOOL_COLLAPSE: 'never',
      TOOLS_CACHE_MS: '1000',
    },
  });
  // Both servers listed and pinned (each lists two tools).
  const deadline = Date.now() + 30_000;
  while ((await sys.db.query('select 1 from tool_pins')).rowCount !== 4) {
    if (Date.now() > deadline) throw new Error(`tools never pinned\n${sys.logs.slice(-20).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 120_000);

afterAll(async () => {
  await sys?.stop();
  await http?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(descriptionsFile, { force: true });
});

describe.each(SERVERS)('a tool whose description changes, over $transport', ({ server, tool }) => {
  let reviewed: Change;

  test('is offered and called while its definition is the pinned one', async () => {
    await untilOffered(tool, true);
    const before = received(server).length;
    const { events } = await askFor(tool);
    expect(toolResults(events, tool)).toEqual([true]);
    expect(received(server)).toHaveLength(before + 1);
    expect(await pinOf(server, tool)).toBe('pinned');
  });

  test('is withheld once its description changes: not offered, and a call of it never reaches the server', async () => {
    await redescribe(server, tool, `Lists the ${tool.slice(5)} with their payment status.`);
    await expect
      .poll(async () => (await changes()).find((c) => c.server === server && c.tool === tool)?.state, {
        timeout: 20_000,
      })
      .toBe('changed');
    reviewed = (await changes()).find((c) => c.tool === tool) as Change;
    expect(reviewed).toMatchObject({
      differs: ['description'],
      pinned: { definition: { description: expect.stringMatching(/^Lists the .* of the books\.$/) } },
      listed: { definition: { description: expect.stringContaining('payment status') } },
    });
    expect(await pinOf(server, tool)).toBe('changed');
    await untilOffered(tool, false);

    const before = received(server).length;
    const { events, offered } = await askFor(tool);
    expect(offered).not.toContain(tool);
    expect(offered).toContain('get_contact');
    expect(toolResults(events, tool)).not.toContain(true);
    expect(events.at(-1)?.event).toBe('complete');
    expect(received(server)).toHaveLength(before);
  });

  test('is offered and called again once an operator accepts the reviewed definition', async () => {
    const stale = await fetch(`${sys.gatewayUrl}/v1/admin/tools/${server}/${tool}/accept`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ hash: reviewed.pinned.hash }),
    });
    expect(stale.status).toBe(409);
    expect(await pinOf(server, tool)).toBe('changed');

    const accepted = await fetch(`${sys.gatewayUrl}/v1/admin/tools/${server}/${tool}/accept`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ hash: reviewed.listed.hash }),
    });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ state: 'pinned', pinned: { hash: reviewed.listed.hash } });
    await untilOffered(tool, true);

    const before = received(server).length;
    const { events } = await askFor(tool);
    expect(toolResults(events, tool)).toEqual([true]);
    expect(received(server)).toHaveLength(before + 1);
    expect(await pinOf(server, tool)).toBe('pinned');
    expect((await changes()).map((c) => c.tool)).not.toContain(tool);
  });
});
