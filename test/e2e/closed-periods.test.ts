// End to end: closed periods. An admin closes an entity's books up to a day through the admin API
// (a row of the audit trail); a write dated on or before it is blocked with a `write_validation`
// block (`period_locked`) naming the lock date as the business writes dates, and the books never
// see it; one dated after it is proposed as usual; a write with no date counts as dated today.
// The date is found by meaning: the demo books' `Date` beside generated date fields in other
// naming styles and nested documents, on a second MCP server. All six services run as processes
// on the real NATS and a fresh PostgreSQL, with the demo books and a scripted model.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDemoBooks } from '@munim/demo-books';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { bearerJson } from '../support/http.ts';
import { type HttpFixture, jsonResult, serveHttp } from '../support/mcp-fixture.ts';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem, waitForTools } from '../support/stack.ts';

const ADMIN_KEY = `admin-${randomBytes(12).toString('hex')}`;
const OWNER_A = `owner-a-${randomBytes(12).toString('hex')}`;
const OWNER_B = `owner-b-${randomBytes(12).toString('hex')}`;
const APPROVER_A = `approver-a-${randomBytes(12).toString('hex')}`;
const A = { entityId: 'ent-closed-a', orgId: 'org-closed' };
const B = { entityId: 'ent-closed-b', orgId: 'org-closed' };

const text = { type: 'string' };
const money = { type: 'number' };

/** Write tools of another server, their dates named in other styles, one in a nested document. */
const LEDGER_TOOLS = [
  {
    name: 'create_sales_voucher',
    properties: {
      voucher: {
        type: 'object',
        properties: { VOUCHER_DATE: text, PARTY_NAME: text, AMOUNT: money },
      },
    },
    field: (date: string) => ({ voucher: { VOUCHER_DATE: date, PARTY_NAME: 'Acme', AMOUNT: 1200 } }),
  },
  {
    name: 'recordReceipt',
    properties: { receiptDate: text, customer: text, amount: money },
    field: (date: string) => ({ receiptDate: date, customer: 'Acme', amount: 500 }),
  },
  {
    name: 'post-expense-entry',
    properties: { 'expense-date': text, amount: money, description: text },
    field: (date: string) => ({ 'expense-date': date, amount: 250, description: 'Tea' }),
  },
] as const;

const ledgerSpec = {
  name: 'ledger',
  tools: () =>
    LEDGER_TOOLS.map((t) => ({
      name: t.name,
      description: `Records a ${t.name.replace(/[_-]/g, ' ')} in the ledger.`,
      inputSchema: { type: 'object' as const, properties: t.properties },
    })),
  call: (tool: string) => jsonResult({ ok: true, tool }),
};

