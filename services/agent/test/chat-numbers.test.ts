// Many first turns of one tenant at once each get their own chat number, none is
// lost, and a turn saved twice (a redelivered request) is stored once.
import { randomUUID } from 'node:crypto';
import type { RequestScope } from '@munim/contracts';
import type { Database } from '@munim/db';
import { test } from '@munim/testkit';
import { type Kysely, sql } from 'kysely';
import { describe, expect } from 'vitest';
import { AgentStore } from '../src/run/store.ts';

let db: Kysely<Database>;
let store: AgentStore;

// Enough connections that the first turns really run side by side in PostgreSQL.
test.override('dbPoolSize', { scope: 'file' }, 24);

test.beforeAll(async ({ db: fileDb }) => {
  db = fileDb;
  store = new AgentStore(db);
});

const tenantOf = () => ({
  entityId: `ent-${randomUUID().slice(0, 8)}`,
  orgId: `org-${randomUUID().slice(0, 4)}`,
});

const scopeOf = (
  tenant: { entityId: string; orgId: string },
  conversationId: string = randomUUID(),
): RequestScope => ({
  requestId: randomUUID(),
  conversationId,
  ...tenant,
});

const turnOf = (scope: RequestScope, text: string) => [
  { role: 'user' as const, content: text, requestId: scope.requestId },
  { role: 'assistant' as const, content: `answer to ${text}`, requestId: scope.requestId },
];

/** A chat's messages after "show all invoices" and its follow-up "and bills?". */
const TWO_TURNS = ['show all invoices', 'answer to show all invoices', 'and bills?', 'answer to and bills?'];

const rowsOf = (tenant: { entityId: string; orgId: string }) =>
  db
    .selectFrom('unified_conversations')
    .select(['id', 'chat_number', 'message_count', 'messages'])
    .where('entity_id', '=', tenant.entityId)
    .where('org_id', '=', tenant.orgId)
    .orderBy('chat_number')
    .execute();

/** A small seeded generator, so a failing mix can be run again. */
function generator(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s % n;
  };
}

describe('chat numbers under concurrent first turns', () => {
  test('numbers 40 first turns of one tenant sent at once 1..40, losing none', async () => {
    const tenant = tenantOf();
    const scopes = Array.from({ length: 40 }, () => scopeOf(tenant));
    const saved = await Promise.allSettled(
      scopes.map((s, i) => store.appendTurn(s, turnOf(s, `question ${i}`))),
    );
    expect(saved.filter((r) => r.status === 'rejected')).toEqual([]);
    const rows = await rowsOf(tenant);
    expect(rows.map((r) => r.chat_number)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(scopes.map((s) => s.conversationId)));
    expect(rows.every((r) => r.message_count === 2 && r.messages.length === 2)).toBe(true);
  });

  test('keeps every turn of generated mixes of tenants, new chats and follow-ups sent at once', async () => {
    for (const seed of [1, 7, 42, 1234, 99991]) {
      const next = generator(seed);
      const tenants = Array.from({ length: 1 + next(3) }, tenantOf);
      // Each tenant's existing chats, to which some of the turns below add.
      const existing = new Map(tenants.map((t) => [t, [] as string[]]));
      for (const t of tenants) {
        for (let i = next(3); i > 0; i--) {
          const s = scopeOf(t);
          await store.appendTurn(s, turnOf(s, 'earlier'));
          existing.get(t)?.push(s.conversationId);
        }
      }
      const sends = Array.from({ length: 20 + next(30) }, () => {
        const tenant = tenants[next(tenants.length)] as (typeof tenants)[number];
        const chats = existing.get(tenant) ?? [];
        const followUp = chats.length > 0 && next(3) === 0;
        return scopeOf(tenant, followUp ? chats[next(chats.length)] : randomUUID());
      });
      const saved = await Promise.allSettled(sends.map((s, i) => store.appendTurn(s, turnOf(s, `q${i}`))));
      expect(
        saved.filter((r) => r.status === 'rejected'),
        `seed ${seed}`,
      ).toEqual([]);
      for (const t of tenants) {
        const rows = await rowsOf(t);
        // Numbered 1..n without a gap or a repeat, each turn of the tenant stored once, in its chat.
        expect(
          rows.map((r) => r.chat_number),
          `seed ${seed}`,
        ).toEqual(rows.map((_, i) => i + 1));
        const stored = rows.flatMap((r) => r.messages.map((m) => `${r.id}:${m.requestId}:${m.role}`)).sort();
        const sent = sends
          .filter((s) => s.entityId === t.entityId && s.orgId === t.orgId)
          .flatMap((s) => [
            `${s.conversationId}:${s.requestId}:user`,
            `${s.conversationId}:${s.requestId}:assistant`,
          ]);
        const earlier = rows.flatMap((r) =>
          r.messages.filter((m) => m.content === 'earlier' || m.content === 'answer to earlier'),
        );
        expect(stored.length, `seed ${seed}`).toBe(sent.length + earlier.length);
        expect(
          sent.every((key) => stored.includes(key)),
          `seed ${seed}`,
        ).toBe(true);
        for (const r of rows) expect(r.message_count, `seed ${seed}`).toBe(r.messages.length);
      }
    }
  });

  test('stores a turn once when its request saves it again (a redelivery after the save)', async () => {
    const tenant = tenantOf();
    const scope = scopeOf(tenant);
    const turn = turnOf(scope, 'show all invoices');
    await Promise.all([store.appendTurn(scope, turn), store.appendTurn(scope, turn)]);
    await store.appendTurn(scope, turn);
    const follow = scopeOf(tenant, scope.conversationId);
    await store.appendTurn(follow, turnOf(follow, 'and bills?'));
    const [row] = await rowsOf(tenant);
    expect(row?.messages.map((m) => m.content)).toEqual(TWO_TURNS);
    expect(row?.message_count).toBe(4);
  });
});

