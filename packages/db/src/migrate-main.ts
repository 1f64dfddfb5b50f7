/**
 * `npm run migrate`: brings DATABASE_URL's schema to this code's latest migration, once, before
 * the services start (they only check it). Idempotent; several at once are serialised. Reads
 * LLM_CONFIG_KEY too: needed only while model API keys stored without associated data remain.
 * Each `<SERVICE>_DB_PASSWORD` given (GATEWAY_, AGENT_, ROUTER_, LOGGER_, MCP_EXECUTOR_) becomes the
 * password of that service's own role, which the service's DATABASE_URL then names.
 */
import { createDb } from './db.ts';
import { migrateToLatest } from './migrate.ts';
import { DB_SERVICES, passwordVariable, setServicePasswords } from './roles.ts';

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
  const passwords = Object.fromEntries(
    DB_SERVICES.map((s) => [s, process.env[passwordVariable(s)] || undefined]),
  );
  await setServicePasswords(db, passwords);
  const set = DB_SERVICES.filter((s) => passwords[s]).map(passwordVariable);
  if (set.length > 0) console.log(`migrate: set the service roles' passwords from ${set.join(', ')}`);
} catch (error) {
  console.error(`migrate: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
