// One approval, one run. The approval is consumed atomically by the first
// execution and bound to its request and call; a retry of exactly that call is answered from the
// idempotency store; anything else naming the approval is refused and logged. Fault injection on
// real PostgreSQL and NATS: racing requests, replays under another request, call or tenant, and
// the takeover of a write whose agent died.
import { Writable } from 'node:stream';
import type { Bus } from '@munim/bus';
import type { ExecuteRequest, RequestScope } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type TestNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, describe, expect } from 'vitest';
import {
  buildMcpExecutor,
  hashArgs,
  IdempotencyStore,
  type McpExecutor,
  PgApprovals,
  ToolPolicy,
} from '../src/app.ts';
import { approve, newScope, type SdkTool, startSdkServer, waitFor } from './helpers.ts';

/** Every line the executor logs, parsed, so a refusal can be seen in the security log. */
const lines: Record<string, unknown>[] = [];
const log = pino(
  { level: 'info' },
  new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  }),
);
const refusals = (callId: string) =>
  lines.filter((l) => l.msg === 'security: write refused without approval' && l.callId === callId);

/** Calls per contact: a write whose effect is visible, and slow when the test asks. */
const effects = new Map<string, number>();
let delayMs = 0;
const tools: SdkTool[] = [
  {
    tool: { name: 'delete-contact', inputSchema: { type: 'object', properties: {} } },
    run: async (args) => {
      const id = String(args.contactId);
      effects.set(id, (effects.get(id) ?? 0) + 1);
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { content: [{ type: 'text', text: `deleted ${id}` }] };
    },
  },
];

let db: Kysely<Database>;
let sdk: Awaited<ReturnType<typeof startSdkServer>>;
let app: McpExecutor;
let bus: Bus;
let nats: TestNats;

test.beforeAll(async ({ nats: fileNats, db: fileDb }) => {
  nats = fileNats;
  db = fileDb;
  sdk = await startSdkServer(tools);
  bus = await nats.bus('agent');
  app = await buildMcpExecutor({
    bus: await nats.bus('mcp-executor'),
    log,
    db,
    config: {
      serverUrl: sdk.url,
      readTimeoutMs: 5_000,
      writeTimeoutMs: 5_000,
      resultMaxChars: 50_000,
      idempotencyGraceMs: 300,
      policy: ToolPolicy.parse('tools: []\n'),
    },
  });
  await app.start();
  await waitFor(() => app.registry.loaded);
});

afterAll(async () => {
  await app?.stop();
  await sdk?.close();
});

let contacts = 0;
/** A fresh write (its own contact, so its effect is counted alone) and the user's approval of it. */
async function approvedWrite(scope = newScope()) {
  contacts += 1;
  const args = { contactId: `C-${contacts}-${scope.requestId.slice(0, 8)}` };
  const data: ExecuteRequest = {
    tool: 'delete-contact',
    args,
    callId: `${scope.requestId}:1`,
    isWrite: true,
    argsHash: hashArgs(args),
  };
  const approvalId = await approve(db, { scope, ...data });
  await db
    .updateTable('pending_actions')
    .set({ approved_by_request: scope.requestId })
    .where('action_id', '=', approvalId)
    .execute();
  return { scope, data: { ...data, approvalId }, runs: () => effects.get(args.contactId) ?? 0 };
}

const execute = (scope: RequestScope, data: ExecuteRequest, timeoutMs = 15_000) =>
  bus.request('toolExecute', scope, data, { timeoutMs });

const other = () => newScope().requestId;
const reasonOf = (callId: string) => refusals(callId).at(-1)?.reason;

