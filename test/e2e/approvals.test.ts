// End to end: people and approvals. A maker's large payment waits, after the maker's own
// confirmation, for someone the policy names; it runs once when they approve, however many approve
// at once; the maker cannot approve it; an approver's edit is validated again; a standing approval
// lets writes through until it is used up; a program over /mcp never confirms its own write. All
// six services run as processes on the real NATS and a fresh PostgreSQL, with the demo books and
// a scripted model; people are API keys naming users and roles, the policy a YAML file.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { billToPay as payBill } from '../support/bill-payment.ts';
import { bearerJson } from '../support/http.ts';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
const tenant = { entityId: 'ent-approvals', orgId: 'org-approvals' };
const key = (name: string) => `${name}-${randomBytes(12).toString('hex')}`;
const KEYS = {
  maker: key('maker'),
  approver: key('approver'),
  approver2: key('approver2'),
  viewer: key('viewer'),
  program: key('program'),
};
const PEOPLE = [
  `${KEYS.maker}:${tenant.entityId}:${tenant.orgId}:u-maker:maker`,
  `${KEYS.approver}:${tenant.entityId}:${tenant.orgId}:u-approver:approver`,
  `${KEYS.approver2}:${tenant.entityId}:${tenant.orgId}:u-approver2:approver+maker`,
  `${KEYS.viewer}:${tenant.entityId}:${tenant.orgId}:u-viewer:viewer`,
  `${KEYS.program}:${tenant.entityId}:${tenant.orgId}:u-program:maker`,
].join(',');
const POLICY = `
rules:
  - match: { class: payment, minAmount: 100000 }
    approvers: 1
    roles: [approver, owner]
limits:
  maker: { maxAmount: 50000 }
`;

