import { assertSchemaCurrent, assertServiceLogin, createDb } from '@munim/db';
import { connectService, createToolCatalog, runMain, serveProbes, stopService } from '@munim/kit';
import { sql } from 'kysely';
import { buildRouter } from './app.ts';
import { dbConversationSource } from './conversation.ts';
import { dbIntentSource } from './db-intents.ts';
import { loadEnv } from './env.ts';
import { businessCalendar } from './finance/clock.ts';
import { RouterStore } from './store.ts';

await runMain('router', async (log) => {
  const env = loadEnv();
  const db = createDb(env.DATABASE_URL, { max: 4, preparedStatements: env.DB_PREPARED_STATEMENTS === 'on' });
  await assertServiceLogin(db);
  await assertSchemaCurrent(db);
  const bus = await connectService('router', env, log);
  const app = await buildRouter({
    bus,
    log,
    intents: dbIntentSource(db, (name, reason) => log.warn({ intent: name, reason }, 'intent skipped')),
    tools: createToolCatalog(bus, { ttlMs: env.TOOLS_CACHE_MS, timeoutMs: env.TOOLS_REQUEST_TIMEOUT_MS }),
    conversations: dbConversationSource(db, (error) =>
      log.warn({ err: error }, 'conversation unavailable; routing without history'),
    ),
    store: new RouterStore(db),
    calendar: businessCalendar(db),
    config: {
      fastPathThreshold: env.FAST_PATH_THRESHOLD,
      intentsRefreshMs: env.INTENTS_REFRESH_MS,
      concurrency: env.ROUTER_CONCURRENCY,
      ackWaitMs: env.ROUTER_ACK_WAIT_MS,
      toolStrategy: env.TOOL_STRATEGY,
      cacheEnabled: env.RESPONSE_CACHE === 'on',
      cacheTtls: {
        volatileMs: env.CACHE_TTL_VOLATILE_MS,
        reportMs: env.CACHE_TTL_REPORT_MS,
        staticMs: env.CACHE_TTL_STATIC_MS,
      },
      routeMaxAgeMs: env.ROUTE_MAX_AGE_MS,
    },
  });
  await app.start();
  const checks = async () => ({
    postgres: await sql`select 1`.execute(db).then(
      () => true,
      () => false,
    ),
  });
  const probes = await serveProbes(bus, checks);
  log.info({ intents: app.matcher.size }, 'ready');
  return {
    probes,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    stop: stopService([app], bus, db),
  };
});
