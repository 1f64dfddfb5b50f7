// The approval flow's rows on the real PostgreSQL, through the agent's own login: decisions taken
// at once are ordered (one approval completes a write, the rest find it closed), a standing
// approval's uses and total hold however many makers use it at once, and an approval left
// unanswered past its window expires on the trail.
import { randomUUID } from 'node:crypto';
import type { Actor, RequestScope } from '@munim/contracts';
import { createDb, type Database, readAudit } from '@munim/db';
import type { Logger } from '@munim/kit';
import { test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { describe, expect } from 'vitest';
import { expireApprovals } from '../src/confirmation/approval-flow.ts';
import { ApprovalStore } from '../src/run/approval-store.ts';
import type { AgentContext } from '../src/run/context.ts';
import { AgentStore } from '../src/run/store.ts';

const silent = { info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;
let admin: Kysely<Database>;
let agentDb: Kysely<Database>;
let store: ApprovalStore;

test.override('dbPoolSize', { scope: 'file' }, 12);

test.beforeAll(async ({ db, serviceLogins }) => {
  admin = db;
  agentDb = createDb(serviceLogins.agent, { max: 12 });
  store = new ApprovalStore(agentDb);
  return () => agentDb.destroy();
});

const person = (userId: string, roles: Actor['roles'] = ['approver']): Actor => ({
  userId,
  roles,
  via: 'api',
});
const scopeOf = (tenant: { entityId: string; orgId: string }, actor?: Actor): RequestScope => ({
  requestId: randomUUID(),
  conversationId: 'conv-approvals',
  ...tenant,
  ...(actor ? { actor } : {}),
});

/** A write waiting for `needed` approvers, as the maker's confirmation leaves it. */
async function awaiting(tenant: { entityId: string; orgId: string }, needed: number, expiresInMs = 3600_000) {
  const actionId = randomUUID();
  await admin
    .insertInto('pending_actions')
    .values({
      action_id: actionId,
      request_id: randomUUID(),
      conversation_id: 'conv-approvals',
      ...{ entity_id: tenant.entityId, org_id: tenant.orgId },
      tool: 'create_bill_payment',
      args: JSON.stringify({ Amount: 200000 }),
      args_hash: 'a'.repeat(64),
      tier: 2,
      confirm_text: null,
      question: 'Pay the bill?',
      call_id: `call-${actionId}`,
      tool_call_id: `tc-${actionId}`,
      state: JSON.stringify({}),
      expires_at: new Date(Date.now() + expiresInMs),
      status: 'awaiting_approval',
      requested_by: 'u-maker',
      requested_roles: ['maker'],
      approvals_needed: needed,
      approver_roles: ['approver'],
      approval_requested_at: new Date(),
    })
    .execute();
  return actionId;
}

const statusOf = async (actionId: string) =>
  (
    await admin
      .selectFrom('pending_actions')
      .select(['status', 'approved_by_request'])
      .where('action_id', '=', actionId)
      .executeTakeFirstOrThrow()
  ).status;

describe('decisions taken at once', () => {
  test.each([
    [1, 2],
    [1, 8],
    [2, 5],
    [3, 3],
  ])(
    'needing %i approval(s), %i approvers at once: exactly one request runs it',
    async (needed, deciders) => {
      const tenant = { entityId: 'ent-decide', orgId: `org-${needed}-${deciders}` };
      const actionId = await awaiting(tenant, needed);
      const outcomes = await Promise.all(
        Array.from({ length: deciders }, (_, i) =>
          store.decide({
            scope: scopeOf(tenant, person(`u-${i}`)),
            actionId,
            actor: person(`u-${i}`),
            decision: 'approve',
          }),
        ),
      );
      const kinds = outcomes.map((o) => o.kind);
      expect(kinds.filter((k) => k === 'approved')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'recorded')).toHaveLength(needed - 1);
      expect(kinds.filter((k) => k === 'closed')).toHaveLength(deciders - needed);
      expect(await statusOf(actionId)).toBe('executing');
    },
  );

  test('a person approves a version once; a rejection closes it for everyone', async () => {
    const tenant = { entityId: 'ent-decide', orgId: 'org-reject' };
    const actionId = await awaiting(tenant, 2);
    const first = person('u-first');
    const approve = () =>
      store.decide({ scope: scopeOf(tenant, first), actionId, actor: first, decision: 'approve' });
    expect(await approve()).toMatchObject({ kind: 'recorded', approvals: 1, needed: 2 });
    expect(await approve()).toEqual({ kind: 'repeated' });
    const other = person('u-other');
    expect(
      await store.decide({ scope: scopeOf(tenant, other), actionId, actor: other, decision: 'reject' }),
    ).toEqual({ kind: 'rejected' });
    expect(await approve()).toEqual({ kind: 'closed', status: 'rejected' });
  });

  test('an edit counts only approvals of the call as it now stands', async () => {
    const tenant = { entityId: 'ent-decide', orgId: 'org-edit' };
    const actionId = await awaiting(tenant, 2);
    const a = person('u-a');
    await store.decide({ scope: scopeOf(tenant, a), actionId, actor: a, decision: 'approve' });
    const b = person('u-b');
    const edited = await store.decide({
      scope: scopeOf(tenant, b),
      actionId,
      actor: b,
      decision: 'approve',
      edited: {
        before: { Amount: 200000 },
        after: { Amount: 250000 },
        argsHash: 'b'.repeat(64),
        needed: 2,
        roles: ['approver'],
        rule: 'payments over ₹1,00,000',
      },
    });
    // u-a approved the call before the edit: only u-b's approval of the edited call counts.
    expect(edited).toMatchObject({ kind: 'recorded', approvals: 1, needed: 2 });
    expect(
      await store.decide({ scope: scopeOf(tenant, a), actionId, actor: a, decision: 'approve' }),
    ).toEqual({
      kind: 'approved',
    });
  });
});

describe('standing approvals', () => {
  async function grant(tenant: { entityId: string; orgId: string }, g: Record<string, unknown>) {
    const id = randomUUID();
    await admin
      .insertInto('standing_approvals')
      .values({
        id,
        org_id: tenant.orgId,
        entity_id: tenant.entityId,
        granted_by: 'u-approver',
        granted_roles: ['approver'],
        write_class: 'payment',
        tool: null,
        party: null,
        max_amount: null,
        max_total: null,
        max_uses: 3,
        expires_at: new Date(Date.now() + 3600_000),
        ...g,
      })
      .execute();
    return id;
  }
  const write = { tool: 'create_bill_payment', writeClass: 'payment', party: ['Bolt Ltd'] };

  test.each([
    { uses: 3, makers: 10, amount: 1000, total: null, expect: 3 },
    { uses: 50, makers: 10, amount: 30000, total: 100000, expect: 3 },
    { uses: 1, makers: 6, amount: 5, total: null, expect: 1 },
  ])('$makers makers at once on a grant of $uses uses (total $total): $expect let through', async (c) => {
    const tenant = { entityId: 'ent-standing', orgId: `org-${randomUUID().slice(0, 8)}` };
    const id = await grant(tenant, { max_uses: c.uses, max_total: c.total });
    const used = await Promise.all(
      Array.from({ length: c.makers }, () =>
        store.useStanding(scopeOf(tenant, person('u-maker', ['maker'])), randomUUID(), {
          ...write,
          amount: c.amount,
        }),
      ),
    );
    expect(used.filter((g) => g === id)).toHaveLength(c.expect);
    const uses = await admin
      .selectFrom('standing_approval_uses')
      .selectAll()
      .where('grant_id', '=', id)
      .execute();
    expect(uses).toHaveLength(c.expect);
  });

  test('a grant covers only what it names, and nothing once revoked or expired', async () => {
    const tenant = { entityId: 'ent-standing', orgId: 'org-scope' };
    const use = (w: Partial<typeof write> & { amount: number | undefined }) =>
      store.useStanding(scopeOf(tenant), randomUUID(), { ...write, ...w });
    const id = await grant(tenant, { party: 'Bolt Limited', max_amount: 50000, max_uses: 100 });
    expect(await use({ amount: 10000, party: ['BOLT LTD.'] })).toBe(id);
    expect(await use({ amount: 10000, party: ['Other Co'] })).toBeUndefined();
    expect(await use({ amount: 60000 })).toBeUndefined();
    // An amount that could not be read is over every limit.
    expect(await use({ amount: undefined })).toBeUndefined();
    expect(await use({ amount: 10000, writeClass: 'destructive' })).toBeUndefined();
    await admin
      .updateTable('standing_approvals')
      .set({ revoked_at: new Date() })
      .where('id', '=', id)
      .execute();
    expect(await use({ amount: 10000 })).toBeUndefined();
    const old = await grant(tenant, { expires_at: new Date(Date.now() - 1000) });
    expect(await use({ amount: 10000 })).not.toBe(old);
  });
});

describe('approvals left unanswered', () => {
  test('expire past their window, once, with a row on the trail', async () => {
    const tenant = { entityId: 'ent-expire', orgId: 'org-expire' };
    const late = await awaiting(tenant, 1, -1000);
    const young = await awaiting(tenant, 1);
    const agent = { store: new AgentStore(agentDb), log: silent } as unknown as AgentContext;
    expect(await expireApprovals(agent)).toBeGreaterThanOrEqual(1);
    expect(await statusOf(late)).toBe('expired');
    expect(await statusOf(young)).toBe('awaiting_approval');
    expect(await expireApprovals(agent)).toBe(0);
    const trail = await readAudit(admin, { orgId: tenant.orgId });
    expect(trail.filter((r) => r.action === 'expired')).toHaveLength(1);
    // Too late to decide: closed.
    const a = person('u-a');
    expect(
      await store.decide({ scope: scopeOf(tenant, a), actionId: late, actor: a, decision: 'approve' }),
    ).toEqual({
      kind: 'closed',
      status: 'expired',
    });
  });
});
