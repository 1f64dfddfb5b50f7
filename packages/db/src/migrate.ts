import { type Migration, type MigrationResult, Migrator } from 'kysely/migration';
import * as initial from './migrations/0001_initial.ts';
import * as starterIntents from './migrations/0002_starter_intents.ts';
import type { MigrationDb } from './migrations/types.ts';

/** Every migration, by name; names sort in the order they run. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_initial': initial,
  '0002_starter_intents': starterIntents,
};

/** Migrating the database failed; `cause` is the database's error, `results` what ran. */
export class MigrationError extends Error {
  override name = 'MigrationError';
  readonly results: readonly MigrationResult[];
  constructor(message: string, results: readonly MigrationResult[], options?: ErrorOptions) {
    super(message, options);
    this.results = results;
  }
}

/**
 * Brings the database to the latest migration. Idempotent, and safe when several services
 * start at once: kysely holds a PostgreSQL advisory lock while it migrates, so the others
 * wait and then find nothing left to do.
 */
export async function migrateToLatest(db: MigrationDb): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } });
  let outcome: Awaited<ReturnType<Migrator['migrateToLatest']>>;
  try {
    outcome = await migrator.migrateToLatest();
  } catch (error) {
    throw new MigrationError(`database migration failed: ${describe(error)}`, [], { cause: error });
  }
  const results = outcome.results ?? [];
  if (outcome.error !== undefined) {
    const failed = results.find((r) => r.status === 'Error')?.migrationName;
    const which = failed ? ` ${failed}` : '';
    throw new MigrationError(`database migration${which} failed: ${describe(outcome.error)}`, results, {
      cause: outcome.error,
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
