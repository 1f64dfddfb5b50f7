import { connectBus } from '@munim/bus';
import { runMain, serveHealth } from '@munim/kit';
import { buildMcpExecutor } from './app.ts';
import { loadEnv } from './env.ts';

await runMain('mcp-executor', async (log) => {
  const env = loadEnv();
  const bus = await connectBus({
    servers: env.NATS_URL,
    prefix: env.NATS_PREFIX,
    service: 'mcp-executor',
    log,
  });
  await bus.ensureStreams();
  const app = await buildMcpExecutor({
    bus,
    log,
    config: {
      serverUrl: env.MCP_SERVER_URL,
      authToken: env.MCP_AUTH_TOKEN,
      readTimeoutMs: env.MCP_READ_TIMEOUT_MS,
      writeTimeoutMs: env.MCP_WRITE_TIMEOUT_MS,
      resultMaxChars: env.TOOL_RESULT_MAX_CHARS,
    },
  });
  await app.start();
  serveHealth(bus, () => app.checks());
  log.info({}, 'ready');
  return {
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    stop: async () => {
      await app.stop();
      await bus.nc.drain();
    },
  };
});
