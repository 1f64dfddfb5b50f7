import { randomUUID } from 'node:crypto';
import { type ApprovalPolicy, parseApprovalPolicy, type RequestScope } from '@munim/contracts';
import { ApprovalPolicies, createDb, type Database } from '@munim/db';
import { test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { approvalFor } from '../src/confirmation/approval-for.ts';
import type { AgentContext } from '../src/run/context.ts';
import { AgentStore } from '../src/run/store.ts';

/**
 * Who must approve a write, as the approval flow asks the agent: the org's own policy (stored in
 * PostgreSQL through the gateway's role, read through the agent's) over the operator's file over
 * none; the write's class from its name, its amount and party from its arguments by meaning in
 * the business's currency. Real PostgreSQL; generated calls beside real-world ones.
 */

const FILE = parseApprovalPolicy({
  rules: [
    { match: { class: 'payment', minAmount: 100_000 }, approvers: 1, roles: ['approver', 'owner'] },
    { match: { class: 'destructive' }, approvers: 1, roles: ['approver'] },
    { match: { class: 'any', party: 'Globex Private Limited' }, approvers: 2, roles: ['owner'] },
  ],
  limits: { maker: { maxAmount: 50_000 } },
});

let agentDb: Kysely<Database>;
let gatewayDb: Kysely<Database>;
const contexts = new Map<string, AgentContext>();

/** The agent's context as `approvalFor` reads it: its store (its own database role) and its file policy. */
function ctxWith(policy: ApprovalPolicy | undefined): AgentContext {
  const key = JSON.stringify(policy ?? null);
  let ctx = contexts.get(key);
  if (!ctx) {
    ctx = { store: new AgentStore(agentDb), config: { approvalPolicy: policy } } as unknown as AgentContext;
    contexts.set(key, ctx);
  }
  return ctx;
}

const scopeOf = (orgId = `org-${randomUUID().slice(0, 8)}`): RequestScope => ({
  requestId: randomUUID(),
  conversationId: randomUUID(),
  entityId: 'ent-1',
  orgId,
});

test.beforeAll(async ({ serviceLogins }) => {
  agentDb = createDb(serviceLogins.agent, { max: 2 });
  gatewayDb = createDb(serviceLogins.gateway, { max: 2 });
});

afterAll(async () => {
  await agentDb?.destroy();
  await gatewayDb?.destroy();
});

describe('who must approve a write', () => {
  test('without a policy, the person who asked confirms every write', async () => {
    const decided = await approvalFor(
      ctxWith(undefined),
      scopeOf(),
      { tool: 'record_payment', args: { amount: 10_000_000 } },
      ['maker'],
    );
    expect(decided).toMatchObject({ needed: 0, source: 'default' });
  });

  test('with the operator’s file: real calls, their amounts read whatever their spelling', async () => {
    const ctx = ctxWith(FILE);
    const cases: [string, Record<string, unknown>, number, string?][] = [
      ['record_payment', { customer_name: 'Acme Corp', amount: '₹2,00,000' }, 1, 'rule 1'],
      ['record_payment', { customer_name: 'Acme Corp', amount: 40_000 }, 0],
      [
        'createPayment',
        { CustomerRef: { value: '7', name: 'Acme' }, TotalAmt: 60_000 },
        1,
        'over what the maker',
      ],
      [
        'create_invoice',
        { customer_id: 'C-1', line_items: [{ quantity: 3, rate: 20_000 }] },
        1,
        'over what the maker',
      ],
      ['create_invoice', { customer_id: 'C-1', line_items: [{ quantity: 2, rate: 20_000 }] }, 0],
      ['create_customer', { display_name: 'Initech', gstin: '27AAPFU0939F1ZV' }, 0],
      ['void_invoice', { invoice_id: 'INV-1' }, 1, 'rule 2'],
      // The amount lives in the books, not in the call: taken as over every minimum (fail closed).
      ['mark_invoices_paid', { invoices: [{ invoice_id: 'INV-1' }, { invoice_id: 'INV-2' }] }, 1, 'rule 1'],
      ['record_payment', { customer_name: 'GLOBEX PVT. LTD.', amount: 10 }, 2, 'rule 3'],
    ];
    for (const [tool, args, needed, rule] of cases) {
      // The party as the confirmation names it, read from the books.
      const party = 'customer_id' in args ? 'Acme Corp' : undefined;
      const decided = await approvalFor(ctx, scopeOf(), { tool, args, party }, ['maker']);
      expect(decided.needed, `${tool} ${JSON.stringify(args)}`).toBe(needed);
      expect(decided.source).toBe('file');
      if (rule && decided.needed > 0 && 'rule' in decided) expect(decided.rule).toContain(rule);
    }
  });

  test('reads amounts the server gives in paise, and fails closed on what it cannot read', async () => {
    const ctx = ctxWith(FILE);
    const paise = await approvalFor(
      ctx,
      scopeOf(),
      { tool: 'create_payment', args: { amount: 4_000_000 }, minorUnits: new Set(['amount']) },
      ['maker'],
    );
    expect(paise).toMatchObject({ needed: 0, amount: 40_000 });
    const words = await approvalFor(
      ctx,
      scopeOf(),
      { tool: 'create_payment', args: { amount: 'forty thousand' } },
      ['maker'],
    );
    expect(words).toMatchObject({ needed: 1, roles: ['approver', 'owner'] });
    expect(words.needed > 0 && 'rule' in words && words.rule).toMatch(/amount could not be read/);
    const dollars = await approvalFor(ctx, scopeOf(), { tool: 'create_payment', args: { amount: '$100' } }, [
      'maker',
    ]);
    expect(dollars.needed).toBe(1);
    // A party named only by an id: every party rule holds; named as the confirmation read it, only its own.
    const byId = await approvalFor(
      ctx,
      scopeOf(),
      { tool: 'pay_bill', args: { vendor_id: 'V-9', amount: 5 } },
      ['maker'],
    );
    expect(byId.needed).toBe(2);
    const byName = await approvalFor(
      ctx,
      scopeOf(),
      { tool: 'pay_bill', args: { vendor_id: 'V-9', amount: 5 }, party: 'Initech' },
      ['maker'],
    );
    expect(byName.needed).toBe(0);
  });

  test('asks for no one less as generated calls move more money, in any naming style', async () => {
    const ctx = ctxWith(FILE);
    const styles = [
      (w: string[]) => w.join('_'),
      (w: string[]) => w.map((x, i) => (i ? x[0]?.toUpperCase() + x.slice(1) : x)).join(''),
      (w: string[]) => w.map((x) => x[0]?.toUpperCase() + x.slice(1)).join(''),
    ];
    const indian = (n: number) => n.toLocaleString('en-IN');
    const writes = [
      (s: (w: string[]) => string, n: number) => ({ [s(['payment', 'amount'])]: n }),
      (s: (w: string[]) => string, n: number) => ({ [s(['amount'])]: `₹${indian(n)}` }),
      (s: (w: string[]) => string, n: number) => ({
        payment: { [s(['total', 'amount'])]: `Rs. ${indian(n)}` },
      }),
    ];
    for (const style of styles)
      for (const shape of writes) {
        let previous = 0;
        for (const amount of [1_000, 49_999, 50_000, 50_001, 99_999, 100_000, 2_500_000]) {
          const decided = await approvalFor(
            ctx,
            scopeOf(),
            { tool: 'record_payment', args: shape(style, amount) },
            ['maker'],
          );
          // Past the maker's limit of 50,000 someone else approves; from 1,00,000 the payment rule asks.
          expect(decided.needed, `${JSON.stringify(shape(style, amount))}`).toBe(amount > 50_000 ? 1 : 0);
          expect(decided.amount).toBe(amount);
          expect(decided.needed).toBeGreaterThanOrEqual(previous);
          previous = decided.needed;
        }
      }
  });

  test('takes an org’s own policy over the file, for that org only, and a broken one needs the owner', async () => {
    const ctx = ctxWith(FILE);
    const org = scopeOf();
    const other = scopeOf();
    await new ApprovalPolicies(gatewayDb).put(
      org.orgId,
      { rules: [{ match: { tool: 'record_*' }, approvers: 3, roles: ['owner'] }] },
      'admin:test',
    );
    const write = { tool: 'record_payment', args: { amount: 10 } };
    expect(await approvalFor(ctx, org, write, ['maker'])).toMatchObject({ needed: 3, source: 'org' });
    expect(await approvalFor(ctx, other, write, ['maker'])).toMatchObject({ needed: 0, source: 'file' });
    expect(await approvalFor(ctxWith(undefined), org, write, ['maker'])).toMatchObject({ source: 'org' });
    // A stored policy that no longer parses (written before a rule of the schema changed).
    await new ApprovalPolicies(gatewayDb).put(other.orgId, { rules: [{ match: { class: 'paymnet' } }] }, 'x');
    const broken = await approvalFor(ctx, other, write, ['owner']);
    expect(broken).toMatchObject({ needed: 1, roles: ['owner'], source: 'org' });
    expect('rule' in broken && broken.rule).toMatch(/rules\[0\]/);
  });
});
