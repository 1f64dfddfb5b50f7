/**
 * `npm run migrate`: brings DATABASE_URL's schema to this code's latest migration, once, before
 * the services start (they only check it). Idempotent; several at once are serialised.
 */
import { createDb } from './db.ts';
import { migrateToLatest } from './migrate.ts';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('migrate: DATABASE_URL is required (a postgres:// URL)');
  process.exit(2);
}
const db = createDb(url, { max: 1 });
try {
  await migrateToLatest(db);
  console.log('migrate: the database schema is current');
} catch (error) {
  console.error(`migrate: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
