// Statements with parameters run as named statements, prepared once per connection and bounded
// per connection; errors, transactions and schema changes behave as with unnamed statements.
import fc from 'fast-check';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../src/index.ts';
import { createTestDatabase, type TestDatabase } from '../src/testing.ts';

let database: TestDatabase;
const opened: Kysely<unknown>[] = [];

/** A pool of one connection, so every statement, and the view of what it prepared, share it. */
function oneConnection(opts: Parameters<typeof createDb>[1] = {}): Kysely<unknown> {
  const db = createDb(database.url, { max: 1, ...opts }) as unknown as Kysely<unknown>;
  opened.push(db);
  return db;
}

async function preparedOn(db: Kysely<unknown>): Promise<{ statement: string; executions: number }[]> {
  const { rows } = await sql<{ statement: string; executions: number }>`
    select statement, generic_plans + custom_plans as executions
    from pg_prepared_statements where not from_sql order by statement`.execute(db);
  return rows;
}

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  for (const db of opened) await db.destroy();
  await database?.drop();
});

describe('prepared statements', () => {
  it('prepares a statement once per connection and runs it again by name', async () => {
    const db = oneConnection();
    for (let i = 0; i < 5; i++) {
      const { rows } = await sql<{ n: number }>`select ${i}::int + 1 as n`.execute(db);
      expect(rows).toEqual([{ n: i + 1 }]);
    }
    expect(await preparedOn(db)).toEqual([{ statement: 'select $1::int + 1 as n', executions: 5 }]);
  });

  it('returns what an unnamed statement returns, for any values', async () => {
    const named = oneConnection();
    const unnamed = oneConnection({ preparedStatements: false });
    await fc.assert(
      fc.asyncProperty(
        fc.integer(),
        fc.string().filter((t) => !t.includes('\0')),
        fc.option(fc.boolean()),
        async (n, s, b) => {
          const query = sql<{ n: number; s: string; b: boolean | null }>`
          select ${n}::int as n, ${s}::text as s, ${b}::boolean as b`;
          const [a, c] = [await query.execute(named), await query.execute(unnamed)];
          expect(a.rows).toEqual(c.rows);
          expect(a.rows).toEqual([{ n, s, b }]);
        },
      ),
      { numRuns: 50 },
    );
    expect(await preparedOn(unnamed)).toEqual([]);
    expect((await preparedOn(named)).length).toBe(1);
  });

  it('prepares at most the bound per connection; later texts still run, unnamed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 1, max: 20 }),
        async (bound, texts) => {
          const db = oneConnection({ preparedPerConnection: bound });
          for (let k = 0; k < texts; k++) {
            // A different text for each k, as an IN-list of k + 1 items makes.
            const items = Array.from({ length: k + 1 }, (_, i) => sql`${i}::int`);
            const { rows } = await sql<{ n: number }>`select count(*)::int as n from (values ${sql.join(
              items.map((i) => sql`(${i})`),
            )}) v`.execute(db);
            expect(rows).toEqual([{ n: k + 1 }]);
          }
          expect((await preparedOn(db)).length).toBe(Math.min(bound, texts));
          await db.destroy();
        },
      ),
      { numRuns: 8 },
    );
  });

  it('leaves the connection usable after a statement fails, in its parse or its execution', async () => {
    const db = oneConnection();
    const divide = (d: number) => sql<{ q: number }>`select 10 / ${d}::int as q`.execute(db);
    await expect(divide(0)).rejects.toThrow(/division by zero/);
    expect((await divide(2)).rows).toEqual([{ q: 5 }]);
    await expect(divide(0)).rejects.toThrow(/division by zero/);
    expect((await divide(5)).rows).toEqual([{ q: 2 }]);
    await expect(sql`select frm ${1}::int`.execute(db)).rejects.toThrow(/syntax error/);
    await expect(sql`select ${1}::int from no_such_table`.execute(db)).rejects.toThrow(/does not exist/);
    expect((await divide(1)).rows).toEqual([{ q: 10 }]);
    // Prepared once, and the failed texts not at all.
    expect((await preparedOn(db)).map((p) => p.statement)).toEqual(['select 10 / $1::int as q']);
  });

  it('commits and rolls back transactions of named statements', async () => {
    const db = oneConnection();
    await sql`create table if not exists tx_items (id int primary key, name text not null)`.execute(db);
    const insert = (trx: Kysely<unknown>, id: number) =>
      sql`insert into tx_items (id, name) values (${id}, ${`item ${id}`})`.execute(trx);
    await db.transaction().execute(async (trx) => {
      await insert(trx, 1);
      await insert(trx, 2);
    });
    await expect(
      db.transaction().execute(async (trx) => {
        await insert(trx, 3);
        await insert(trx, 1); // duplicate key: the transaction fails and nothing of it stays
      }),
    ).rejects.toThrow(/duplicate key/);
    await expect(
      db.transaction().execute(async (trx) => {
        await insert(trx, 4);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const { rows } = await sql<{ id: number }>`select id from tx_items where id > ${0} order by id`.execute(
      db,
    );
    expect(rows.map((r) => r.id)).toEqual([1, 2]);
  });

  it('runs a statement unnamed on its connection once a migration changed its columns', async () => {
    const db = oneConnection();
    await sql`create table stale_items (id int primary key)`.execute(db);
    await sql`insert into stale_items values (1)`.execute(db);
    const read = (on: Kysely<unknown> = db) => sql`select * from stale_items where id = ${1}`.execute(on);
    expect((await read()).rows).toEqual([{ id: 1 }]);
    await sql`alter table stale_items add column name text default 'one'`.execute(db);
    // Outside a transaction: refused before it ran, it is run again unnamed at once.
    expect((await read()).rows).toEqual([{ id: 1, name: 'one' }]);
    expect((await read()).rows).toEqual([{ id: 1, name: 'one' }]);

    // In a transaction the refusal aborts it; the next try runs the statement unnamed.
    const other = sql`select * from stale_items where id >= ${2}`;
    await sql`insert into stale_items values (2, 'two')`.execute(db);
    expect((await other.execute(db)).rows).toEqual([{ id: 2, name: 'two' }]);
    await sql`alter table stale_items add column note text`.execute(db);
    await expect(db.transaction().execute((trx) => other.execute(trx))).rejects.toThrow(
      /cached plan must not change result type/,
    );
    const again = await db.transaction().execute((trx) => other.execute(trx));
    expect(again.rows).toEqual([{ id: 2, name: 'two', note: null }]);
  });

  it('runs statements without parameters as simple queries, several in one text included', async () => {
    const db = oneConnection();
    await sql`create table if not exists multi (n int); insert into multi values (1), (2)`.execute(db);
    const { rows } = await sql<{ n: number }>`select sum(n)::int as n from multi`.execute(db);
    expect(rows).toEqual([{ n: 3 }]);
    expect(await preparedOn(db)).toEqual([]);
  });
});
