/**
 * The kubelet's view of the services (infra/k8s probes them on HEALTH_PORT): every service started by
 * its own main, each answering /livez and /readyz with its own checks, and closing the port when it stops.
 * The gateway and messaging answer /healthz and /readyz beside their HTTP instead.
 */
import type { ServiceName } from '@munim/devstack';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { freePort, startSystem, type TestSystem } from '../support/stack.ts';

/** Every service but the gateway, whose probes are its own /healthz and /readyz. */
const PROBED = ['mcp-executor', 'validator', 'logger', 'router', 'agent'] as const;
/** What each reports besides NATS. */
const CHECKS: Record<(typeof PROBED)[number], string[]> = {
  'mcp-executor': ['db', 'mcp'],
  validator: [],
  logger: ['postgres'],
  router: ['postgres'],
  agent: ['postgres'],
};

let system: TestSystem;
const ports = {} as Record<ServiceName, number>;
let messagingPort: number;

test.beforeAll(async ({ database, nats }) => {
  for (const service of PROBED) ports[service] = await freePort();
  messagingPort = await freePort();
  system = await startSystem({
    database,
    nats,
    llm: false,
    // Messaging as an operator runs it before connecting a number: WhatsApp off.
    scale: { messaging: 1 },
    instanceEnv: (service) =>
      service === 'gateway'
        ? undefined
        : service === 'messaging'
          ? { MESSAGING_PORT: String(messagingPort) }
          : { HEALTH_PORT: String(ports[service as (typeof PROBED)[number]]) },
  });
});

afterAll(async () => {
  await system?.stop();
});

const get = async (service: ServiceName, path: string) => {
  const res = await fetch(`http://127.0.0.1:${ports[service]}${path}`);
  return {
    status: res.status,
    body: (await res.json()) as { status: string; checks?: Record<string, boolean> },
  };
};

describe('HEALTH_PORT', () => {
  test.each(PROBED)('%s answers /livez and /readyz with its own checks', async (service) => {
    expect(await get(service, '/livez')).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await get(service, '/readyz');
    expect(ready.status).toBe(200);
    expect(Object.keys(ready.body.checks ?? {}).sort()).toEqual(
      expect.arrayContaining(['nats', ...CHECKS[service]].sort()),
    );
    expect(Object.values(ready.body.checks ?? {}).every(Boolean)).toBe(true);
  });

  test('messaging answers /healthz and /readyz on MESSAGING_PORT, ready with WhatsApp off', async () => {
    const at = (path: string) => fetch(`http://127.0.0.1:${messagingPort}${path}`);
    // The gateway's readiness does not wait for the optional messaging service.
    await expect.poll(async () => (await at('/readyz').catch(() => undefined))?.status).toBe(200);
    expect(await (await at('/readyz')).json()).toMatchObject({ status: 'ok', nats: true, whatsapp: 'off' });
    const live = await at('/healthz');
    expect({ status: live.status, body: await live.json() }).toEqual({ status: 200, body: { status: 'ok' } });
  });

  test('is closed once the service has stopped', async () => {
    const validator = system.stack.processes.find((p) => p.service === 'validator');
    if (!validator) throw new Error('no validator');
    await system.stack.kill(validator, 'SIGTERM');
    expect(validator.child.exitCode).toBe(0);
    await expect(fetch(`http://127.0.0.1:${ports.validator}/livez`)).rejects.toThrow();
  });
});
