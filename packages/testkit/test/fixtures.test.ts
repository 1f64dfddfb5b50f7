import { sql } from 'kysely';
import { describe, expect } from 'vitest';
import { freePort, test } from '../src/index.ts';

let firstDatabase: string | undefined;

describe('the test kit', () => {
  test('gives a file one migrated database and one NATS prefix', async ({ database, db, nats }) => {
    firstDatabase = database.name;
    expect(database.name).toMatch(/^munim_t_[0-9a-f]{12}$/);
    // Migrated: the bookkeeping table lists every migration, and a table of the schema exists.
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(db);
    expect(rows[0]?.n).toBeGreaterThan(10);
    await sql`select 1 from request_events limit 1`.execute(db);
    const bus = await nats.bus('agent');
    expect(bus.prefix).toBe(nats.prefix);
    expect((await bus.jsm.streams.info(bus.streamName('events'))).config.name).toBe(bus.streamName('events'));
  });

  test('hands the next test of the file the same database', async ({ database }) => {
    expect(database.name).toBe(firstDatabase);
  });

  test('finds a port nothing listens on', async () => {
    const port = await freePort();
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });
});
