import { connectBus } from '@munim/bus';
import { runMain, serveHealth } from '@munim/kit';
import { buildGateway } from './app.ts';
import { loadEnv } from './env.ts';

runMain('gateway', async (log) => {
  const env = loadEnv();
  const bus = await connectBus({ servers: env.NATS_URL, prefix: env.NATS_PREFIX, service: 'gateway', log });
  await bus.ensureStreams();
  const gateway = await buildGateway({ bus, log, config: env });
  await gateway.start();
  const url = await gateway.app.listen({ port: env.PORT, host: env.HOST });
  const health = serveHealth(bus, async () => ({ http: gateway.app.server.listening }));
  log.info({ url, auth: env.GATEWAY_API_KEYS.length > 0 }, 'gateway listening');
  log.info({}, 'ready');
  return {
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    stop: async () => {
      health.unsubscribe();
      await gateway.stop();
      await bus.nc.drain();
    },
  };
});
