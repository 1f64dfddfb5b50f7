// Migration 0022 on a database holding approvals used before it: each is bound to the request that
// carried it, so a retry of its call by that request is still accepted, and the same call id under
// another request is refused.
import { randomUUID } from 'node:crypto';
import { createDb, type Database, MIGRATIONS, migrateToLatest } from '@munim/db';
import { createTestDatabase, type TestDatabase } from '@munim/db/testing';
import type { Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashArgs, PgApprovals } from '../src/app.ts';

let testDb: TestDatabase;
let db: Kysely<Database>;
const args = { contactId: 'C-1' };
const tenant = { entityId: 'ent-1', orgId: 'org-1' };
/** Used before the migration by call `c-used` of request `r-carrier`, which carried the approval. */
const used = randomUUID();
/** Approved before the migration, never used. */
const unused = randomUUID();

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDb(testDb.url, { max: 2 });
  // The database as it was before 0022: later migrations build on the columns 0022 adds.
  const before = Object.keys(MIGRATIONS).filter((name) => name < '0022_approval_binding');
  const { error } = await new Migrator({
    db,
    provider: { getMigrations: async () => Object.fromEntries(before.map((n) => [n, MIGRATIONS[n]!])) },
    allowUnorderedMigrations: true,
  }).migrateToLatest();
  if (error) throw error;
  const row = (action_id: string, executed_call_id: string | null) => ({
    action_id,
    request_id: 'r-proposer',
    conversation_id: 'conv-1',
    entity_id: tenant.entityId,
    org_id: tenant.orgId,
    tool: 'delete-contact',
    args: JSON.stringify(args),
    args_hash: hashArgs(args),
    tier: 1,
    question: 'Delete?',
    call_id: 'c-used',
    tool_call_id: 'tc-1',
    state: JSON.stringify({}),
    status: 'executing',
    approved_at: new Date(),
    approved_by_request: 'r-carrier',
    executed_call_id,
    expires_at: new Date(Date.now() + 60_000),
  });
  // The columns 0022 adds do not exist yet: the rows are written as the old executor left them.
  await (db as unknown as Kysely<Record<string, Record<string, unknown>>>)
    .insertInto('pending_actions')
    .values([row(used, 'c-used'), row(unused, null)])
    .execute();
  await migrateToLatest(db);
});

afterAll(async () => {
  await db?.destroy();
  await testDb?.drop();
});

const claim = (approvalId: string, requestId: string, callId = 'c-used') => ({
  approvalId,
  requestId,
  callId,
  tool: 'delete-contact',
  argsHash: hashArgs(args),
  ...tenant,
});

describe('approvals used before migration 0022', () => {
  it('are bound to the request that carried them', async () => {
    const approvals = new PgApprovals(db);
    expect(await approvals.use(claim(used, 'r-other'))).toEqual({
      ok: false,
      reason: 'approval used by another request',
    });
    expect(await approvals.use(claim(used, 'r-carrier'))).toEqual({ ok: true });
    const row = await db
      .selectFrom('pending_actions')
      .select(['executed_request_id', 'executed_at'])
      .where('action_id', '=', used)
      .executeTakeFirstOrThrow();
    expect(row.executed_request_id).toBe('r-carrier');
    expect(row.executed_at).toBeInstanceOf(Date);
  });

  it('left unused, are used once, by their carrier', async () => {
    const approvals = new PgApprovals(db);
    expect(await approvals.use(claim(unused, 'r-other'))).toMatchObject({ ok: false });
    expect(await approvals.use(claim(unused, 'r-carrier'))).toEqual({ ok: true });
    expect(await approvals.use(claim(unused, 'r-carrier', 'c-next'))).toEqual({
      ok: false,
      reason: 'approval used by another call',
    });
  });
});
