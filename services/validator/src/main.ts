import { connectBus } from '@munim/bus';
import { runMain, serveHealth } from '@munim/kit';
import { buildValidator } from './app.ts';
import { loadEnv } from './env.ts';

await runMain('validator', async (log) => {
  const env = loadEnv();
  const bus = await connectBus({ servers: env.NATS_URL, prefix: env.NATS_PREFIX, service: 'validator', log });
  await bus.ensureStreams();
  const app = await buildValidator({
    bus,
    log,
    config: { toolsTtlMs: env.VALIDATOR_TOOLS_TTL_MS, toolsRequestTimeoutMs: env.TOOLS_REQUEST_TIMEOUT_MS },
  });
  await app.start();
  serveHealth(bus);
  log.info({}, 'ready');
  return {
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    stop: async () => {
      await app.stop();
      await bus.nc.drain();
    },
  };
});
