// The executor runs a write only with proof that the user approved exactly that
// call for that tenant — an approved pending action in PostgreSQL, same tenant, tool and argument
// hash, unexpired, used by one call — or when the operator's policy exempts it. A message on the
// bus is not proof, whoever sends it.
import type { Bus } from '@munim/bus';
import type { ExecuteRequest, RequestScope } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type FixtureNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { buildMcpExecutor, hashArgs, type McpExecutor, ToolPolicy } from '../src/app.ts';
import { approve, log, newScope, recordEvents, type SdkTool, startSdkServer, waitFor } from './helpers.ts';

let newNats: () => FixtureNats;
test.beforeAll(({ newNats: fixture }) => {
  newNats = fixture;
});

const ok = (text: string) => ({ content: [{ type: 'text' as const, text }] });
const bare = (name: string) => ({ name, inputSchema: { type: 'object' as const, properties: {} } });
const tools: SdkTool[] = [
  { tool: bare('delete-contact'), run: (args) => ok(`deleted ${String(args.contactId)}`) },
  { tool: bare('list-contacts'), run: () => ok('[]') },
  { tool: bare('sync-ledger'), run: () => ok('synced') },
];
// The operator exempts one write from confirmation; the others need the user's approval.
const policy = ToolPolicy.parse('tools:\n  - { match: sync-ledger, tier: 0 }\n');

let db: Kysely<Database>;
let sdk: Awaited<ReturnType<typeof startSdkServer>>;
let app: McpExecutor;
let bus: Bus;
let nats: FixtureNats;

async function executor(db: Kysely<Database>): Promise<McpExecutor> {
  const built = await buildMcpExecutor({
    bus: await nats.bus('mcp-executor'),
    log,
    db,
    config: {
      serverUrl: sdk.url,
      readTimeoutMs: 5_000,
      writeTimeoutMs: 5_000,
      resultMaxChars: 50_000,
      policy,
    },
  });
  await built.start();
  await waitFor(() => built.registry.loaded);
  return built;
}

test.beforeAll(async ({ nats: fileNats, db: fileDb }) => {
  nats = fileNats;
  db = fileDb;
  sdk = await startSdkServer(tools);
  bus = await nats.bus('agent');
  app = await executor(db);
});

afterAll(async () => {
  await app?.stop();
  await sdk?.close();
});

const args = { contactId: 'C-7' };
const call = (scope: RequestScope, tool = 'delete-contact', n = 1): ExecuteRequest => ({
  tool,
  args,
  callId: `${scope.requestId}:${n}`,
  isWrite: true,
  argsHash: hashArgs(args),
});
const execute = (scope: RequestScope, data: ExecuteRequest) =>
  bus.request('toolExecute', scope, data, { timeoutMs: 15_000 });
const sent = (tool = 'delete-contact') => sdk.calls.filter((name) => name === tool).length;

describe('a write without proof of approval runs nothing', () => {
  test.each([
    ['no approval at all', async () => undefined],
    ['an approval id nobody issued', async () => 'forged-approval-id'],
    [
      "another org's approval for the same entity",
      async (scope: RequestScope) =>
        approve(db, { scope: { ...scope, orgId: `${scope.orgId}-other` }, ...call(scope) }),
    ],
    [
      'an approval of other arguments',
      async (scope: RequestScope) => approve(db, { scope, ...call(scope), args: { contactId: 'C-8' } }),
    ],
    [
      'an approval of another tool',
      async (scope: RequestScope) => approve(db, { scope, ...call(scope), tool: 'archive-contact' }),
    ],
    [
      'a proposal the user has not confirmed',
      async (scope: RequestScope) =>
        approve(db, { scope, ...call(scope) }, { status: 'pending', approvedAt: null }),
    ],
    [
      'a cancelled proposal',
      async (scope: RequestScope) => approve(db, { scope, ...call(scope) }, { status: 'cancelled' }),
    ],
    [
      'an expired approval',
      async (scope: RequestScope) =>
        approve(db, { scope, ...call(scope) }, { expiresAt: new Date(Date.now() - 1_000) }),
    ],
  ])('refuses %s: WRITE_NOT_APPROVED, nothing sent, a security event', async (_case, approval) => {
    const scope = newScope();
    const before = sent();
    const recorder = recordEvents(bus, scope.requestId);
    const approvalId = await approval(scope);
    const reply = await execute(scope, { ...call(scope), ...(approvalId ? { approvalId } : {}) });
    expect(reply).toMatchObject({ success: false, error: { code: 'WRITE_NOT_APPROVED' } });
    expect(reply.error?.message).toMatch(/not approved/);
    await expect.poll(() => recorder.events.map((e) => e.type)).toContain('tool_result');
    recorder.stop();
    // Never announced as running: it never was.
    expect(recorder.events.map((e) => e.type)).toEqual(['tool_result']);
    expect(recorder.events[0]?.payload).toMatchObject({ success: false, code: 'WRITE_NOT_APPROVED' });
    expect(sent()).toBe(before);
  });
});