const as = (who: keyof typeof KEYS) => ({ authorization: `Bearer ${KEYS[who]}` });
const call = (who: keyof typeof KEYS, method: string, path: string, body?: unknown) =>
  fetch(`${sys.gatewayUrl}${path}`, {
    method,
    headers: bearerJson(KEYS[who]),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

let bank = '';
let vendor = '';

test.beforeAll(async ({ database, nats }) => {
  const dir = mkdtempSync(join(tmpdir(), 'munim-approvals-'));
  const policyFile = join(dir, 'policy.yaml');
  writeFileSync(policyFile, POLICY);
  sys = await startSystem({
    database,
    nats,
    env: { GATEWAY_API_KEYS: PEOPLE, APPROVAL_POLICY_FILE: policyFile },
  });
  bank = sys.books.store.accounts.find((a) => a.Code === '1000')?.AccountId ?? '';
  vendor = sys.books.store.contacts.find((c) => c.ContactType === 'VENDOR')?.ContactId ?? '';
  expect(bank && vendor).toBeTruthy();
});

afterAll(async () => {
  await sys?.stop();
});

const payments = (reference: string) => sys.books.store.payments.filter((p) => p.Reference === reference);
const sent = (reference: string) =>
  sys.books.calls().filter((c) => c.tool === 'create_bill_payment' && c.args.Reference === reference);
const last = (events: SseEvent[]) => events.at(-1);

/** A bill of `amount` (before tax) from the vendor, and a script paying it in full when asked `query`. */
const billToPay = (amount: number) => payBill(sys, amount);

/** The maker asks to pay and confirms on the card (changing `edits` first): what the confirmation's stream said. */
async function makerPays(
  amount: number,
  who: keyof typeof KEYS = 'maker',
  edits?: (billId: string) => Record<string, unknown>,
) {
  const bill = billToPay(amount);
  const conversationId = `conv-${randomUUID()}`;
  const proposal = await ask(sys.gatewayUrl, { query: bill.query, conversationId, ...tenant }, as(who));
  const card = proposal.events.find((e) => e.event === 'mcq');
  expect(last(proposal.events), JSON.stringify(proposal.events.slice(-3))).toMatchObject({
    event: 'complete',
    data: { status: 'awaiting_confirmation' },
  });
  const confirmed = await ask(
    sys.gatewayUrl,
    {
      ...tenant,
      conversationId,
      mcqResponse: {
        actionId: String(card?.data.actionId),
        value: 'confirm',
        ...(card?.data.confirm_text ? { typedConfirmation: card.data.confirm_text } : {}),
        ...(edits ? { args: edits(bill.billId) } : {}),
      },
    },
    as(who),
  );
  return { ...bill, conversationId, approvalId: String(card?.data.actionId), events: confirmed.events };
}

describe('a write the policy gives to an approver', () => {
  test('a maker’s ₹2,00,000 payment waits, the maker cannot approve it, and it runs once when an approver does', async () => {
    const pay = await makerPays(200_000);
    const requested = pay.events.find((e) => e.event === 'approval_requested');
    expect(requested?.data).toMatchObject({
      approvalId: pay.approvalId,
      tool: 'create_bill_payment',
      approversNeeded: 1,
      requiredRoles: expect.arrayContaining(['approver']),
    });
    expect(last(pay.events)).toMatchObject({ event: 'complete', data: { status: 'awaiting_approval' } });
    expect(sent(pay.reference)).toHaveLength(0);

    const self = await call('maker', 'POST', `/v1/approvals/${pay.approvalId}`, { decision: 'approve' });
    expect(self.status).toBe(403);
    expect(await self.json()).toMatchObject({ error: { code: 'SELF_APPROVAL' } });
    const viewer = await call('viewer', 'POST', `/v1/approvals/${pay.approvalId}`, { decision: 'approve' });
    expect(viewer.status).toBe(403);
    expect(sent(pay.reference)).toHaveLength(0);

    const inbox = await call('approver', 'GET', '/v1/approvals?status=pending');
    expect(inbox.status).toBe(200);
    const listed = ((await inbox.json()) as { approvals: { approvalId: string; requestedBy: string }[] })
      .approvals;
    expect(listed.find((a) => a.approvalId === pay.approvalId)).toMatchObject({ requestedBy: 'u-maker' });
    // The maker's own inbox does not offer it to them.
    const makers = (await (await call('maker', 'GET', '/v1/approvals')).json()) as { approvals: unknown[] };
    expect(makers.approvals).toEqual([]);

    const approved = await call('approver', 'POST', `/v1/approvals/${pay.approvalId}`, {
      decision: 'approve',
    });
    expect(approved.status, await approved.clone().text()).toBe(200);
    expect(await approved.json()).toMatchObject({ status: 'executed' });
    expect(sent(pay.reference)).toHaveLength(1);
    expect(payments(pay.reference)).toHaveLength(1);

    // The maker's conversation shows the outcome.
    const chat = await call('maker', 'GET', `/v1/conversations/${pay.conversationId}`);
    const messages = ((await chat.json()) as { messages: { role: string; content: string }[] }).messages;
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: expect.stringMatching(/Done/) });
    expect(messages.at(-2)?.content).toMatch(/Approved by user u-approver/);
    const again = await call('approver2', 'POST', `/v1/approvals/${pay.approvalId}`, { decision: 'approve' });
    expect(again.status).toBe(409);
    expect(sent(pay.reference)).toHaveLength(1);
  });

  test('two approvers at once: one runs it, the other gets 409, and it runs once', async () => {
    const pay = await makerPays(250_000);
    expect(last(pay.events)).toMatchObject({ data: { status: 'awaiting_approval' } });
    const answers = await Promise.all(
      (['approver', 'approver2'] as const).map((who) =>
        call(who, 'POST', `/v1/approvals/${pay.approvalId}`, { decision: 'approve' }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(sent(pay.reference)).toHaveLength(1);
    expect(payments(pay.reference)).toHaveLength(1);
  });

  test('a rejection runs nothing, and a decided approval answers 409', async () => {
    const pay = await makerPays(120_000);
    const rejected = await call('approver', 'POST', `/v1/approvals/${pay.approvalId}`, {
      decision: 'reject',
      reason: 'not this month',
    });
    expect(await rejected.json()).toMatchObject({ status: 'rejected' });
    const late = await call('approver2', 'POST', `/v1/approvals/${pay.approvalId}`, { decision: 'approve' });
    expect(late.status).toBe(409);
    expect(sent(pay.reference)).toHaveLength(0);
  });

  test('an approver’s edit is validated again: a bad one is refused, a good one runs as edited', async () => {
    const pay = await makerPays(180_000);
    const bad = await call('approver', 'POST', `/v1/approvals/${pay.approvalId}`, {
      decision: 'approve',
      args: { Amount: -5 },
    });
    expect(bad.status, await bad.clone().text()).toBe(422);
    expect(sent(pay.reference)).toHaveLength(0);
    const edited = await call('approver', 'POST', `/v1/approvals/${pay.approvalId}`, {
      decision: 'approve',
      args: { Amount: 150_000, Applications: [{ BillId: pay.billId, Amount: 150_000 }] },
    });
    expect(edited.status, await edited.clone().text()).toBe(200);
    expect(await edited.json()).toMatchObject({ status: 'executed' });
    expect(sent(pay.reference).map((c) => c.args.Amount)).toEqual([150_000]);
  });

  test('the maker’s edit before confirming is validated and decides what it needs: lowered within the limit, it runs at once', async () => {
    const lowered = await makerPays(200_000, 'maker', (billId) => ({
      Amount: 40_000,
      Applications: [{ BillId: billId, Amount: 40_000 }],
    }));
    expect(last(lowered.events)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
    expect(sent(lowered.reference).map((c) => c.args.Amount)).toEqual([40_000]);
    const bad = await makerPays(30_000, 'maker', () => ({ Amount: 'a lot' }));
    expect(last(bad.events)).toMatchObject({ event: 'error', data: { code: 'VALIDATION_ERROR' } });
    expect(sent(bad.reference)).toHaveLength(0);
    const trail = await fetch(`${sys.gatewayUrl}/v1/audit`, { headers: as('approver') });
    const rows = ((await trail.json()) as { rows: { action: string; summary: string }[] }).rows;
    expect(
      rows
        .filter((r) => r.action === 'edited' && r.summary.includes('before confirming'))
        .map((r) => r.summary),
    ).toEqual([expect.stringMatching(/Amount: 200000 → 40000/)]);
  });

  test('a payment within the maker’s limit needs no one else', async () => {
    const pay = await makerPays(20_000);
    expect(last(pay.events)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
    expect(pay.events.some((e) => e.event === 'approval_requested')).toBe(false);
    expect(sent(pay.reference)).toHaveLength(1);
  });
});

describe('standing approvals', () => {
  test('a standing approval lets a payment through on the maker’s confirmation, until it is used up', async () => {
    const granted = await call('approver', 'POST', '/v1/approvals/standing', {
      class: 'payment',
      maxAmount: 300_000,
      uses: 1,
      expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(granted.status, await granted.clone().text()).toBe(201);
    const first = await makerPays(210_000);
    expect(last(first.events)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
    expect(sent(first.reference)).toHaveLength(1);
    const second = await makerPays(210_000);
    expect(last(second.events)).toMatchObject({ data: { status: 'awaiting_approval' } });
    expect(sent(second.reference)).toHaveLength(0);
    const grants = (await (await call('approver', 'GET', '/v1/approvals/standing')).json()) as {
      grants: { status: string; used: number }[];
    };
    expect(grants.grants[0]).toMatchObject({ status: 'exhausted', used: 1 });
    // A revoked grant no longer applies, even to a card shown before.
    const another = await call('approver', 'POST', '/v1/approvals/standing', {
      tool: 'create_bill_*',
      uses: 5,
      expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    const grantId = ((await another.json()) as { grants: { grantId: string }[] }).grants[0]?.grantId;
    const bill = billToPay(220_000);
    const conversationId = `conv-${randomUUID()}`;
    const shown = await ask(sys.gatewayUrl, { query: bill.query, conversationId, ...tenant }, as('maker'));
    const card = shown.events.find((e) => e.event === 'mcq');
    const revoked = await fetch(`${sys.gatewayUrl}/v1/approvals/standing/${grantId}`, {
      method: 'DELETE',
      headers: as('approver'),
    });
    expect(revoked.status).toBe(204);
    const confirmed = await ask(
      sys.gatewayUrl,
      { ...tenant, conversationId, mcqResponse: { actionId: String(card?.data.actionId), value: 'confirm' } },
      as('maker'),
    );
    expect(last(confirmed.events)).toMatchObject({ data: { status: 'awaiting_approval' } });
    expect(sent(bill.reference)).toHaveLength(0);
    // A maker may not grant one.
    const refused = await call('maker', 'POST', '/v1/approvals/standing', {
      class: 'payment',
      uses: 5,
      expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(refused.status).toBe(403);
    // Granting and revoking are on the trail, with who did it.
    const trail = await sys.db.query(
      `select action, actor, summary from audit_log where org_id = $1 and action in ('granted', 'revoked') order by seq`,
      [tenant.orgId],
    );
    expect(trail.rows.map((r) => [r.action, r.actor])).toEqual([
      ['granted', 'u-approver'],
      ['granted', 'u-approver'],
      ['revoked', 'u-approver'],
    ]);
    expect(trail.rows[0].summary).toMatch(/payment writes, at most 3,00,000 a write, 1 use, until/);
    expect(trail.rows[2].summary).toContain(String(grantId));
  });
});

describe('programs and viewers', () => {
  test('a viewer’s write is refused before any card', async () => {
    const bill = billToPay(30_000);
    const { events } = await ask(
      sys.gatewayUrl,
      { query: bill.query, conversationId: `conv-${randomUUID()}`, ...tenant },
      as('viewer'),
    );
    expect(events.some((e) => e.event === 'mcq')).toBe(false);
    expect(sent(bill.reference)).toHaveLength(0);
  });

  test('a write asked over /mcp waits for a person, with no word to type and no way to confirm it', async () => {
    const bill = billToPay(10_000);
    const client = new Client({ name: 'approvals-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${sys.gatewayUrl}/mcp`), {
        requestInit: { headers: as('program') },
      }),
    );
    try {
      const asked = await client.callTool({
        name: 'query_cfo_agent',
        arguments: { query: bill.query, ...tenant },
      });
      expect(asked.structuredContent, JSON.stringify(asked.content)).toMatchObject({
        status: 'awaiting_approval',
      });
      expect(asked.structuredContent).not.toHaveProperty('mcq');
      expect(JSON.stringify(asked.content)).not.toMatch(/\bCONFIRM\b|type [A-Z]{3,} to confirm/);
      expect(sent(bill.reference)).toHaveLength(0);
      const inbox = (await (await call('approver2', 'GET', '/v1/approvals')).json()) as {
        approvals: { approvalId: string; tool: string; requestedBy: string }[];
      };
      const waiting = inbox.approvals.find((a) => a.requestedBy === 'u-program');
      expect(waiting?.tool).toBe('create_bill_payment');
      const approved = await call('approver2', 'POST', `/v1/approvals/${waiting?.approvalId}`, {
        decision: 'approve',
      });
      expect(await approved.json()).toMatchObject({ status: 'executed' });
      expect(sent(bill.reference)).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});
