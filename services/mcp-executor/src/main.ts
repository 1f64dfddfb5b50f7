import { assertSchemaCurrent, assertServiceLogin, createDb, pingDb } from '@munim/db';
import { connectService, runMain, serveProbes, stopService } from '@munim/kit';
import { buildMcpExecutor } from './app.ts';
import { loadEnv } from './env.ts';

await runMain('mcp-executor', async (log) => {
  const env = loadEnv();
  const db = createDb(env.DATABASE_URL, { log, preparedStatements: env.DB_PREPARED_STATEMENTS === 'on' });
  await assertServiceLogin(db);
  await assertSchemaCurrent(db);
  const bus = await connectService('mcp-executor', env, log);
  const app = await buildMcpExecutor({
    bus,
    log,
    db,
    config: {
      serverUrl: env.MCP_SERVER_URL,
      authToken: env.MCP_AUTH_TOKEN,
      // MCP_AUTH_TOKEN is the token of every HTTP server that does not name its own.
      servers: env.MCP_SERVERS?.map((spec) =>
        spec.url && !spec.authToken && env.MCP_AUTH_TOKEN ? { ...spec, authToken: env.MCP_AUTH_TOKEN } : spec,
      ),
      readTimeoutMs: env.MCP_READ_TIMEOUT_MS,
      writeTimeoutMs: env.MCP_WRITE_TIMEOUT_MS,
      resultMaxChars: env.TOOL_RESULT_MAX_CHARS,
      idempotencyTtlMs: env.IDEMPOTENCY_TTL_MS,
      idempotencyGraceMs: env.IDEMPOTENCY_GRACE_MS,
      policy: env.TOOL_POLICY_FILE,
    },
  });
  await app.start();
  const checks = async () => ({ ...(await app.checks()), db: await pingDb(db) });
  const probes = await serveProbes(bus, checks);
  log.info({}, 'ready');
  return {
    probes,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    stop: stopService([app], bus, db),
  };
});
