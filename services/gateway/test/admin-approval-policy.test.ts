// An org's approval policy through the admin API: the policy in force and where it comes from (the
// org's own, the operator's APPROVAL_POLICY_FILE, or none), set by admin credentials for any org or
// by the org's own admins and owners for theirs; a bad policy is refused naming the entry. The
// gateway runs on its own database role; real NATS and PostgreSQL.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, type Database } from '@munim/db';
import { test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { loadEnv } from '../src/env.ts';
import { startGateway } from './helpers.ts';

const ADMIN_KEY = 'admin-key-approval-policy-0001';
const OWNER_A = 'owner-key-approval-policy-org-a-01';
const ADMIN_A = 'admin-key-approval-policy-org-a-02';
const MAKER_A = 'maker-key-approval-policy-org-a-03';
const OWNER_B = 'owner-key-approval-policy-org-b-04';
const KEYS = [
  `${OWNER_A}:ent-1:org-a`,
  `${ADMIN_A}:ent-1:org-a:user-admin:admin`,
  `${MAKER_A}:ent-1:org-a:user-maker:maker`,
  `${OWNER_B}:ent-9:org-b`,
].join(',');

const FILE_POLICY = {
  rules: [{ match: { class: 'payment', minAmount: 100000 }, approvers: 1, roles: ['approver', 'owner'] }],
  limits: { maker: { maxAmount: 50000 } },
};
const dir = mkdtempSync(join(tmpdir(), 'munim-gw-approval-policy-'));
const policyFile = join(dir, 'approval-policy.yaml');
writeFileSync(
  policyFile,
  'rules:\n  - match: { class: payment, minAmount: 100000 }\n    approvers: 1\n    roles: [approver, owner]\nlimits:\n  maker: { maxAmount: 50000 }\n',
);

let db: Kysely<Database>;
const gateways: Gateway[] = [];
let url: string;
let bare: string;

const call = async (base: string, method: string, path: string, key?: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};
const get = (orgId: string, key?: string, base = url) =>
  call(base, 'GET', `/v1/admin/approval-policy?orgId=${orgId}`, key);
const put = (orgId: string, body: unknown, key?: string) =>
  call(url, 'PUT', `/v1/admin/approval-policy?orgId=${orgId}`, key, body);

test.beforeAll(async ({ nats, serviceLogins }) => {
  db = createDb(serviceLogins.gateway, { max: 3 });
  const env = { GATEWAY_ADMIN_KEYS: ADMIN_KEY, GATEWAY_API_KEYS: KEYS };
  const withFile = await startGateway(nats, { ...env, APPROVAL_POLICY_FILE: policyFile }, db);
  const without = await startGateway(nats, env, db);
  gateways.push(withFile.gateway, without.gateway);
  ({ url } = withFile);
  bare = without.url;
});

afterAll(async () => {
  try {
    for (const gateway of gateways) await gateway.stop();
  } finally {
    await db?.destroy();
  }
});

describe('/v1/admin/approval-policy', () => {
  test('answers the operator’s file, or none, until the org sets its own', async () => {
    expect(await get('org-fresh', ADMIN_KEY)).toEqual({
      status: 200,
      body: { orgId: 'org-fresh', source: 'file', policy: FILE_POLICY },
    });
    expect(await get('org-fresh', ADMIN_KEY, bare)).toEqual({
      status: 200,
      body: { orgId: 'org-fresh', source: 'default', policy: null },
    });
  });

  test('refuses a bad policy with 400 naming the entry, and changes nothing', async () => {
    const ok = { match: { class: 'payment' }, approvers: 1, roles: ['owner'] };
    const bad: [unknown, string, RegExp][] = [
      [
        { rules: [ok, ok, { ...ok, match: { class: 'paymnet' } }] },
        'rules[2].match.class',
        /unknown class "paymnet"/,
      ],
      [{ rules: [{ ...ok, roles: ['boss'] }] }, 'rules[0].roles[0]', /unknown role "boss"/],
      [{ limits: { maker: { maxAmount: -5 } } }, 'limits.maker.maxAmount', /must not be negative/],
      [{ rules: [{ ...ok, approvers: 0 }] }, 'rules[0].approvers', /at least 1/],
    ];
    for (const [policy, field, message] of bad) {
      const answer = await put('org-bad', policy, ADMIN_KEY);
      expect(answer.status, JSON.stringify(policy)).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'BAD_REQUEST', field });
      expect(answer.body.error.message).toMatch(new RegExp(`^${field.replace(/[[\].]/g, '\\$&')}: `));
      expect(answer.body.error.message).toMatch(message);
    }
    expect((await put('org-bad', [1, 2], ADMIN_KEY)).status).toBe(400);
    expect((await get('org-bad', ADMIN_KEY)).body.source).toBe('file');
  });

  test('sets an org’s own policy, which then is the one in force for that org only', async () => {
    const policy = {
      rules: [{ match: { tool: 'pay_*', party: 'Acme Corp' }, approvers: 2, roles: ['owner'] }],
      limits: { approver: { maxAmount: 500000 } },
    };
    const set = await put('org-a', policy, ADMIN_KEY);
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ orgId: 'org-a', source: 'org', policy });
    expect(set.body.updatedBy).toMatch(/^admin:/);
    expect(await get('org-a', ADMIN_KEY)).toMatchObject({ status: 200, body: { source: 'org', policy } });
    expect((await get('org-b', ADMIN_KEY)).body.source).toBe('file');
    const stored = await db
      .selectFrom('approval_policies')
      .selectAll()
      .where('org_id', '=', 'org-a')
      .executeTakeFirst();
    expect(stored?.policy).toEqual(policy);
  });

  test('lets an org’s own admin or owner set that org’s policy, and no one else', async () => {
    const policy = { rules: [{ match: { class: 'destructive' }, approvers: 1, roles: ['approver'] }] };
    const byAdmin = await put('org-a', policy, ADMIN_A);
    expect(byAdmin).toMatchObject({ status: 200, body: { source: 'org', updatedBy: 'user-admin' } });
    expect((await get('org-a', OWNER_A)).body.policy).toEqual({ ...policy, limits: {} });
    expect((await put('org-b', policy, OWNER_B)).status).toBe(200);
    // Another org's, a maker, no credential: refused, nothing changes.
    const other = await put('org-b', { rules: [] }, ADMIN_A);
    expect(other.status).toBe(403);
    expect(other.body.error).toMatchObject({ code: 'FORBIDDEN', field: 'orgId' });
    expect((await get('org-b', OWNER_A)).status).toBe(403);
    expect((await put('org-a', { rules: [] }, MAKER_A)).status).toBe(403);
    expect((await get('org-a', MAKER_A)).status).toBe(403);
    expect((await put('org-a', { rules: [] })).status).toBe(401);
    expect((await get('org-a', ADMIN_KEY)).body.policy.rules).toEqual(policy.rules);
    expect((await get('org-b', ADMIN_KEY)).body.policy.rules).toEqual(policy.rules);
    // The other admin routes stay for admin credentials alone.
    expect((await call(url, 'GET', '/v1/admin/users?orgId=org-a', OWNER_A)).status).toBe(403);
  });
});

describe('APPROVAL_POLICY_FILE in the gateway', () => {
  test('stops the gateway naming the variable and the entry when the file is wrong', () => {
    const typo = join(dir, 'typo.yaml');
    writeFileSync(typo, 'rules:\n  - match: { class: paymnet }\n    approvers: 1\n    roles: [owner]\n');
    expect(() => loadEnv({ APPROVAL_POLICY_FILE: typo })).toThrow(
      /APPROVAL_POLICY_FILE: .*typo\.yaml: rules\[0\]\.match\.class: unknown class "paymnet"/,
    );
    expect(loadEnv({ APPROVAL_POLICY_FILE: policyFile }).APPROVAL_POLICY_FILE?.policy).toEqual(FILE_POLICY);
  });
});
