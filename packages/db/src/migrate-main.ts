/**
 * `npm run migrate`: brings DATABASE_URL's schema to this code's latest migration, once, before
 * the services start (they only check it). Idempotent; several at once are serialised. Reads
 * LLM_CONFIG_KEY too: needed only while model API keys stored without associated data remain.
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
  // Migration 0023 seals legacy model API keys with the gateway's and agent's key.
  await migrateToLatest(db, { llmConfigKey: process.env.LLM_CONFIG_KEY });
  console.log('migrate: the database schema is current');
} catch (error) {
  console.error(`migrate: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