describe('an approval already used by a call', () => {
  test('is refused when the same call id comes under another request id: the write runs once', async () => {
    const { scope, data, runs } = await approvedWrite();
    expect(await execute(scope, data)).toMatchObject({ success: true, outcome: 'succeeded' });
    const replay = await execute({ ...scope, requestId: other() }, data);
    expect(replay).toMatchObject({ success: false, error: { code: 'WRITE_NOT_APPROVED' } });
    expect(runs()).toBe(1);
    expect(refusals(data.callId).at(-1)).toMatchObject({
      level: 40,
      approvalId: data.approvalId,
      reason: 'approval used by another request',
    });
  });

  test.each([
    [
      'the same call id under another request id',
      (s: RequestScope) => ({ ...s, requestId: other() }),
      0,
      /another request/,
    ],
    ['another call id of the same request', (s: RequestScope) => s, 1, /another call/],
    [
      'another call id under another request id',
      (s: RequestScope) => ({ ...s, requestId: other() }),
      1,
      /another request/,
    ],
    [
      'the same request and call of another org',
      (s: RequestScope) => ({ ...s, orgId: `${s.orgId}-x` }),
      0,
      /another tenant/,
    ],
    [
      'the same request and call of another entity',
      (s: RequestScope) => ({ ...s, entityId: `${s.entityId}-x` }),
      0,
      /another tenant/,
    ],
  ])(
    'refuses %s (logged) and answers the exact call from the idempotency store',
    async (_case, scopeOf, bump, reason) => {
      const { scope, data, runs } = await approvedWrite();
      const first = await execute(scope, data);
      expect(first).toMatchObject({
        success: true,
        outcome: 'succeeded',
        result: `deleted ${String(data.args.contactId)}`,
      });
      const callId = bump ? `${data.callId}+${bump}` : data.callId;
      const refused = await execute(scopeOf(scope), { ...data, callId });
      expect(refused).toMatchObject({ success: false, error: { code: 'WRITE_NOT_APPROVED' } });
      expect(reasonOf(callId)).toMatch(reason);
      const retry = await execute(scope, data);
      expect(retry).toMatchObject({
        success: true,
        replayed: true,
        outcome: 'succeeded',
        result: first.result,
      });
      expect(runs()).toBe(1);
    },
  );

  test('binds exactly one (tenant, request, call): generated look-alikes are all refused', async () => {
    const { scope, data, runs } = await approvedWrite();
    expect(await execute(scope, data)).toMatchObject({ success: true });
    // Each part kept or changed; every combination but "all kept" names the approval wrongly.
    const variants = [];
    for (let mask = 1; mask < 16; mask++) {
      const s = {
        ...scope,
        ...(mask & 1 ? { requestId: other() } : {}),
        ...(mask & 2 ? { orgId: `${scope.orgId}-${mask}` } : {}),
        ...(mask & 4 ? { entityId: `${scope.entityId}-${mask}` } : {}),
      };
      variants.push({ s, callId: mask & 8 ? `${data.callId}:${mask}` : data.callId });
    }
    const replies = await Promise.all(variants.map(({ s, callId }) => execute(s, { ...data, callId })));
    for (const reply of replies)
      expect(reply).toMatchObject({ success: false, error: { code: 'WRITE_NOT_APPROVED' } });
    expect(await execute(scope, data)).toMatchObject({ success: true, replayed: true });
    expect(runs()).toBe(1);
  });
});

describe('an approval not yet used', () => {
  test('is refused to a request other than the one that carried it, which may still use it', async () => {
    const { scope, data, runs } = await approvedWrite();
    const stranger = await execute({ ...scope, requestId: other() }, data);
    expect(stranger).toMatchObject({ success: false, error: { code: 'WRITE_NOT_APPROVED' } });
    expect(reasonOf(data.callId)).toBe('approval carried by another request');
    expect(runs()).toBe(0);
    expect(await execute(scope, data)).toMatchObject({ success: true, outcome: 'succeeded' });
    expect(runs()).toBe(1);
  });
});

describe('requests racing for one approval', () => {
  test('one wins; the others, under other requests or calls, are refused; the write runs once', async () => {
    delayMs = 200;
    try {
      const { scope, data, runs } = await approvedWrite();
      // approved_by_request is unset, as for an approval whose carrier is unknown: any request may
      // be first, and only one is.
      await db
        .updateTable('pending_actions')
        .set({ approved_by_request: null })
        .where('action_id', '=', data.approvalId ?? '')
        .execute();
      const racers = Array.from({ length: 12 }, (_, i) => ({
        scope: { ...scope, requestId: i === 0 ? scope.requestId : other() },
        data: { ...data, callId: i % 3 === 2 ? `${data.callId}:${i}` : data.callId },
      }));
      const replies = await Promise.all(racers.map((r) => execute(r.scope, r.data)));
      const won = replies.filter((r) => r.success);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({ outcome: 'succeeded' });
      expect(replies.filter((r) => r.error?.code === 'WRITE_NOT_APPROVED')).toHaveLength(11);
      expect(runs()).toBe(1);
      const row = await db
        .selectFrom('pending_actions')
        .select(['executed_request_id', 'executed_call_id'])
        .where('action_id', '=', data.approvalId ?? '')
        .executeTakeFirstOrThrow();
      const winner = racers[replies.indexOf(won[0] as (typeof replies)[number])];
      expect(row).toEqual({
        executed_request_id: winner?.scope.requestId,
        executed_call_id: winner?.data.callId,
      });
    } finally {
      delayMs = 0;
    }
  });

  test('copies of the exact call all get its one outcome: the write runs once', async () => {
    delayMs = 200;
    try {
      const { scope, data, runs } = await approvedWrite();
      const replies = await Promise.all(Array.from({ length: 8 }, () => execute(scope, data)));
      expect(replies.every((r) => r.success && r.outcome === 'succeeded')).toBe(true);
      expect(replies.filter((r) => !r.replayed)).toHaveLength(1);
      expect(runs()).toBe(1);
    } finally {
      delayMs = 0;
    }
  });
});

