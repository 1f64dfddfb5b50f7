import { assertServiceLogin, createDb } from '@munim/db';
import { connectService, runMain, serveProbes, stopService } from '@munim/kit';
import { buildLogger } from './app.ts';
import { loadEnv } from './env.ts';

await runMain('logger', async (log) => {
  const env = loadEnv();
  const db = createDb(env.DATABASE_URL, {
    max: env.LOGGER_CONCURRENCY + 2,
    log,
    preparedStatements: env.DB_PREPARED_STATEMENTS === 'on',
  });
  await assertServiceLogin(db);
  const bus = await connectService('logger', env, log);
  const app = await buildLogger({
    bus,
    log,
    db,
    config: {
      concurrency: env.LOGGER_CONCURRENCY,
      batchSize: env.LOGGER_BATCH_SIZE,
      lingerMs: env.LOGGER_LINGER_MS,
      ackWaitMs: env.LOGGER_ACK_WAIT_MS,
      retentionDays: env.EVENTS_RETENTION_DAYS,
      learnIntervalMs: env.LOGGER_LEARN_INTERVAL_MS,
    },
  });
  await app.start();
  const probes = await serveProbes(bus, app.health);
  log.info({ concurrency: env.LOGGER_CONCURRENCY }, 'ready');
  return {
    probes,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    stop: stopService([app], bus, db),
  };
});
