import { randomUUID } from 'node:crypto';
import type { Bus } from '@munim/bus';
import { type FixtureNats, test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { PINGED_SERVICES } from '../src/health/readiness.ts';
import { startGateway } from './helpers.ts';

let testBus: FixtureNats;
let gateway: Gateway;
let services: Bus;
const subscriptions: ReturnType<Bus['serve']>[] = [];

test.beforeAll(async ({ nats }) => {
  testBus = nats;
  ({ gateway } = await startGateway(testBus, { REQUEST_TIMEOUT_MS: '500' }));
  services = await testBus.bus('logger');
});

afterAll(async () => {
  for (const sub of subscriptions) await sub.stop();
  await gateway?.stop();
});

function answer(service: (typeof PINGED_SERVICES)[number], ok: boolean) {
  const instanceId = randomUUID();
  subscriptions.push(
    services.serve('healthPing', async () => ({ service, instanceId, ok, checks: { db: ok } }), {
      params: { service },
    }),
  );
}

describe('/readyz', () => {
  test('is 503 naming each missing service while the others are absent', async () => {
    const response = await gateway.app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({
      status: 'unavailable',
      nats: true,
      services: {
        gateway: true,
        router: false,
        agent: false,
        validator: false,
        'mcp-executor': false,
        logger: false,
      },
    });
  });

  test('stays 503 while one service reports itself not ok', async () => {
    for (const service of PINGED_SERVICES) answer(service, service !== 'logger');
    await services.nc.flush();
    const response = await gateway.app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json().services).toMatchObject({ router: true, agent: true, logger: false });
  });

  test('is 200 when every service answers its health ping ok', async () => {
    for (const sub of subscriptions.splice(0)) await sub.stop();
    for (const service of PINGED_SERVICES) answer(service, true);
    await services.nc.flush();
    const response = await gateway.app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      status: 'ok',
      nats: true,
      services: {
        gateway: true,
        router: true,
        agent: true,
        validator: true,
        'mcp-executor': true,
        logger: true,
      },
    });
  });
});