describe('a write whose agent died, taken over', () => {
  test('while the write is in flight: the takeover waits for its outcome; another request is refused', async () => {
    delayMs = 1_500;
    try {
      const { scope, data, runs } = await approvedWrite();
      // The first agent gives up (dies) long before the write answers.
      await expect(execute(scope, data, 300)).rejects.toThrow();
      const stranger = await execute({ ...scope, requestId: other() }, data);
      expect(stranger).toMatchObject({ success: false, error: { code: 'WRITE_NOT_APPROVED' } });
      const takeover = await execute(scope, data);
      expect(takeover).toMatchObject({ success: true, outcome: 'succeeded', replayed: true });
      expect(runs()).toBe(1);
    } finally {
      delayMs = 0;
    }
  });

  test('after the agent marked the action executed: the takeover is answered from the store, not refused', async () => {
    const { scope, data, runs } = await approvedWrite();
    expect(await execute(scope, data)).toMatchObject({ success: true });
    await db
      .updateTable('pending_actions')
      .set({ status: 'executed', decided_at: new Date() })
      .where('action_id', '=', data.approvalId ?? '')
      .execute();
    expect(await execute(scope, data)).toMatchObject({ success: true, replayed: true, outcome: 'succeeded' });
    expect(await execute({ ...scope, requestId: other() }, data)).toMatchObject({
      error: { code: 'WRITE_NOT_APPROVED' },
    });
    expect(runs()).toBe(1);
  });

  test('after its executor died mid-write too: the outcome is unknown, never sent again', async () => {
    const { scope, data, runs } = await approvedWrite();
    // The dead executor used the approval and claimed the call, then vanished before answering.
    const claim = {
      ...data,
      approvalId: data.approvalId,
      requestId: scope.requestId,
      entityId: scope.entityId,
      orgId: scope.orgId,
    };
    expect(await new PgApprovals(db).use({ ...claim, argsHash: hashArgs(data.args) })).toEqual({
      ok: true,
    });
    const dead = new IdempotencyStore({ db, owner: 'dead-executor' });
    expect(
      await dead.claim(
        { requestId: scope.requestId, callId: data.callId, tool: data.tool, argsHash: hashArgs(data.args) },
        1,
      ),
    ).toMatchObject({ kind: 'claimed' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const takeover = await execute(scope, data);
    expect(takeover).toMatchObject({
      success: false,
      outcome: 'unknown',
      replayed: true,
      error: { code: 'TOOL_OUTCOME_UNKNOWN' },
    });
    expect(runs()).toBe(0);
  });

  test('past the idempotency store retention: even the exact call is refused, never sent again', async () => {
    const { scope, data, runs } = await approvedWrite();
    expect(await execute(scope, data)).toMatchObject({ success: true });
    // A day on, the store has purged the call's outcome, and the action was never settled.
    await db
      .updateTable('pending_actions')
      .set({ executed_at: sql<Date>`now() - interval '25 hours'` })
      .where('action_id', '=', data.approvalId ?? '')
      .execute();
    await db.deleteFrom('tool_idempotency').where('request_id', '=', scope.requestId).execute();
    expect(await execute(scope, data)).toMatchObject({
      success: false,
      error: { code: 'WRITE_NOT_APPROVED' },
    });
    expect(reasonOf(data.callId)).toMatch(/too long ago/);
    expect(runs()).toBe(1);
  });
});
