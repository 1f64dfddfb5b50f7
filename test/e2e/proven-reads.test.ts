// "A read must be proven" (docs/mcp-servers.md), end to end on a server munim has never seen: through the
// public HTTP API with the scripted LLM, tools whose names combine a read verb with a change, whose
// server prefix names a change, that run the caller's SQL, or whose description says they change
// something are confirmed at their tier before the server sees anything, then run exactly once;
// an honest read runs at once. One system holds both servers: snake_case names over Streamable
// HTTP, camelCase names spawned over stdio.
import { randomUUID } from 'node:crypto';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import type { Args, ReceivedCall } from '../support/mcp-fixture.ts';
import { ask, type SseEvent } from '../support/sse.ts';
import { type FixtureSystem, startOverFixtures, type TestSystem } from '../support/stack.ts';
import { type UnseenStyle, unseenBooks, unseenNames } from '../support/unseen-books.ts';

const tenant = { entityId: 'ent-proven-reads', orgId: 'org-proven-reads' };
const ADMIN_KEY = `admin-${randomUUID()}`;
const TENANT_KEY = `tenant-${randomUUID()}`;
/** The tenant's key asks; the admin key reads `/v1/admin/tools` (it acts for no tenant). */
const auth = { authorization: `Bearer ${TENANT_KEY}` };
const admin = { authorization: `Bearer ${ADMIN_KEY}` };
const TRANSPORTS = { 'Streamable HTTP': 'snake', stdio: 'camel' } as const satisfies Record<
  string,
  UnseenStyle
>;

const only = (events: SseEvent[], type: string) => events.filter((e) => e.event === type);
const resultsOf = (events: SseEvent[], tool: string) =>
  only(events, 'tool_result')
    .filter((e) => e.data.tool === tool)
    .map((e) => e.data.success);

const SERVER_OF = { snake: 'unseen-http', camel: 'unseen-stdio' } as const;

let fixtures: FixtureSystem;
let sys: TestSystem;
const received = (style: UnseenStyle): ReceivedCall[] => fixtures.received(SERVER_OF[style]);

test.beforeAll(async ({ database, nats }) => {
  fixtures = await startOverFixtures(
    [
      { name: SERVER_OF.snake, http: unseenBooks('snake') },
      {
        name: SERVER_OF.camel,
        stdio: new URL('../support/unseen-books.ts', import.meta.url),
        args: ['camel'],
      },
    ],
    [...Object.values(unseenNames('snake')), ...Object.values(unseenNames('camel'))],
    {
      GATEWAY_ADMIN_KEYS: ADMIN_KEY,
      GATEWAY_API_KEYS: `${TENANT_KEY}:${tenant.entityId}:${tenant.orgId}`,
    },
    { database, nats },
  );
  sys = fixtures.sys;
}, 120_000);

afterAll(async () => {
  await fixtures?.stop();
});

/** Asks `query`, for which the LLM calls `tool` with `args`, then says `closing`. */
async function run(query: string, tool: string, args: Args, closing: string): Promise<SseEvent[]> {
  const unique = `${query} (${randomUUID().slice(0, 8)})`;
  sys.llm?.script({
    match: unique,
    turns: [{ toolCalls: [{ name: tool, arguments: args }] }, { content: closing }],
  });
  return (await ask(sys.gatewayUrl, { query: unique, ...tenant }, auth)).events;
}

/** Confirms the proposal the stream ended with, typing its word where the card asks for one. */
async function confirm(events: SseEvent[]): Promise<SseEvent[]> {
  const mcq = only(events, 'mcq').at(-1)?.data;
  const typed = typeof mcq?.confirm_text === 'string' ? mcq.confirm_text : undefined;
  const res = await ask(
    sys.gatewayUrl,
    {
      ...tenant,
      conversationId: String(events[0]?.data.conversationId),
      mcqResponse: {
        actionId: String(mcq?.actionId),
        value: 'confirm',
        ...(typed ? { typedConfirmation: typed } : {}),
      },
    },
    auth,
  );
  return res.events;
}

