// End to end: every request acts as a person, and who asked is recorded. Users made through
// /v1/admin/users ask with the keys issued to them. A viewer's write is answered in words before
// any card: no mcq, no pending action, nothing in the audit trail, nothing written; a viewer cannot
// confirm someone else's write either. A maker's write is proposed, confirmed and run, and
// query_routing_logs, pending_actions and the audit trail name the maker. All six services run as
// processes on the real NATS and PostgreSQL; the LLM is scripted, the books are the demo MCP server.
import { randomBytes, randomUUID } from 'node:crypto';
import { type AuditRow, createDb, readAudit, verifyAuditChain } from '@munim/db';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { bearerJson, jsonCaller } from '../support/http.ts';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

const ADMIN_KEY = `admin-${randomBytes(16).toString('hex')}`;
const tenant = { entityId: `ent-${randomUUID().slice(0, 8)}`, orgId: `org-${randomUUID().slice(0, 8)}` };
let sys: TestSystem;
const admin = jsonCaller(() => sys.gatewayUrl, bearerJson(ADMIN_KEY));

interface User {
  userId: string;
  key: string;
}
let maker: User;
let viewer: User;

async function keyOf(userId: string, kind?: 'person' | 'program'): Promise<string> {
  const issued = await admin('POST', `/v1/admin/users/${userId}/keys`, {
    orgId: tenant.orgId,
    ...(kind ? { kind } : {}),
  });
  expect(issued.status).toBe(201);
  const made = (await issued.json()) as { key: string; kind: string };
  expect(made.kind).toBe(kind ?? 'person');
  return made.key;
}

async function userWith(role: string, ...more: string[]): Promise<User> {
  const made = await admin('POST', '/v1/admin/users', {
    orgId: tenant.orgId,
    name: `${role} ${randomUUID().slice(0, 4)}`,
    roles: [role, ...more].map((r) => ({ entityId: tenant.entityId, role: r })),
  });
  expect(made.status).toBe(201);
  const { userId } = (await made.json()) as { userId: string };
  return { userId, key: await keyOf(userId) };
}

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats, env: { GATEWAY_ADMIN_KEYS: ADMIN_KEY } });
  maker = await userWith('maker');
  viewer = await userWith('viewer');
});

afterAll(async () => {
  await sys?.stop();
});

const only = (events: SseEvent[], type: string) => events.filter((e) => e.event === type);
const last = (events: SseEvent[]) => events.at(-1);
const customersNamed = (name: string) => sys.books.store.contacts.filter((c) => c.Name === name);
const askAs = (user: User, body: Record<string, unknown>) =>
  ask(sys.gatewayUrl, { ...tenant, ...body }, bearerJson(user.key));
const requestOf = (events: SseEvent[]) => String(events[0]?.data.requestId);
const conversationOf = (events: SseEvent[]) => String(events[0]?.data.conversationId);

/** Scripts the model to create customer `name` when asked `query`. */
function scriptProposal(query: string, name: string) {
  sys.llm?.script({
    match: query,
    turns: [
      { toolCalls: [{ name: 'create_customer', arguments: { Name: name, Email: 'ap@example.com' } }] },
      { content: `Customer ${name} created.` },
    ],
  });
}

async function routingLog(requestId: string) {
  const read = async () =>
    (
      await sys.db.query(
        'select actor_user_id, actor_roles, actor_via, status from query_routing_logs where request_id = $1',
        [requestId],
      )
    ).rows[0];
  await expect.poll(async () => (await read())?.status, { timeout: 15_000 }).not.toBe('running');
  return read();
}

const pendingOf = async (conversationId: string) =>
  (
    await sys.db.query(
      'select action_id, status, requested_by, requested_roles, approved_by from pending_actions where conversation_id = $1 order by created_at',
      [conversationId],
    )
  ).rows;

async function auditRows(): Promise<AuditRow[]> {
  const db = createDb(sys.databaseUrl, { max: 1 });
  try {
    return await readAudit(db, { orgId: tenant.orgId });
  } finally {
    await db.destroy();
  }
}

