import { connectBus } from '@munim/bus';
import { assertServiceLogin, createDb } from '@munim/db';
import { natsAuthFromEnv, runMain, serveHealth, stopService, streamSettingsFromEnv } from '@munim/kit';
import { buildGateway } from './app.ts';
import { loadEnv } from './env.ts';

runMain('gateway', async (log) => {
  const env = loadEnv();
  const bus = await connectBus({
    servers: env.NATS_URL,
    prefix: env.NATS_PREFIX,
    service: 'gateway',
    log,
    auth: natsAuthFromEnv(env),
    streams: streamSettingsFromEnv(env),
  });
  await bus.ensureStreams();
  // The agent writes conversations and the logger migrates; the gateway only reads and soft-deletes.
  const db = env.DATABASE_URL
    ? createDb(env.DATABASE_URL, { max: 5, log, preparedStatements: env.DB_PREPARED_STATEMENTS === 'on' })
    : undefined;
  if (db) await assertServiceLogin(db);
  const gateway = await buildGateway({ bus, log, config: env, db });
  await gateway.start();
  const url = await gateway.app.listen({ port: env.PORT, host: env.HOST });
  const health = serveHealth(bus, async () => ({ http: gateway.app.server.listening }));
  log.info(
    {
      url,
      auth: gateway.authEnabled,
      conversations: Boolean(db),
    },
    'gateway listening',
  );
  log.info({}, 'ready');
  return {
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    stop: stopService([health, gateway], bus, db),
  };
});
