/**
 * `npm start`: the whole system on this machine. Uses NATS_URL, DATABASE_URL and MCP_SERVER_URL
 * when set; otherwise the local NATS (or a nats-server from PATH), an embedded PostgreSQL (a real
 * server from the npm registry, data under .data/postgres) and the demo books MCP server. The
 * database is migrated and the JetStream streams made once, here, before any service starts.
 * `-- --scale validator=2` adds instances.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createDb, type DbService, localServiceLogins, migrateToLatest } from '@munim/db';
import { createDemoBooks } from '@munim/demo-books';
import {
  type Embedded,
  ensureNats,
  SERVICES,
  type ServiceName,
  startPostgres,
  startStack,
} from '@munim/devstack';
import { migrateStreamsFromEnv } from '../packages/kit/src/migrate-streams.ts';

const { values } = parseArgs({
  options: { scale: { type: 'string', multiple: true } },
  allowPositionals: false,
});
const scale: Partial<Record<ServiceName, number>> = {};
for (const entry of values.scale ?? []) {
  const [name, count] = entry.split('=');
  if (!SERVICES.includes(name as ServiceName) || !/^\d+$/.test(count ?? '') || Number(count) < 1) {
    console.error(`--scale ${entry}: expected <service>=<count> with service one of ${SERVICES.join(', ')}`);
    process.exit(2);
  }
  scale[name as ServiceName] = Number(count);
}

const dataDir = resolve(import.meta.dirname, '..', '.data');
const env: Record<string, string | undefined> = { ...process.env };
const embedded: Embedded[] = [];
let logins: Partial<Record<DbService, string>> = {};
const say = (msg: string) => console.log(`munim: ${msg}`);

try {
  if (!env.NATS_URL) {
    const nats = await ensureNats(resolve(dataDir, 'nats'));
    embedded.push(nats);
    env.NATS_URL = nats.url;
  }
  if (!env.DATABASE_URL) {
    const pg = await startPostgres(resolve(dataDir, 'postgres'), Number(env.EMBEDDED_PG_PORT ?? 5499));
    embedded.push(pg);
    env.DATABASE_URL = pg.url;
    say(`embedded PostgreSQL at ${new URL(pg.url).host} (data under .data/postgres)`);
  }
  // Once, before any service starts: the services find the schema current.
  const db = createDb(env.DATABASE_URL, { max: 1 });
  try {
    await migrateToLatest(db, { llmConfigKey: env.LLM_CONFIG_KEY });
    // Each service logs in as its own role, with only its grants (its password derived here).
    logins = await localServiceLogins(db, env.DATABASE_URL);
  } finally {
    await db.destroy();
  }
  // And the streams, as the migration job makes them where the services' NATS users may not.
  await migrateStreamsFromEnv(env);
  if (!env.MCP_SERVER_URL) {
    const books = await createDemoBooks().listen(Number(env.DEMO_BOOKS_PORT ?? 3100), '127.0.0.1');
    embedded.push({ url: books.url, stop: () => books.close() });
    env.MCP_SERVER_URL = books.url;
    say(`demo books MCP server at ${books.url}`);
  }
} catch (error) {
  console.error(`munim: ${error instanceof Error ? error.message : String(error)}`);
  for (const e of embedded.reverse()) await e.stop().catch(() => {});
  process.exit(1);
}

const pretty = (instance: string, line: string) => {
  try {
    const { level, msg, service: _s, time: _t, pid: _p, hostname: _h, ...rest } = JSON.parse(line);
    const tag = level >= 50 ? 'ERROR ' : level >= 40 ? 'WARN ' : '';
    const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
    console.log(`[${instance}] ${tag}${msg}${extra}`);
  } catch {
    console.log(`[${instance}] ${line}`);
  }
};

let stack: Awaited<ReturnType<typeof startStack>>;
try {
  const serviceEnv = Object.fromEntries(
    Object.entries(logins).map(([service, url]) => [service, { DATABASE_URL: url }]),
  );
  stack = await startStack({ env, serviceEnv, scale, onLine: pretty });
} catch (error) {
  console.error(`munim: ${error instanceof Error ? error.message : String(error)}`);
  for (const e of embedded.reverse()) await e.stop().catch(() => {});
  process.exit(1);
}
say(`ready — gateway at ${stack.gatewayUrl}`);
say(
  `try: curl -N -X POST ${stack.gatewayUrl}/v1/query -H 'content-type: application/json' -d '{"query":"show all invoices","entityId":"demo","orgId":"demo"}'`,
);

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  say('stopping…');
  await stack.stop();
  for (const e of embedded.reverse()) await e.stop().catch(() => {});
  process.exit(0);
};
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
