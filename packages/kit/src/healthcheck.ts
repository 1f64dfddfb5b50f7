#!/usr/bin/env node
// The image's HEALTHCHECK: asks the process in this container whether it is ready, and exits 0 if so.
// Standalone (no imports) so a check costs one node start, not the service's dependency graph.

/** The readiness URL of the service SERVICE names, from the variables the image's processes read. */
export function healthcheckUrl(env: NodeJS.ProcessEnv): string | undefined {
  const service = env.SERVICE || 'gateway';
  if (service === 'gateway') return `http://127.0.0.1:${env.PORT || 8080}/readyz`;
  if (service === 'demo-books') return `http://127.0.0.1:${env.PORT || 3100}/healthz`;
  // Its probes are beside its webhook, on its own port.
  if (service === 'messaging') return `http://127.0.0.1:${env.MESSAGING_PORT || 8090}/readyz`;
  return env.HEALTH_PORT ? `http://127.0.0.1:${env.HEALTH_PORT}/readyz` : undefined;
}

if (import.meta.main) {
  const url = healthcheckUrl(process.env);
  if (!url) {
    // Probes were switched off (HEALTH_PORT emptied): nothing here can be asked, so nothing is claimed.
    process.stderr.write('healthcheck: HEALTH_PORT is unset; not checked\n');
    process.exit(0);
  }
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(4_000) });
    process.stdout.write(`${res.status} ${await res.text()}\n`);
    process.exit(res.ok ? 0 : 1);
  } catch (error) {
    process.stderr.write(`healthcheck: ${url}: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