describe.each(Object.entries(TRANSPORTS))('a read must be proven, over %s', (_transport, style) => {
  const n = unseenNames(style);
  const sent = (tool: string) => received(style).filter((c) => c.tool === tool);

  const writes = [
    {
      what: 'a compound name: a read verb, then "and pay"',
      query: 'pay bill BILL-0031 in full',
      tool: n.fetchAndPayBill,
      args: { bill_id: 'BILL-0031', amount: 18000 },
      tier: 1,
    },
    {
      what: 'a compound name: "get or create"',
      query: 'add customer Meera Stores',
      tool: n.getOrCreateCustomer,
      args: { name: 'Meera Stores' },
      tier: 1,
    },
    {
      what: 'a statement runner by its name',
      query: 'update the ledger: zero the suspense account',
      tool: n.writeQuery,
      args: { query: "UPDATE ledger SET amount = 0 WHERE account = 'suspense'" },
      tier: 3,
    },
    {
      what: "a read verb whose description runs the caller's SQL",
      query: 'update the books with this query',
      tool: n.readQuery,
      args: { query: 'DELETE FROM invoices WHERE id > 40' },
      tier: 3,
    },
    {
      what: 'a read verb whose description says it marks and sends',
      query: 'send invoice INV-7 to the customer',
      tool: n.viewInvoice,
      args: { invoice_id: 'INV-7' },
      tier: 2,
    },
    {
      what: 'a change verb in the server prefix',
      query: 'purge the ledger entries of the suspense account',
      tool: n.purgeEntries,
      args: { account: 'suspense' },
      tier: 3,
    },
  ];

  test.each(writes)(
    '$what ($tool) is confirmed at tier $tier before anything is sent, then sent once',
    async (w) => {
      const before = sent(w.tool).length;
      const events = await run(w.query, w.tool, w.args, 'Done.');
      const mcq = only(events, 'mcq');
      expect(mcq, JSON.stringify(events.map((e) => e.event))).toHaveLength(1);
      expect(mcq[0]?.data).toMatchObject({ pending_tool: w.tool, tier: expect.any(Number) });
      expect(Number(mcq[0]?.data.tier)).toBeGreaterThanOrEqual(w.tier);
      // The word to type names the change, never the read verb a name hid it behind.
      if (w.tier === 3) expect(mcq[0]?.data.confirm_text).toMatch(/^(WRITE|CONFIRM|PURGE)$/);
      expect(events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'awaiting_confirmation' } });
      expect(resultsOf(events, w.tool)).toEqual([]);
      expect(sent(w.tool)).toHaveLength(before);

      const after = await confirm(events);
      expect(resultsOf(after, w.tool), JSON.stringify(after.map((e) => [e.event, e.data]))).toEqual([true]);
      const calls = sent(w.tool);
      expect(calls).toHaveLength(before + 1);
      expect(calls.at(-1)?.args).toEqual(w.args);
    },
  );

  test(`an honest read (${n.listBills}) runs at once, with no confirmation`, async () => {
    const before = sent(n.listBills).length;
    const events = await run('which bills are unpaid?', n.listBills, {}, 'Two bills are unpaid.');
    expect(only(events, 'mcq')).toEqual([]);
    expect(resultsOf(events, n.listBills)).toEqual([true]);
    expect(sent(n.listBills)).toHaveLength(before + 1);
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
  });

  test('the operator sees each decision and its reason', async () => {
    const res = await fetch(`${sys.gatewayUrl}/v1/admin/tools`, {
      headers: admin,
    });
    expect(res.status).toBe(200);
    const { tools } = (await res.json()) as {
      tools: { name: string; kind: string; reason: string; detail: string }[];
    };
    const of = (name: string) => tools.find((t) => t.name === name);
    expect(of(n.fetchAndPayBill)).toMatchObject({ kind: 'write', reason: 'name' });
    expect(of(n.fetchAndPayBill)?.detail).toContain('"pay"');
    expect(of(n.writeQuery)).toMatchObject({ kind: 'write', reason: 'statement' });
    expect(of(n.readQuery)).toMatchObject({ kind: 'write', reason: 'description' });
    expect(of(n.readQuery)?.detail).toContain('Execute a SELECT query');
    expect(of(n.purgeEntries)?.detail).toContain('prefix');
    expect(of(n.listBills)).toMatchObject({ kind: 'read', reason: 'verb' });
  });
});
