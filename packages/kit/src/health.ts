import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Bus, Served } from '@munim/bus';
import { z } from 'zod';
import { ConfigError } from './env.ts';

/** A service's own readiness checks, by name; a check that is false makes the service not ready. */
export type HealthChecks = () => Promise<Record<string, boolean>>;

const noChecks: HealthChecks = async () => ({});

/** The checks every answer reports: the NATS connection, then the service's own. */
export function healthChecks(bus: Bus, checks: HealthChecks = noChecks): HealthChecks {
  return async () => ({ nats: !bus.nc.isClosed(), ...(await checks()) });
}

/** Answers the service's readiness probe with the state of its own dependencies. */
export function serveHealth(bus: Bus, checks: HealthChecks = noChecks): Served {
  const instanceId = randomUUID();
  const all = healthChecks(bus, checks);
  return bus.serve(
    'healthPing',
    async () => {
      const results = await all();
      return { service: bus.service, instanceId, ok: Object.values(results).every(Boolean), checks: results };
    },
    { params: { service: bus.service } },
  );
}

const HealthPortSchema = z.object({
  HEALTH_PORT: z.coerce
    .number({ error: 'must be a port number (1-65535)' })
    .int('must be a port number (1-65535)')
    .min(1, 'must be a port number (1-65535)')
    .max(65_535, 'must be a port number (1-65535)')
    .optional(),
});

/** `HEALTH_PORT`: the port of the liveness and readiness endpoints, or undefined (unset or empty: none). */
export function healthPortFromEnv(source: NodeJS.ProcessEnv = process.env): number | undefined {
  const value = source.HEALTH_PORT;
  const result = HealthPortSchema.safeParse(
    value === undefined || value === '' ? {} : { HEALTH_PORT: value },
  );
  if (result.success) return result.data.HEALTH_PORT;
  throw new ConfigError(`invalid configuration — HEALTH_PORT: ${result.error.issues[0]?.message}`);
}

/** The liveness and readiness endpoints of a service, for the kubelet and the image's health check. */
export interface HealthServer {
  /** The port it listens on (the one picked, when asked for 0). */
  readonly port: number;
  /** From now on `/readyz` answers 503, so no new work is sent here while the process stops. */
  drain(): void;
  close(): Promise<void>;
}

export interface HealthHttpOptions {
  /** Default 0.0.0.0: the kubelet probes the pod's address. */
  host?: string;
  /** Longest the checks may take before `/readyz` answers 503 (default 2 s, under a probe's timeout). */
  timeoutMs?: number;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

/**
 * Serves `GET /livez` (the process answers) and `GET /readyz` (every check passes: 200, else 503) on
 * `port`; no server at all when `port` is undefined (HEALTH_PORT unset).
 */
export async function serveHealthHttp(
  port: number | undefined,
  checks: HealthChecks,
  options: HealthHttpOptions = {},
): Promise<HealthServer | undefined> {
  if (port === undefined) return undefined;
  const timeoutMs = options.timeoutMs ?? 2_000;
  let draining = false;

  const readiness = async (): Promise<{ ready: boolean; body: Record<string, unknown> }> => {
    if (draining) return { ready: false, body: { status: 'draining' } };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`checks took longer than ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const results = await Promise.race([checks(), timeout]);
      const ready = Object.values(results).every(Boolean);
      return { ready, body: { status: ready ? 'ok' : 'unavailable', checks: results } };
    } catch (error) {
      return { ready: false, body: { status: 'unavailable', error: (error as Error).message } };
    } finally {
      clearTimeout(timer);
    }
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return json(res, 405, { status: 'method not allowed' });
    if (path === '/livez') return json(res, 200, { status: 'ok' });
    if (path === '/readyz') {
      void readiness().then(({ ready, body }) => json(res, ready ? 200 : 503, body));
      return;
    }
    json(res, 404, { status: 'not found' });
  });
  // Probes are one short request each: a client that holds a connection open gets nothing more.
  server.requestTimeout = 5_000;
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    drain() {
      draining = true;
    },
    close() {
      draining = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
