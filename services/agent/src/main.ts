import { createAttachments } from '@munim/attachments';
import {
  assertSchemaCurrent,
  assertServiceLogin,
  createDb,
  parseSecretKey,
  pingDb,
  TenantUsage,
} from '@munim/db';
import { connectService, createToolCatalog, runMain, serveProbes, stopService } from '@munim/kit';
import { buildAgent } from './app.ts';
import { loadEnv } from './env.ts';
import { createLlm } from './model/llm.ts';
import { createModelSource, loadLlmConfigEnv } from './model/llm-config.ts';
import { TokenQuota } from './model/quota.ts';
import { AgentStore } from './run/store.ts';

await runMain('agent', async (log) => {
  const env = loadEnv();
  const { LLM_CONFIG_KEY, LLM_CONFIG_REFRESH_MS, LLM_ENDPOINT_ALLOWLIST } = loadLlmConfigEnv();
  const db = createDb(env.DATABASE_URL, { max: 8, preparedStatements: env.DB_PREPARED_STATEMENTS === 'on' });
  await assertServiceLogin(db);
  await assertSchemaCurrent(db);
  const bus = await connectService('agent', env, log);
  const envLlm =
    env.OPENAI_BASE_URL && env.LLM_MODEL
      ? createLlm({
          baseURL: env.OPENAI_BASE_URL,
          apiKey: env.OPENAI_API_KEY,
          model: env.LLM_MODEL,
          provider: env.LLM_PROVIDER,
          timeoutMs: env.LLM_TIMEOUT_MS,
          apiStyle: env.LLM_API_STYLE,
          azureApiVersion: env.AZURE_OPENAI_API_VERSION,
          systemRole: env.LLM_SYSTEM_ROLE,
          maxRetries: env.LLM_MAX_RETRIES,
          chunkTimeoutMs: env.LLM_CHUNK_TIMEOUT_MS || undefined,
        })
      : null;
  // The default llm_configs row wins over the environment and is swapped on llmConfigChanged.
  const models = await createModelSource({
    db,
    bus,
    log,
    fallback: envLlm,
    secretKey: LLM_CONFIG_KEY ? parseSecretKey(LLM_CONFIG_KEY) : null,
    refreshMs: LLM_CONFIG_REFRESH_MS,
    allowlist: LLM_ENDPOINT_ALLOWLIST,
    breaker: { failures: env.LLM_BREAKER_FAILURES, coolDownMs: env.LLM_BREAKER_COOLDOWN_MS },
    settings: {
      timeoutMs: env.LLM_TIMEOUT_MS,
      azureApiVersion: env.AZURE_OPENAI_API_VERSION,
      systemRole: env.LLM_SYSTEM_ROLE,
      maxRetries: env.LLM_MAX_RETRIES,
      chunkTimeoutMs: env.LLM_CHUNK_TIMEOUT_MS || undefined,
    },
  });
  const { llm } = models;
  if (!llm)
    log.warn(
      {},
      'no model configured (llm_configs default, or OPENAI_BASE_URL and LLM_MODEL): only fast-path queries ' +
        'will be answered; adding a model needs a restart',
    );
  const app = await buildAgent({
    bus,
    log,
    llm,
    store: new AgentStore(db),
    // The agent only reads attachments: the gateway's storage settings.
    attachments: createAttachments(db, env),
    tools: createToolCatalog(bus, { ttlMs: env.TOOLS_CACHE_MS, timeoutMs: env.VALIDATE_TIMEOUT_MS }),
    tokenQuota: env.QUOTA_TOKENS_PER_WINDOW
      ? new TokenQuota(
          new TenantUsage(db, { windowMs: env.QUOTA_WINDOW_MS }),
          env.QUOTA_TOKENS_PER_WINDOW,
          log,
          env.QUOTA_STORE_UNREACHABLE,
        )
      : undefined,
    config: {
      maxIterations: env.MAX_ITERATIONS,
      maxWriteRetries: env.MAX_WRITE_RETRIES,
      maxTokens: {
        cheap: env.LLM_MAX_TOKENS_CHEAP,
        capable: env.LLM_MAX_TOKENS_CAPABLE,
        chat: env.LLM_MAX_TOKENS_CHAT,
      },
      validateTimeoutMs: env.VALIDATE_TIMEOUT_MS,
      executeTimeoutMs: env.EXECUTE_TIMEOUT_MS,
      concurrency: env.AGENT_CONCURRENCY,
      ackWaitMs: env.AGENT_ACK_WAIT_MS,
      persona: { name: env.PERSONA_NAME, product: env.PRODUCT_NAME },
      confirmTtlMs: env.CONFIRM_TTL_MS,
      historyMessages: env.HISTORY_MESSAGES,
      vision: env.LLM_VISION,
      attachmentMaxChars: env.LLM_ATTACHMENT_MAX_CHARS,
      approvalPolicy: env.APPROVAL_POLICY_FILE?.policy,
      approvalTtlMs: env.APPROVAL_TTL_MS,
    },
  });
  await app.start();
  models.start();
  const checks = async () => ({ postgres: await pingDb(db) });
  const probes = await serveProbes(bus, checks);
  log.info({ model: llm?.label ?? null }, 'ready');
  return {
    probes,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    stop: stopService([models, app], bus, db),
  };
});