describe('a viewer', () => {
  test('asking for a write is told in words that they may only read: no card, no pending action, no audit row, nothing written', async () => {
    const name = `Viewer Co ${randomUUID().slice(0, 6)}`;
    const query = `add customer ${name}`;
    scriptProposal(query, name);
    const before = (await auditRows()).length;
    const { status, events } = await askAs(viewer, { query });
    expect(status).toBe(200);
    expect(only(events, 'mcq')).toEqual([]);
    expect(only(events, 'executing_tool').filter((e) => e.data.tool === 'create_customer')).toEqual([]);
    expect(last(events)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
    expect(String(last(events)?.data.response)).toMatch(/only read/i);
    expect(await pendingOf(conversationOf(events))).toEqual([]);
    expect(customersNamed(name)).toHaveLength(0);
    expect(await routingLog(requestOf(events))).toMatchObject({
      actor_user_id: viewer.userId,
      actor_roles: ['viewer'],
      actor_via: 'api',
    });
    expect((await auditRows()).length).toBe(before);
  });
});

describe('a maker', () => {
  test('proposes a write and confirms it, and every record names the maker', async () => {
    const name = `Maker Co ${randomUUID().slice(0, 6)}`;
    const query = `add customer ${name}`;
    scriptProposal(query, name);
    const proposed = await askAs(maker, { query });
    expect(last(proposed.events)).toMatchObject({
      event: 'complete',
      data: { status: 'awaiting_confirmation' },
    });
    const mcq = only(proposed.events, 'mcq')[0]?.data as { actionId: string };
    expect(mcq?.actionId).toEqual(expect.any(String));
    const conversationId = conversationOf(proposed.events);
    expect(await pendingOf(conversationId)).toEqual([
      expect.objectContaining({
        action_id: mcq.actionId,
        status: 'pending',
        requested_by: maker.userId,
        requested_roles: ['maker'],
        approved_by: null,
      }),
    ]);

    // Someone who may only read cannot confirm it: it stays pending, and nothing is written.
    const refused = await askAs(viewer, {
      conversationId,
      mcqResponse: { actionId: mcq.actionId, value: 'confirm' },
    });
    expect(only(refused.events, 'mcq')).toEqual([]);
    expect(String(last(refused.events)?.data.response)).toMatch(/only read/i);
    expect((await pendingOf(conversationId))[0]?.status).toBe('pending');
    expect(customersNamed(name)).toHaveLength(0);

    const confirmed = await askAs(maker, {
      conversationId,
      mcqResponse: { actionId: mcq.actionId, value: 'confirm' },
    });
    expect(only(confirmed.events, 'tool_result').map((e) => [e.data.tool, e.data.success])).toEqual([
      ['create_customer', true],
    ]);
    expect(customersNamed(name)).toHaveLength(1);
    expect(await pendingOf(conversationId)).toEqual([
      expect.objectContaining({ status: 'executed', requested_by: maker.userId, approved_by: maker.userId }),
    ]);

    for (const events of [proposed.events, confirmed.events])
      expect(await routingLog(requestOf(events))).toMatchObject({
        actor_user_id: maker.userId,
        actor_roles: ['maker'],
        actor_via: 'api',
      });

    const rows = await auditRows();
    expect(verifyAuditChain(rows)).toMatchObject({ ok: true });
    const ofWrite = rows.filter((r) => r.tool === 'create_customer' && r.entityId === tenant.entityId);
    expect(ofWrite.map((r) => [r.action, r.actor])).toEqual([
      ['proposed', maker.userId],
      ['confirmed', maker.userId],
      ['executed', maker.userId],
    ]);
    for (const row of ofWrite) {
      expect(row.argsHash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.summary).toMatch(/create the customer/);
      expect(row.summary).toContain('as maker');
    }
  });

  test('cancelling a proposal is recorded as cancelled by the maker', async () => {
    const name = `Cancelled Co ${randomUUID().slice(0, 6)}`;
    const query = `add customer ${name}`;
    scriptProposal(query, name);
    const proposed = await askAs(maker, { query });
    const mcq = only(proposed.events, 'mcq')[0]?.data as { actionId: string };
    const conversationId = conversationOf(proposed.events);
    const before = await auditRows();
    const cancelled = await askAs(maker, {
      conversationId,
      mcqResponse: { actionId: mcq.actionId, value: 'cancel' },
    });
    expect(last(cancelled.events)).toMatchObject({ event: 'complete', data: { status: 'cancelled' } });
    const added = (await auditRows()).slice(before.length);
    expect(added.map((r) => [r.action, r.actor, r.tool])).toEqual([
      ['cancelled', maker.userId, 'create_customer'],
    ]);
    expect(customersNamed(name)).toHaveLength(0);
  });
});

describe('a program over the API', () => {
  test('with a program key and no automation role, its write gets no card and waits for a person, who approves it', async () => {
    const bot = await userWith('maker');
    const programKey = await keyOf(bot.userId, 'program');
    const approver = await userWith('approver');
    const name = `Bot Co ${randomUUID().slice(0, 6)}`;
    const query = `add customer ${name}`;
    scriptProposal(query, name);
    const asked = await askAs({ ...bot, key: programKey }, { query });
    expect(only(asked.events, 'mcq')).toEqual([]);
    expect(JSON.stringify(asked.events)).not.toMatch(/confirm_text|type [A-Z]{3,} to confirm/);
    expect(only(asked.events, 'approval_requested')).toHaveLength(1);
    expect(last(asked.events)).toMatchObject({ event: 'complete', data: { status: 'awaiting_approval' } });
    expect(await routingLog(requestOf(asked.events))).toMatchObject({ actor_user_id: bot.userId });
    expect(customersNamed(name)).toHaveLength(0);

    // Its own key cannot approve it; a person who may, can.
    const approvalId = String(only(asked.events, 'approval_requested')[0]?.data.approvalId);
    const self = await jsonCaller(() => sys.gatewayUrl, bearerJson(programKey))(
      'POST',
      `/v1/approvals/${approvalId}`,
      { decision: 'approve', ...tenant },
    );
    expect(self.status).toBe(403);
    expect(customersNamed(name)).toHaveLength(0);
    const decided = await jsonCaller(() => sys.gatewayUrl, bearerJson(approver.key))(
      'POST',
      `/v1/approvals/${approvalId}`,
      { decision: 'approve', ...tenant },
    );
    expect(await decided.json()).toMatchObject({ status: 'executed' });
    expect(customersNamed(name)).toHaveLength(1);
  });

  test('a program key answering its person’s card does not confirm it, and is never told the word', async () => {
    const person = await userWith('maker');
    const programKey = await keyOf(person.userId, 'program');
    const name = `Scripted Co ${randomUUID().slice(0, 6)}`;
    const query = `add customer ${name}`;
    scriptProposal(query, name);
    const proposed = await askAs(person, { query });
    const mcq = only(proposed.events, 'mcq')[0]?.data as { actionId: string };
    expect(mcq?.actionId).toEqual(expect.any(String));
    const conversationId = conversationOf(proposed.events);
    for (const typedConfirmation of [undefined, 'WRONG']) {
      const answered = await askAs(
        { ...person, key: programKey },
        {
          conversationId,
          mcqResponse: {
            actionId: mcq.actionId,
            value: 'confirm',
            ...(typedConfirmation ? { typedConfirmation } : {}),
          },
        },
      );
      expect(only(answered.events, 'mcq')).toEqual([]);
      expect(only(answered.events, 'tool_result')).toEqual([]);
      if (typedConfirmation === undefined)
        expect(last(answered.events)).toMatchObject({ data: { status: 'awaiting_approval' } });
    }
    expect((await pendingOf(conversationId))[0]?.status).toBe('awaiting_approval');
    expect(customersNamed(name)).toHaveLength(0);
  });

  test('a program whose user holds the automation role confirms its own write', async () => {
    const bot = await userWith('maker', 'automation');
    const programKey = await keyOf(bot.userId, 'program');
    const name = `Automated Co ${randomUUID().slice(0, 6)}`;
    const query = `add customer ${name}`;
    scriptProposal(query, name);
    const proposed = await askAs({ ...bot, key: programKey }, { query });
    const mcq = only(proposed.events, 'mcq')[0]?.data as { actionId: string; confirm_text?: string };
    expect(mcq?.actionId).toEqual(expect.any(String));
    const confirmed = await askAs(
      { ...bot, key: programKey },
      {
        conversationId: conversationOf(proposed.events),
        mcqResponse: {
          actionId: mcq.actionId,
          value: 'confirm',
          ...(mcq.confirm_text ? { typedConfirmation: mcq.confirm_text } : {}),
        },
      },
    );
    expect(only(confirmed.events, 'tool_result').map((e) => [e.data.tool, e.data.success])).toEqual([
      ['create_customer', true],
    ]);
    expect(customersNamed(name)).toHaveLength(1);
  });
});