describe('chats numbered before the counter existed', () => {
  test('keep their numbers, and the next chat continues after the highest', async () => {
    const tenant = tenantOf();
    // Chats an agent from before the counter numbered (no counter row for the tenant yet).
    for (const n of [1, 2, 5]) {
      await db
        .insertInto('unified_conversations')
        .values({
          id: randomUUID(),
          ...{ entity_id: tenant.entityId, org_id: tenant.orgId },
          chat_number: n,
          chat_name: `old ${n}`,
          messages: '[]',
        })
        .execute();
    }
    const scopes = Array.from({ length: 4 }, () => scopeOf(tenant));
    await Promise.all(
      scopes.map((s, i) => store.appendTurn(s, turnOf(s, `new ${i}`), { fresh: i % 2 === 0 })),
    );
    const rows = await rowsOf(tenant);
    expect(rows.map((r) => r.chat_number)).toEqual([1, 2, 5, 6, 7, 8, 9]);
    // Another tenant's numbering is its own.
    const other = tenantOf();
    const first = scopeOf(other);
    await store.appendTurn(first, turnOf(first, 'hello'), { fresh: true });
    expect((await rowsOf(other)).map((r) => r.chat_number)).toEqual([1]);
  });
});

describe('a turn of a conversation the gateway has just named (fresh)', () => {
  test('is numbered as any first turn, and saved once when its request saves it again', async () => {
    const tenant = tenantOf();
    const scopes = Array.from({ length: 12 }, () => scopeOf(tenant));
    const saved = await Promise.allSettled(
      scopes.map((s, i) => store.appendTurn(s, turnOf(s, `question ${i}`), { fresh: true })),
    );
    expect(saved.filter((r) => r.status === 'rejected')).toEqual([]);
    // A redelivered request saves its turn again, still marked fresh: nothing is added.
    await store.appendTurn(scopes[0]!, turnOf(scopes[0]!, 'question 0'), { fresh: true });
    const rows = await rowsOf(tenant);
    expect(rows.map((r) => r.chat_number)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(rows.every((r) => r.message_count === 2 && r.messages.length === 2)).toBe(true);
  });

  test("added to a conversation that exists after all, or never to another tenant's", async () => {
    const tenant = tenantOf();
    const first = scopeOf(tenant);
    await store.appendTurn(first, turnOf(first, 'show all invoices'));
    // Marked fresh wrongly (a message forged or replayed on the bus): appended all the same.
    const again = scopeOf(tenant, first.conversationId);
    await store.appendTurn(again, turnOf(again, 'and bills?'), { fresh: true });
    const [row] = await rowsOf(tenant);
    expect(row?.messages.map((m) => m.content)).toEqual(TWO_TURNS);
    const other = scopeOf(tenantOf(), first.conversationId);
    await store.appendTurn(other, turnOf(other, 'steal'), { fresh: true });
    const [after] = await rowsOf(tenant);
    expect(after?.messages).toHaveLength(4);
    expect(await rowsOf({ entityId: other.entityId, orgId: other.orgId })).toEqual([]);
  });
});

describe('a turn saved while its database connection dies', () => {
  test('is saved on a new connection, not dropped', async () => {
    const tenant = tenantOf();
    const scope = scopeOf(tenant);
    // Hold the tenant's chat number, so the save waits on a connection the test can then cut.
    const holder = await db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      await sql`insert into conversation_chat_numbers (entity_id, org_id, last_number)
        values (${tenant.entityId}, ${tenant.orgId}, 1)`.execute(conn);
      const saving = store.appendTurn(scope, turnOf(scope, 'show all bills')).then(
        () => 'saved',
        (error: unknown) => error,
      );
      const waiting = async () =>
        (
          await sql<{ pid: number }>`select pid from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(db)
        ).rows.map((r) => r.pid);
      await expect.poll(waiting, { timeout: 5_000, interval: 50 }).toHaveLength(1);
      const [pid] = await waiting();
      await sql`select pg_terminate_backend(${pid}::int)`.execute(db);
      await sql`rollback`.execute(conn);
      return saving;
    });
    expect(await holder).toBe('saved');
    const rows = await rowsOf(tenant);
    expect(rows.map((r) => [r.chat_number, r.message_count])).toEqual([[1, 2]]);
  });
});
