import { Bus } from '@munim/bus';
import { createDb } from '@munim/db';
import { connect } from '@nats-io/transport-node';
import { sql } from 'kysely';
import { describe, expect } from 'vitest';
import { FixtureNats, freePort, natsUrl, test } from '../src/index.ts';

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

  test('makes another NATS prefix and another migrated database when asked, each its own', async ({
    database,
    nats,
    newDatabase,
    newNats,
  }) => {
    const [first, second] = [newNats(), newNats()];
    expect(new Set([nats.prefix, first.prefix, second.prefix]).size).toBe(3);
    const other = await newDatabase();
    expect(other.name).not.toBe(database.name);
    const db = createDb(other.url, { max: 1 });
    try {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(db);
      expect(rows[0]?.n).toBeGreaterThan(10);
    } finally {
      await db.destroy();
    }
  });

  test("gives each service its own login on the file's database", async ({ serviceLogins }) => {
    const db = createDb(serviceLogins.gateway, { max: 1 });
    try {
      const { rows } = await sql<{ user: string }>`select current_user as user`.execute(db);
      expect(rows[0]?.user).toMatch(/gateway/);
    } finally {
      await db.destroy();
    }
  });
});

describe('the nats fixture cleaning up', () => {
  test('deletes the streams another process made on its prefix', async () => {
    const nats = new FixtureNats();
    const nc = await connect({ servers: natsUrl() });
    try {
      // A service of a test's system: its own connection, no bus of the fixture's.
      const service = await Bus.create({ nc, prefix: nats.prefix, service: 'gateway' });
      await service.ensureStreams();
      await nats.cleanup();
      await expect(service.jsm.streams.info(service.streamName('work'))).rejects.toThrow(/stream not found/);
      await expect(service.jsm.streams.info(service.streamName('events'))).rejects.toThrow(
        /stream not found/,
      );
    } finally {
      await nc.close();
    }
  });
});
