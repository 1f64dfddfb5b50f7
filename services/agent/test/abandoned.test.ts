// A confirmed write is `executing` from the person's approval until its request records the outcome.
// When the request will never get there — its last delivery failed, or every instance that took it
// died — the write is settled without running again, on the real PostgreSQL rows (through the
// agent's own login) and the real NATS stream its client follows.
import { randomUUID } from 'node:crypto';
import type { AgentEvent, RequestScope } from '@munim/contracts';
import { createDb, readAudit } from '@munim/db';
import type { Logger } from '@munim/kit';
import { recordEvents, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { describe, expect } from 'vitest';
import type { AgentContext } from '../src/run/context.ts';
import { AgentStore } from '../src/run/store.ts';
import { abandonedAfterMs, settleOnGiveUp, sweepAbandoned } from '../src/turn/abandoned.ts';

const silent = { info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;
const MINUTE = 60_000;

let agent: AgentContext;
let admin: Kysely<import('@munim/db').Database>;

test.beforeAll(async ({ db, nats, serviceLogins }) => {
  admin = db;
  const agentDb = createDb(serviceLogins.agent, { max: 2 });
  const bus = await nats.bus('agent');
  agent = { bus, log: silent, store: new AgentStore(agentDb) } as unknown as AgentContext;
  return () => agentDb.destroy();
});

interface Row {
  /** Minutes since the approval. */
  approvedAgo: number;
  /** Whether the executor took the approval (it sends the call right after). */
  taken: boolean;
  status?: 'executing' | 'executed' | 'pending';
  requestId?: string;
  /** The user who confirmed it. */
  approvedBy?: string;
}

/** A confirmed write as the agent and executor leave it, in a fresh conversation. */
async function write(row: Row): Promise<{ actionId: string; scope: RequestScope }> {
  const actionId = randomUUID();
  const scope = {
    requestId: row.requestId ?? randomUUID(),
    conversationId: `conv-${actionId}`,
    entityId: 'ent-abandoned',
    orgId: 'org-abandoned',
  };
  const approvedAt = new Date(Date.now() - row.approvedAgo * MINUTE);
  const status = row.status ?? 'executing';
  await admin
    .insertInto('pending_actions')
    .values({
      action_id: actionId,
      request_id: randomUUID(),
      conversation_id: scope.conversationId,
      entity_id: scope.entityId,
      org_id: scope.orgId,
      tool: 'create_payment',
      args: JSON.stringify({ amount: 200000 }),
      args_hash: 'h'.repeat(64),
      tier: 2,
      confirm_text: null,
      question: 'Create the payment?',
      call_id: `call-${actionId}`,
      tool_call_id: `tc-${actionId}`,
      state: JSON.stringify({}),
      expires_at: new Date(Date.now() + 15 * MINUTE),
      status,
      decided_at: status === 'pending' ? null : approvedAt,
      approved_at: status === 'pending' ? null : approvedAt,
      approved_by_request: status === 'pending' ? null : scope.requestId,
      ...(row.approvedBy ? { approved_by: row.approvedBy } : {}),
      ...(row.taken
        ? {
            executed_call_id: `call-${actionId}`,
            executed_request_id: scope.requestId,
            executed_at: approvedAt,
          }
        : {}),
    })
    .execute();
  return { actionId, scope };
}

const statusOf = async (actionId: string) =>
  admin
    .selectFrom('pending_actions')
    .select(['status', 'result'])
    .where('action_id', '=', actionId)
    .executeTakeFirstOrThrow();

/** The events published for a request while `act` runs (they arrive over NATS, so poll). */
async function eventsOf(requestIds: string[], act: () => Promise<unknown>) {
  const recorders = requestIds.map((id) => recordEvents(agent.bus, id));
  await agent.bus.nc.flush();
  await act();
  await agent.bus.nc.flush();
  return {
    of: (i: number) => recorders[i]?.events ?? [],
    stop: () => {
      for (const r of recorders) r.stop();
    },
  };
}

const kinds = (events: AgentEvent[]) =>
  events.map((e) => (e.type === 'confirmation' ? `confirmation:${e.payload.step}` : e.type));

describe('a confirmed write its request abandoned', () => {
  test('the sweep voids one never sent and records one sent as outcome unknown, ending their requests', async () => {
    const after = abandonedAfterMs(MINUTE, 70_000);
    const minutes = Math.ceil(after / MINUTE) + 1;
    const neverSent = await write({ approvedAgo: minutes, taken: false });
    const sent = await write({ approvedAgo: minutes, taken: true });
    // Still within what its deliveries may take: another instance may yet finish it.
    const young = await write({ approvedAgo: 1, taken: true });
    const done = await write({ approvedAgo: minutes, taken: true, status: 'executed' });
    const waiting = await write({ approvedAgo: minutes, taken: false, status: 'pending' });
    const seen = await eventsOf(
      [neverSent.scope.requestId, sent.scope.requestId, young.scope.requestId],
      () => sweepAbandoned(agent, after),
    );
    await expect.poll(() => seen.of(0).length).toBe(2);
    await expect.poll(() => seen.of(1).length).toBe(2);
    seen.stop();

    expect(await statusOf(neverSent.actionId)).toMatchObject({ status: 'void', result: { success: false } });
    expect(kinds(seen.of(0))).toEqual(['confirmation:void', 'error']);
    expect(seen.of(0).at(-1)).toMatchObject({
      payload: { code: 'INTERNAL', message: /Nothing was changed/ },
    });

    expect(await statusOf(sent.actionId)).toMatchObject({
      status: 'executed',
      result: { success: false, outcome: 'unknown' },
    });
    expect(kinds(seen.of(1))).toEqual(['confirmation:executed', 'error']);
    expect(seen.of(1).at(-1)).toMatchObject({
      payload: { code: 'TOOL_OUTCOME_UNKNOWN', message: /check your books/ },
    });

    expect(seen.of(2)).toEqual([]);
    expect((await statusOf(young.actionId)).status).toBe('executing');
    expect((await statusOf(done.actionId)).status).toBe('executed');
    expect((await statusOf(waiting.actionId)).status).toBe('pending');

    // Settled once: a second sweep (another agent instance) finds nothing.
    expect(await sweepAbandoned(agent, after)).toBe(0);
  });

  test('a voided approval can no longer be taken by an executor arriving late', async () => {
    const { actionId, scope } = await write({ approvedAgo: 60, taken: false });
    expect(await sweepAbandoned(agent, 30 * MINUTE)).toBeGreaterThanOrEqual(1);
    // The executor's first use of an approval: only an unused one still `executing`.
    const taken = await admin
      .updateTable('pending_actions')
      .set({ executed_call_id: 'late', executed_request_id: scope.requestId })
      .where('action_id', '=', actionId)
      .where('status', '=', 'executing')
      .where('executed_call_id', 'is', null)
      .executeTakeFirst();
    expect(Number(taken.numUpdatedRows)).toBe(0);
  });

  test('a request whose last delivery failed settles the write it approved, whatever its age', async () => {
    const { actionId, scope } = await write({ approvedAgo: 0, taken: true });
    const fallback: string[] = [];
    const giveUp = settleOnGiveUp(agent, async (m) => {
      fallback.push(m.requestId);
    });
    const message = {
      ...scope,
      id: randomUUID(),
      service: 'router' as const,
      ts: new Date().toISOString(),
      data: {},
    };
    const seen = await eventsOf([scope.requestId], () => giveUp(message));
    await expect.poll(() => seen.of(0).length).toBe(2);
    seen.stop();
    expect(kinds(seen.of(0))).toEqual(['confirmation:executed', 'error']);
    expect((await statusOf(actionId)).result).toMatchObject({ outcome: 'unknown' });
    expect(fallback).toEqual([]);
  });

  test('what became of a settled write goes into the audit trail, as done by the person who confirmed it', async () => {
    const confirmer = `user-${randomUUID().slice(0, 8)}`;
    const neverSent = await write({ approvedAgo: 600, taken: false, approvedBy: confirmer });
    const sent = await write({ approvedAgo: 600, taken: true, approvedBy: confirmer });
    const seen = await eventsOf([neverSent.scope.requestId, sent.scope.requestId], () =>
      sweepAbandoned(agent, 30 * MINUTE),
    );
    await expect.poll(() => seen.of(0).length + seen.of(1).length).toBe(4);
    seen.stop();
    const rows = (await readAudit(admin, { orgId: 'org-abandoned' })).filter((r) => r.actor === confirmer);
    expect(rows.map((r) => [r.action, r.tool, r.entityId])).toEqual([
      ['failed', 'create_payment', 'ent-abandoned'],
      ['failed', 'create_payment', 'ent-abandoned'],
    ]);
    expect(rows.map((r) => r.summary).sort()).toEqual([
      expect.stringMatching(/before it was sent, so nothing was changed/),
      expect.stringMatching(/before its outcome was known/),
    ]);
  });

  test('a request that approved nothing ends the usual way', async () => {
    const fallback: string[] = [];
    const giveUp = settleOnGiveUp(agent, async (m) => {
      fallback.push(m.requestId);
    });
    const requestId = randomUUID();
    await giveUp({
      requestId,
      conversationId: 'conv-x',
      entityId: 'ent-abandoned',
      orgId: 'org-abandoned',
      id: randomUUID(),
      service: 'router',
      ts: new Date().toISOString(),
      data: {},
    });
    expect(fallback).toEqual([requestId]);
  });
});
