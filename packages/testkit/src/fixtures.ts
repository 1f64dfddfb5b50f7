import { createDb } from '@munim/db';
import { createMigratedTestDatabase, serviceLoginUrls, type TestDatabase } from '@munim/db/testing';
import { test as base } from 'vitest';
import { FixtureNats } from './nats.ts';

/**
 * vitest's `test` with munim's fixtures, each made once per test file for the first test that
 * asks for it and removed after the file's last test:
 * - `nats`: a slice of the real NATS (a unique subject and stream prefix); `nats.bus(service)`, and
 *   `lastSeq`/`consumerCount` of its streams;
 * - `newNats()`: another slice, made when called, for a service that must not share the file's
 *   (an executor on its own queue group); each is cleaned up after the file;
 * - `database`: a fresh PostgreSQL database, migrated (a copy of a template migrated once);
 * - `newDatabase()`: another such database, made when called, for a second system in the file;
 *   each is dropped after the file;
 * - `serviceLogins`: each service's own login on it (its role, as deployed), by service;
 * - `db`: a kysely connection to it, of `dbPoolSize` connections (4; a file that runs many queries at
 *   once sets more with `test.override('dbPoolSize', { scope: 'file' }, 20)`).
 */
export const test = base
  .extend(
    'nats',
    { scope: 'file' }, // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
    async ({}, { onCleanup }) => {
      const nats = new FixtureNats();
      onCleanup(() => nats.cleanup());
      return nats;
    },
  )
  .extend(
    'newNats',
    { scope: 'file' }, // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
    async ({}, { onCleanup }) => {
      const made: FixtureNats[] = [];
      onCleanup(async () => {
        await Promise.all(made.map((nats) => nats.cleanup()));
      });
      return (): FixtureNats => {
        const nats = new FixtureNats();
        made.push(nats);
        return nats;
      };
    },
  )
  .extend(
    'database',
    { scope: 'file' }, // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
    async ({}, { onCleanup }) => {
      const database = await createMigratedTestDatabase();
      onCleanup(() => database.drop());
      return database;
    },
  )
  .extend(
    'newDatabase',
    { scope: 'file' }, // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
    async ({}, { onCleanup }) => {
      const made: TestDatabase[] = [];
      onCleanup(async () => {
        await Promise.all(made.map((database) => database.drop()));
      });
      return async (): Promise<TestDatabase> => {
        const database = await createMigratedTestDatabase();
        made.push(database);
        return database;
      };
    },
  )
  .extend('serviceLogins', { scope: 'file' }, ({ database }) => serviceLoginUrls(database))
  .extend('dbPoolSize', { scope: 'file' }, 4)
  .extend('db', { scope: 'file' }, async ({ database, dbPoolSize }, { onCleanup }) => {
    const db = createDb(database.url, { max: dbPoolSize });
    onCleanup(() => db.destroy());
    return db;
  });
