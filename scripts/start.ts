/**
 * `npm start`: the whole system on this machine. Uses NATS_URL, DATABASE_URL and MCP_SERVER_URL
 * when set; otherwise the local NATS (or a nats-server from PATH), an embedded PostgreSQL (a real
 * server from the npm registry, data under .data/postgres) and the demo books MCP server. The
 * database is migrated and the JetStream streams made once, here, before any service starts.
 * `-- --scale validator=2` adds instances. The messaging service (WhatsApp) starts only when the
 * WHATSAPP_* settings are in the environment (docs/whatsapp.md).
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
import { WHATSAPP_REQUIRED } from '../services/messaging/src/env.ts';

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

const say = (msg: string) => console.log(`munim: ${msg}`);

// WhatsApp: all four settings start the messaging service, none leave it off, some are a mistake.
const whatsApp = WHATSAPP_REQUIRED.filter((name) => process.env[name]);
if (whatsApp.length > 0 && whatsApp.length < WHATSAPP_REQUIRED.length) {
  const missing = WHATSAPP_REQUIRED.filter((name) => !process.env[name]);
  console.error(
    `munim: invalid configuration — WhatsApp needs all of ${WHATSAPP_REQUIRED.join(', ')}; ` +
      `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing (docs/whatsapp.md)`,
  );
  process.exit(2);
}
const whatsAppOn = whatsApp.length === WHATSAPP_REQUIRED.length;
if (whatsAppOn) scale.messaging ??= 1;
const messagingPort = Number(process.env.MESSAGING_PORT || 8090);

const dataDir = resolve(import.meta.dirname, '..', '.data');
const env: Record<string, string | undefined> = { ...process.env };
const embedded: Embedded[] = [];
let logins: Partial<Record<DbService, string>> = {};

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
  stack = await startStack({
    env,
    serviceEnv,
    scale,
    // Each messaging instance on its own port: 8090 (MESSAGING_PORT), then the next ones.
    instanceEnv: (service, index) =>
      service === 'messaging' ? { MESSAGING_PORT: String(messagingPort + index - 1) } : undefined,
    onLine: pretty,
  });
} catch (error) {
  console.error(`munim: ${error instanceof Error ? error.message : String(error)}`);
  for (const e of embedded.reverse()) await e.stop().catch(() => {});
  process.exit(1);
}
// The gateway's readiness does not wait for the optional messaging service: wait for its own.
const messagingHost = ['', '0.0.0.0', '::'].includes(env.MESSAGING_HOST ?? '')
  ? '127.0.0.1'
  : env.MESSAGING_HOST;
const messagingUrls = stack.processes
  .filter((p) => p.service === 'messaging')
  .map((p) => `http://${messagingHost}:${p.ownEnv.MESSAGING_PORT}`);
try {
  await waitReady(messagingUrls, stack.processes);
} catch (error) {
  console.error(`munim: ${error instanceof Error ? error.message : String(error)}`);
  await stack.stop();
  for (const e of embedded.reverse()) await e.stop().catch(() => {});
  process.exit(1);
}
say(`ready — gateway at ${stack.gatewayUrl}`);
if (whatsAppOn)
  say(
    `WhatsApp is on — webhook at ${messagingUrls[0] ?? `http://127.0.0.1:${messagingPort}`}/v1/channels/whatsapp/webhook (Meta needs an HTTPS address in front of it)`,
  );
else say(`WhatsApp is off — set ${WHATSAPP_REQUIRED.join(', ')} to connect a number (docs/whatsapp.md)`);
say(
  `try: curl -N -X POST ${stack.gatewayUrl}/v1/query -H 'content-type: application/json' -d '{"query":"show all invoices","entityId":"demo","orgId":"demo"}'`,
);

/** Resolves once every URL's /readyz answers 200; throws when a service exits or a minute passes. */
async function waitReady(urls: string[], processes: typeof stack.processes): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (const url of urls) {
    for (;;) {
      const gone = processes.find((p) => p.child.exitCode !== null || p.child.signalCode !== null);
      if (gone) throw new Error(`${gone.name} stopped during start (see its lines above)`);
      const res = await fetch(`${url}/readyz`).catch(() => undefined);
      if (res?.ok) break;
      if (Date.now() > deadline) throw new Error(`messaging was not ready in time at ${url}/readyz`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

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
