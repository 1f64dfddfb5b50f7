import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalPolicies, createDb, type Database } from '../src/index.ts';
import { createMigratedTestDatabase, serviceLoginUrls, type TestDatabase } from '../src/testing.ts';

/**
 * Orgs' own approval policies on a real PostgreSQL, each service logging in as its own role: the
 * gateway sets them (one per org, the last set wins, with who set it), the agent only reads them.
 */
let database: TestDatabase;
let gateway: Kysely<Database>;
let agent: Kysely<Database>;

beforeAll(async () => {
  database = await createMigratedTestDatabase();
  const urls = await serviceLoginUrls(database);
  gateway = createDb(urls.gateway, { max: 2 });
  agent = createDb(urls.agent, { max: 2 });
});

afterAll(async () => {
  await gateway?.destroy();
  await agent?.destroy();
  await database?.drop();
});

const POLICY = {
  rules: [{ match: { class: 'payment', minAmount: 100000 }, approvers: 1, roles: ['approver', 'owner'] }],
  limits: { maker: { maxAmount: 50000 } },
};

describe('an org’s approval policy', () => {
  it('is set by the gateway, replaced as a whole, and read by the agent for that org only', async () => {
    const set = new ApprovalPolicies(gateway);
    expect(await set.get('org-a')).toBeUndefined();
    const first = await set.put('org-a', POLICY, 'admin:1234');
    expect(first).toMatchObject({ orgId: 'org-a', policy: POLICY, updatedBy: 'admin:1234' });
    const second = await set.put('org-a', { rules: [] }, 'key:abcd');
    expect(second).toMatchObject({ policy: { rules: [] }, updatedBy: 'key:abcd' });
    expect(Date.parse(second.updatedAt)).toBeGreaterThanOrEqual(Date.parse(first.updatedAt));
    const read = new ApprovalPolicies(agent);
    expect(await read.get('org-a')).toEqual(second);
    expect(await read.get('org-b')).toBeUndefined();
  });

  it('cannot be changed by the agent’s role', async () => {
    await expect(new ApprovalPolicies(agent).put('org-c', POLICY, 'agent')).rejects.toThrow(
      /permission denied/,
    );
    await expect(
      agent.deleteFrom('approval_policies').where('org_id', '=', 'org-a').execute(),
    ).rejects.toThrow(/permission denied/);
    await expect(
      gateway.deleteFrom('approval_policies').where('org_id', '=', 'org-a').execute(),
    ).rejects.toThrow(/permission denied/);
  });
});
