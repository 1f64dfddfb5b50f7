import { connectService, runMain, serveProbes, stopService } from '@munim/kit';
import { buildValidator } from './app.ts';
import { createLlmCorrector } from './correct.ts';
import { loadEnv } from './env.ts';

await runMain('validator', async (log) => {
  const env = loadEnv();
  const bus = await connectService('validator', env, log);
  const corrector =
    env.OPENAI_BASE_URL && env.LLM_MODEL
      ? createLlmCorrector(
          {
            baseURL: env.OPENAI_BASE_URL,
            apiKey: env.OPENAI_API_KEY,
            model: env.LLM_MODEL,
            timeoutMs: env.JSON_CORRECTION_TIMEOUT_MS,
            maxTokens: env.JSON_CORRECTION_MAX_TOKENS,
          },
          log,
        )
      : undefined;
  const app = await buildValidator({
    bus,
    log,
    config: {
      toolsTtlMs: env.VALIDATOR_TOOLS_TTL_MS,
      toolsRequestTimeoutMs: env.TOOLS_REQUEST_TIMEOUT_MS,
      collapse: env.TOOL_COLLAPSE,
      collapseThreshold: env.TOOL_COLLAPSE_THRESHOLD,
    },
    corrector,
  });
  await app.start();
  const probes = await serveProbes(bus);
  log.info({ collapse: env.TOOL_COLLAPSE, jsonCorrection: corrector !== undefined }, 'ready');
  return {
    probes,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    stop: stopService([app], bus),
  };
});