describe('an approved write', () => {
  test('runs once for its call; a retry of that call is answered from the store; no other call may use it', async () => {
    const scope = newScope();
    const before = sent();
    const approvalId = await approve(db, { scope, ...call(scope) });
    const first = await execute(scope, { ...call(scope), approvalId });
    expect(first).toMatchObject({ success: true, outcome: 'succeeded', result: 'deleted C-7' });
    const retry = await execute(scope, { ...call(scope), approvalId });
    expect(retry).toMatchObject({ success: true, replayed: true });
    const other = await execute(scope, { ...call(scope, 'delete-contact', 2), approvalId });
    expect(other).toMatchObject({ success: false, error: { code: 'WRITE_NOT_APPROVED' } });
    expect(sent()).toBe(before + 1);
    const row = await db
      .selectFrom('pending_actions')
      .select('executed_call_id')
      .where('action_id', '=', approvalId)
      .executeTakeFirstOrThrow();
    expect(row.executed_call_id).toBe(`${scope.requestId}:1`);
  });

  test('needs none for a read, or for a write the operator exempts (tier 0)', async () => {
    const scope = newScope();
    expect(await execute(scope, { ...call(scope, 'list-contacts'), isWrite: false })).toMatchObject({
      success: true,
    });
    const before = sent('sync-ledger');
    expect(await execute(scope, call(scope, 'sync-ledger', 2))).toMatchObject({ success: true });
    expect(sent('sync-ledger')).toBe(before + 1);
    expect(app.registry.get('sync-ledger')?.access).toMatchObject({
      kind: 'write',
      tier: 0,
      // "sync" is a verb of change: the name alone makes it a write; the policy exempts it.
      reason: 'verb',
    });
  });
});

describe('an executor without a database', () => {
  test('can prove no approval, so it runs only exempt writes', async () => {
    const own = newNats();
    const alone = await buildMcpExecutor({
      bus: await own.bus('mcp-executor'),
      log,
      config: {
        serverUrl: sdk.url,
        readTimeoutMs: 5_000,
        writeTimeoutMs: 5_000,
        resultMaxChars: 50_000,
        policy,
      },
    });
    try {
      await alone.start();
      await waitFor(() => alone.registry.loaded);
      const agent = await own.bus('agent');
      const scope = newScope();
      const before = sent();
      const approvalId = await approve(db, { scope, ...call(scope) });
      const reply = await agent.request(
        'toolExecute',
        scope,
        { ...call(scope), approvalId },
        { timeoutMs: 15_000 },
      );
      expect(reply).toMatchObject({ success: false, error: { code: 'WRITE_NOT_APPROVED' } });
      expect(sent()).toBe(before);
      const exempt = await agent.request('toolExecute', scope, call(scope, 'sync-ledger', 2), {
        timeoutMs: 15_000,
      });
      expect(exempt).toMatchObject({ success: true });
    } finally {
      await alone.stop();
    }
  });
});
