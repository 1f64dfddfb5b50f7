import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ApprovalPolicy,
  ApprovalPolicyError,
  approvalNeeded,
  PERSON_ROLES,
  type PersonRole,
  parseApprovalPolicy,
  WRITE_CLASSES,
  type WriteClass,
  type WriteForApproval,
} from '../src/index.ts';

/**
 * Who must approve a write, as data: errors that name the entry, the strictest rule deciding (the
 * most specific among equals), per-role limits for confirming alone and for approving, and the
 * principle checked on generated policies and writes — more money, an unread amount or an unread
 * party never needs fewer people, and a rule added never lowers what is needed.
 */

const refusal = (policy: unknown) => {
  try {
    parseApprovalPolicy(policy);
  } catch (error) {
    expect(error).toBeInstanceOf(ApprovalPolicyError);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(policy)}`);
};

describe('a bad approval policy', () => {
  it('is refused with a message naming the entry and what is wrong with it', () => {
    const ok = { match: { class: 'payment' }, approvers: 1, roles: ['owner'] };
    expect(refusal({ rules: [ok, ok, { ...ok, match: { class: 'paymnet' } }] })).toBe(
      'rules[2].match.class: unknown class "paymnet": one of payment, transfer, document, journal, party, edit, destructive, send, any',
    );
    expect(refusal({ rules: [{ ...ok, roles: ['owner', 'boss'] }] })).toMatch(
      /^rules\[0\]\.roles\[1\]: unknown role "boss": one of viewer, maker/,
    );
    expect(refusal({ rules: [{ ...ok, roles: ['owner', 'viewer'] }] })).toBe(
      'rules[0].roles[1]: a viewer only reads and cannot approve',
    );
    expect(refusal({ limits: { maker: { maxAmount: 5 }, boss: { maxAmount: 5 } } })).toMatch(
      /^limits\.boss: unknown role "boss"/,
    );
    expect(refusal({ limits: { maker: { maxAmount: '50k' } } })).toMatch(
      /^limits\.maker\.maxAmount: must be a number/,
    );
    expect(refusal({ rules: [{ ...ok, approvers: 0 }] })).toMatch(
      /^rules\[0\]\.approvers: must be at least 1/,
    );
    expect(refusal({ rules: [{ ...ok, approvers: 1.5 }] })).toMatch(
      /^rules\[0\]\.approvers: must be a whole number/,
    );
    expect(refusal({ rules: [{ ...ok, match: { tool: 'pay bills!' } }] })).toMatch(
      /^rules\[0\]\.match\.tool: /,
    );
    expect(refusal({ rules: [{ ...ok, match: { party: 'Acme' } }] })).toMatch(
      /^rules\[0\]\.match: a rule matches a class or a tool/,
    );
    expect(refusal({ rules: [{ ...ok, match: { class: 'send', minAmount: -1 } }] })).toMatch(
      /^rules\[0\]\.match\.minAmount: must not be negative/,
    );
    expect(refusal([])).toMatch(/^the policy: must be an object/);
  });

  it('accepts the example of the documentation, and nothing at all (no rules, no limits)', () => {
    const policy = parseApprovalPolicy({
      rules: [
        { match: { class: 'payment', minAmount: 100000 }, approvers: 1, roles: ['approver', 'owner'] },
        { match: { class: 'destructive' }, approvers: 1, roles: ['approver'] },
      ],
      limits: { maker: { maxAmount: 50000 } },
    });
    expect(policy.rules).toHaveLength(2);
    expect(parseApprovalPolicy(null)).toEqual({ rules: [], limits: {} });
  });
});

const write = (w: Partial<WriteForApproval> & { class: WriteClass }): WriteForApproval => ({
  tool: 'record_payment',
  ...w,
});

describe('who must approve a write', () => {
  it('takes the strictest matching rule, and the most specific among rules asking as many', () => {
    const policy = parseApprovalPolicy({
      rules: [
        { match: { class: 'any' }, approvers: 1, roles: ['approver', 'owner'] },
        { match: { class: 'payment', party: 'Acme Private Limited' }, approvers: 1, roles: ['owner'] },
        { match: { tool: 'pay_*' }, approvers: 1, roles: ['admin', 'owner'] },
        { match: { class: 'payment', minAmount: 1_000_000 }, approvers: 2, roles: ['approver'] },
      ],
    });
    const acme = approvalNeeded(policy, write({ class: 'payment', amount: 10, party: 'ACME PVT. LTD.' }), [
      'maker',
    ]);
    expect(acme).toMatchObject({ approvers: 1, roles: ['owner'], rule: 1 });
    expect(acme.reason).toMatch(/rule 2 .*for Acme Private Limited/);
    expect(
      approvalNeeded(policy, write({ class: 'payment', tool: 'pay_bill', amount: 10 }), ['maker']),
    ).toMatchObject({
      rule: 2,
    });
    expect(approvalNeeded(policy, write({ class: 'edit', amount: 0 }), ['maker'])).toMatchObject({ rule: 0 });
    expect(
      approvalNeeded(policy, write({ class: 'payment', amount: 2_000_000, party: 'Acme Pvt Ltd' }), [
        'owner',
      ]),
    ).toMatchObject({ approvers: 2, roles: ['approver'], rule: 3 });
  });

  it('lets roles approve within their limits, and the maker confirm alone within its own', () => {
    const policy = parseApprovalPolicy({
      rules: [
        { match: { class: 'payment', minAmount: 100_000 }, approvers: 1, roles: ['approver', 'owner'] },
      ],
      limits: { maker: { maxAmount: 50_000 }, approver: { maxAmount: 500_000 } },
    });
    const need = (amount: number | undefined, roles: PersonRole[], cls: WriteClass = 'payment') =>
      approvalNeeded(policy, write({ class: cls, amount }), roles);
    expect(need(40_000, ['maker']).approvers).toBe(0);
    expect(need(60_000, ['maker'])).toMatchObject({ approvers: 1, roles: ['approver', 'owner'] });
    expect(need(60_000, ['owner']).approvers).toBe(0);
    expect(need(200_000, ['maker'])).toMatchObject({ approvers: 1, roles: ['approver', 'owner'] });
    // Over the approver's limit: only the owner may approve.
    expect(need(900_000, ['maker']).roles).toEqual(['owner']);
    expect(need(undefined, ['maker']).roles).toEqual(['owner']);
    // No role that makes writes: someone else approves.
    expect(need(10, ['viewer'], 'document').approvers).toBe(1);
    expect(need(10, ['approver'], 'document').approvers).toBe(1);
    // A write that moves no money is within every limit.
    expect(need(0, ['maker'], 'party').approvers).toBe(0);
  });

  it('is the maker’s own confirmation when there is no policy, or nothing in it', () => {
    const big = write({ class: 'payment', amount: 10_000_000 });
    expect(approvalNeeded(undefined, big, ['maker']).approvers).toBe(0);
    expect(approvalNeeded(parseApprovalPolicy({}), big, ['maker']).approvers).toBe(0);
  });
});

describe('on generated policies and writes', () => {
  const roles = fc.uniqueArray(fc.constantFrom(...PERSON_ROLES), { minLength: 1, maxLength: 3 });
  const approverRoles = fc.uniqueArray(fc.constantFrom(...PERSON_ROLES.filter((r) => r !== 'viewer')), {
    minLength: 1,
    maxLength: 3,
  });
  const rule = fc.record({
    match: fc.oneof(
      fc.record({ class: fc.constantFrom(...WRITE_CLASSES, 'any' as const) }),
      fc.record({ tool: fc.constantFrom('pay_*', 'record_payment', '*', 'void_?nvoice') }),
      fc.record({
        class: fc.constantFrom(...WRITE_CLASSES),
        minAmount: fc.integer({ min: 0, max: 500_000 }),
      }),
      fc.record({ class: fc.constant('any' as const), party: fc.constantFrom('Acme', 'Globex') }),
    ),
    approvers: fc.integer({ min: 1, max: 3 }),
    roles: approverRoles,
  });
  const policies = fc
    .record({
      rules: fc.array(rule, { maxLength: 5 }),
      limits: fc.dictionary(
        fc.constantFrom(...PERSON_ROLES),
        fc.record({ maxAmount: fc.integer({ min: 0, max: 400_000 }) }),
      ),
    })
    .map((p) => parseApprovalPolicy(p));
  const writes = fc.record({
    tool: fc.constantFrom('record_payment', 'pay_bill', 'void_invoice', 'create_invoice'),
    class: fc.constantFrom(...WRITE_CLASSES),
    amount: fc.integer({ min: 0, max: 600_000 }),
    party: fc.constantFrom('Acme', 'Globex', 'Initech'),
  });
  const need = (policy: ApprovalPolicy, w: WriteForApproval, makers: PersonRole[]) =>
    approvalNeeded(policy, w, makers).approvers;

  it('never asks fewer people for more money, nor for an amount or a party it could not read', () => {
    fc.assert(
      fc.property(
        policies,
        writes,
        fc.integer({ min: 0, max: 300_000 }),
        roles,
        (policy, w, more, makers) => {
          const base = need(policy, w, makers);
          expect(need(policy, { ...w, amount: w.amount + more }, makers)).toBeGreaterThanOrEqual(base);
          expect(need(policy, { ...w, amount: undefined }, makers)).toBeGreaterThanOrEqual(base);
          expect(need(policy, { ...w, party: undefined, partyUnknown: true }, makers)).toBeGreaterThanOrEqual(
            base,
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never asks fewer people when a rule is added', () => {
    fc.assert(
      fc.property(policies, rule, writes, roles, (policy, added, w, makers) => {
        const more = parseApprovalPolicy({ ...policy, rules: [...policy.rules, added] });
        expect(need(more, w, makers)).toBeGreaterThanOrEqual(need(policy, w, makers));
      }),
      { numRuns: 500 },
    );
  });

  it('names as approvers only roles within their limit for the amount, or the owner when none is', () => {
    fc.assert(
      fc.property(policies, writes, roles, (policy, w, makers) => {
        const decided = approvalNeeded(policy, w, makers);
        if (decided.approvers === 0) return;
        const within = decided.roles.filter(
          (r) => (policy.limits[r]?.maxAmount ?? Infinity) >= (w.amount ?? 0),
        );
        expect(
          within.length === decided.roles.length ||
            (decided.roles.length === 1 && decided.roles[0] === 'owner'),
        ).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