let sys: TestSystem;
let ledger: HttpFixture;
let books: ReturnType<typeof createDemoBooks>;
let booksServer: { url: string; close(): Promise<void> };
let accounts: [string, string];

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const words = (iso: string, locale: string) =>
  new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${iso}T00:00:00Z`),
  );
const LOCK = day(-60);

test.beforeAll(async ({ database, nats }) => {
  // Expenses in the ledger wait for an approver after their maker's confirmation.
  const policyFile = join(mkdtempSync(join(tmpdir(), 'munim-closed-')), 'policy.yaml');
  writeFileSync(
    policyFile,
    "rules:\n  - match: { tool: 'post-expense-entry' }\n    approvers: 1\n    roles: [approver]\n",
  );
  books = createDemoBooks();
  booksServer = await books.listen(0, '127.0.0.1');
  ledger = await serveHttp(ledgerSpec);
  sys = await startSystem({
    database,
    nats,
    env: {
      GATEWAY_ADMIN_KEYS: ADMIN_KEY,
      GATEWAY_API_KEYS: [
        `${OWNER_A}:${A.entityId}:${A.orgId}`,
        `${APPROVER_A}:${A.entityId}:${A.orgId}:u-approver:approver`,
        `${OWNER_B}:${B.entityId}:${B.orgId}`,
      ].join(','),
      APPROVAL_POLICY_FILE: policyFile,
      MCP_SERVERS: JSON.stringify([
        { name: 'books', url: booksServer.url },
        { name: 'ledger', url: ledger.url },
      ]),
      TOOL_STRATEGY: 'direct_llm_all_mcp_tools',
      TOOL_COLLAPSE: 'never',
    },
  });
  await waitForTools(sys, ['create_journal_entry', ...LEDGER_TOOLS.map((t) => t.name)]);
  const code = (c: string) => books.store.accounts.find((a) => a.Code === c)?.AccountId ?? '';
  accounts = [code('1000'), books.store.accounts.find((a) => a.Type === 'EXPENSE')?.AccountId ?? ''];
  expect(accounts.every(Boolean)).toBe(true);
});

afterAll(async () => {
  await sys?.stop();
  await ledger?.close();
  await booksServer?.close();
});

const admin = (method: string, path: string, body: unknown, key = ADMIN_KEY) =>
  fetch(`${sys.gatewayUrl}${path}`, { method, headers: bearerJson(key), body: JSON.stringify(body) });

/** The scripted model makes `call` when asked; what the stream said, and what the model was told. */
async function write(tenant: typeof A, key: string, tool: string, args: Record<string, unknown>) {
  const tag = randomBytes(4).toString('hex');
  const query = `record entry ${tag}`;
  sys.llm?.script({
    match: query,
    turns: [{ toolCalls: [{ name: tool, arguments: args }] }, { content: 'Understood.' }],
  });
  const { events } = await ask(sys.gatewayUrl, { query, ...tenant }, { authorization: `Bearer ${key}` });
  const told = (sys.llm?.requestsFor(query) ?? [])
    .flatMap((r) => r.body.messages)
    .filter((m) => m.role === 'tool')
    .map((m) => String(m.content))
    .join('\n');
  return { events, told };
}

const journal = (date?: string) => ({
  Lines: [
    { AccountId: accounts[1], DebitAmount: 100, Description: 'Stationery' },
    { AccountId: accounts[0], CreditAmount: 100, Description: 'Stationery' },
  ],
  Narration: `Stationery ${randomBytes(3).toString('hex')}`,
  ...(date ? { Date: date } : {}),
});

const blocks = (events: SseEvent[]) =>
  events.filter((e) => e.event === 'write_validation' && e.data.status === 'blocked');

/** The stream ended with the write blocked for the closed period, naming the lock date in `locale`'s words. */
function expectLocked(result: { events: SseEvent[]; told: string }, lock: string, locale = 'en-IN') {
  const [block] = blocks(result.events);
  expect(block, JSON.stringify(result.events.map((e) => [e.event, e.data]).slice(-6))).toBeDefined();
  expect(block?.data.errors).toEqual([expect.objectContaining({ code: 'period_locked' })]);
  expect(String(block?.data.message)).toContain(`The books are closed up to ${words(lock, locale)}`);
  expect(result.events.some((e) => e.event === 'mcq')).toBe(false);
  expect(result.events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
  // The model is told why, as for any other block.
  expect(result.told).toContain('period_locked');
  expect(result.told).toContain(words(lock, locale));
}

function expectProposed(result: { events: SseEvent[] }) {
  expect(blocks(result.events)).toEqual([]);
  expect(result.events.some((e) => e.event === 'mcq')).toBe(true);
  expect(result.events.at(-1)).toMatchObject({
    event: 'complete',
    data: { status: 'awaiting_confirmation' },
  });
}

describe('closed periods', () => {
  test('an admin closes the books up to a day; the change is on the audit trail', async () => {
    const res = await admin('PUT', `/v1/admin/entities/${A.entityId}/lock-date?orgId=${A.orgId}`, {
      lockDate: LOCK,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ lockDate: LOCK, lockDateText: words(LOCK, 'en-IN') });
    const audit = await fetch(`${sys.gatewayUrl}/v1/audit`, { headers: bearerJson(OWNER_A) });
    expect(audit.status).toBe(200);
    const { rows } = (await audit.json()) as {
      rows: { action: string; summary: string; entityId: string }[];
    };
    expect(rows).toContainEqual(
      expect.objectContaining({
        entityId: A.entityId,
        action: 'locked',
        summary: `Closed the books up to ${words(LOCK, 'en-IN')} (before: no period closed).`,
      }),
    );
  });

  test('a demo books write dated inside the closed period, or on its last day, is blocked and never sent', async () => {
    for (const date of [day(-70), LOCK, day(-400)]) {
      const entry = journal(date);
      expectLocked(await write(A, OWNER_A, 'create_journal_entry', entry), LOCK);
      expect(books.calls().filter((c) => c.args.Narration === entry.Narration)).toEqual([]);
    }
  });

  test('a write dated after the lock is proposed as usual', async () => {
    expectProposed(await write(A, OWNER_A, 'create_journal_entry', journal(day(-59))));
    expectProposed(await write(A, OWNER_A, 'create_journal_entry', journal(day(-1))));
  });

  test('dates in other styles and nested documents are found by meaning', async () => {
    for (const tool of LEDGER_TOOLS) {
      const before = ledger.calls.length;
      expectLocked(await write(A, OWNER_A, tool.name, tool.field(day(-90))), LOCK);
      expect(ledger.calls.length, tool.name).toBe(before);
      expectProposed(await write(A, OWNER_A, tool.name, tool.field(day(-30))));
    }
  });

  test('a proposal whose date the books closed over before it was confirmed is not made', async () => {
    const entry = journal(day(-50));
    const proposed = await write(A, OWNER_A, 'create_journal_entry', entry);
    expectProposed(proposed);
    const card = proposed.events.find((e) => e.event === 'mcq');
    const conversationId = String(proposed.events[0]?.data.conversationId);
    await admin('PUT', `/v1/admin/entities/${A.entityId}/lock-date?orgId=${A.orgId}`, { lockDate: day(-45) });
    const confirmed = await ask(
      sys.gatewayUrl,
      {
        ...A,
        conversationId,
        mcqResponse: {
          actionId: String(card?.data.actionId),
          value: 'confirm',
          ...(card?.data.confirm_text ? { typedConfirmation: card.data.confirm_text } : {}),
        },
      },
      { authorization: `Bearer ${OWNER_A}` },
    );
    expect(blocks(confirmed.events)[0]?.data.errors).toEqual([
      expect.objectContaining({ code: 'period_locked' }),
    ]);
    expect(confirmed.events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'needs_input' } });
    expect(books.calls().filter((c) => c.args.Narration === entry.Narration)).toEqual([]);
    await admin('PUT', `/v1/admin/entities/${A.entityId}/lock-date?orgId=${A.orgId}`, { lockDate: LOCK });
  });

  test('a write waiting for its approver when the books close over its date is not sent when approved', async () => {
    const tool = LEDGER_TOOLS[2];
    const proposed = await write(A, OWNER_A, tool.name, tool.field(day(-40)));
    expectProposed(proposed);
    const card = proposed.events.find((e) => e.event === 'mcq');
    const actionId = String(card?.data.actionId);
    const confirmed = await ask(
      sys.gatewayUrl,
      {
        ...A,
        conversationId: String(proposed.events[0]?.data.conversationId),
        mcqResponse: {
          actionId,
          value: 'confirm',
          ...(card?.data.confirm_text ? { typedConfirmation: card.data.confirm_text } : {}),
        },
      },
      { authorization: `Bearer ${OWNER_A}` },
    );
    expect(
      confirmed.events.at(-1),
      JSON.stringify(confirmed.events.map((e) => [e.event, e.data])),
    ).toMatchObject({
      event: 'complete',
      data: { status: 'awaiting_approval' },
    });
    const sent = ledger.calls.length;
    await admin('PUT', `/v1/admin/entities/${A.entityId}/lock-date?orgId=${A.orgId}`, { lockDate: day(-35) });
    const approved = await fetch(`${sys.gatewayUrl}/v1/approvals/${actionId}`, {
      method: 'POST',
      headers: bearerJson(APPROVER_A),
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(await approved.json()).toMatchObject({
      status: 'failed',
      error: expect.stringContaining(`The books are closed up to ${words(day(-35), 'en-IN')}`),
    });
    expect(ledger.calls.length).toBe(sent);
    await admin('PUT', `/v1/admin/entities/${A.entityId}/lock-date?orgId=${A.orgId}`, { lockDate: LOCK });
  });

  test('an undated write counts as dated today', async () => {
    // Today is after the lock: proposed.
    expectProposed(await write(A, OWNER_A, 'create_journal_entry', journal()));
    // The books closed through tomorrow (today wherever the business is): blocked.
    const through = day(1);
    await admin('PUT', `/v1/admin/entities/${A.entityId}/lock-date?orgId=${A.orgId}`, { lockDate: through });
    const result = await write(A, OWNER_A, 'create_journal_entry', journal());
    expectLocked(result, through);
    expect(String(blocks(result.events)[0]?.data.message)).toContain('counts as dated today');
    await admin('PUT', `/v1/admin/entities/${A.entityId}/lock-date?orgId=${A.orgId}`, { lockDate: LOCK });
  });

  test('the lock names its date as the business writes dates, set by the entity’s own owner', async () => {
    const base = `/v1/admin/entities/${B.entityId}`;
    expect(
      (
        await admin(
          'PUT',
          `${base}/business-context?orgId=${B.orgId}`,
          { countryCode: 'US', locale: 'en-US' },
          OWNER_B,
        )
      ).status,
    ).toBe(200);
    expect(
      (await admin('PUT', `${base}/lock-date?orgId=${B.orgId}`, { lockDate: LOCK }, OWNER_B)).status,
    ).toBe(200);
    const result = await write(B, OWNER_B, 'recordReceipt', {
      receiptDate: day(-61),
      customer: 'Acme',
      amount: 9,
    });
    expectLocked(result, LOCK, 'en-US');
    // The other entity of the org keeps its own lock.
    expectProposed(
      await write(A, OWNER_A, 'recordReceipt', { receiptDate: day(-59), customer: 'Acme', amount: 9 }),
    );
  });
});
