import type { Kysely } from 'kysely';

/**
 * The database as a migration sees it: untyped, because a migration must keep working
 * after the `Database` interface has moved on.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against no fixed schema type
export type MigrationDb = Kysely<any>;
