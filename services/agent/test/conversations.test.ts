// Conversations are a tenant's, entity and org together: two orgs sharing an
// entity id each number their chats from #MJ-0001 and never write into the other's.
import { randomUUID } from 'node:crypto';
import type { RequestScope } from '@munim/contracts';
import type { Database } from '@munim/db';
import { test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { describe, expect } from 'vitest';
import { AgentStore, ConversationForbiddenError } from '../src/run/store.ts';

let db: Kysely<Database>;
let store: AgentStore;

test.beforeAll(async ({ db: fileDb }) => {
  db = fileDb;
  store = new AgentStore(db);
});

/** A request of one org of a fresh shared entity, in `conversationId` (default: a new one). */
function scopes(): [(conversationId?: string) => RequestScope, (conversationId?: string) => RequestScope] {
  const entityId = `ent-${randomUUID().slice(0, 8)}`;
  const of =
    (orgId: string) =>
    (conversationId: string = randomUUID()): RequestScope => ({
      requestId: randomUUID(),
      conversationId,
      entityId,
      orgId,
    });
  return [of('org-a'), of('org-b')];
}

const turn = (text: string) => [
  { role: 'user' as const, content: text },
  { role: 'assistant' as const, content: `answer to ${text}` },
];

const rowOf = (id: string) =>
  db
    .selectFrom('unified_conversations')
    .select(['org_id', 'chat_number', 'message_count', 'summary'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe('conversations of two orgs sharing an entity id', () => {
  test('numbers each org’s chats from 1', async () => {
    const [a, b] = scopes();
    const [a1, a2, b1, b2] = [a(), a(), b(), b()];
    for (const scope of [a1, a2, b1, b2]) await store.appendTurn(scope, turn('show all invoices'));
    expect((await rowOf(a1.conversationId)).chat_number).toBe(1);
    expect((await rowOf(a2.conversationId)).chat_number).toBe(2);
    expect((await rowOf(b1.conversationId)).chat_number).toBe(1);
    expect((await rowOf(b2.conversationId)).chat_number).toBe(2);
  });

  test('gives a new chat the next number when another of its tenant took the same one first', async () => {
    const [a] = scopes();
    const scope = a();
    // Another new chat of the tenant holds #1, not yet committed: this one computes #1 too, waits, and collides.
    const held = await db.startTransaction().execute();
    await held
      .insertInto('unified_conversations')
      .values({ id: randomUUID(), entity_id: scope.entityId, org_id: scope.orgId, chat_number: 1 })
      .execute();
    const appended = store.appendTurn(scope, turn('hello'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await held.commit().execute();
    await appended;
    expect((await rowOf(scope.conversationId)).chat_number).toBe(2);
  });

  test('never adds to, summarises or shows the other org’s conversation', async () => {
    const [a, b] = scopes();
    const mine = a();
    await store.appendTurn(mine, turn('show all bills'));
    const intruder = b(mine.conversationId);

    await expect(store.conversation(intruder)).rejects.toBeInstanceOf(ConversationForbiddenError);
    await store.appendTurn(intruder, turn('and the vendors?'));
    await store.saveSummary(intruder, 'not yours', 2);
    expect(await rowOf(mine.conversationId)).toEqual({
      org_id: 'org-a',
      chat_number: 1,
      message_count: 2,
      summary: null,
    });
    expect(await store.conversation(mine)).toMatchObject({ summary: null, summarizedCount: 0 });
  });
});
