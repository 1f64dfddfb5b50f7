import { randomUUID } from 'node:crypto';
import type { Bus } from '@munim/bus';
import type { Subscription } from '@nats-io/nats-core';

/** Answers the service's readiness probe with the state of its own dependencies. */
export function serveHealth(
  bus: Bus,
  checks: () => Promise<Record<string, boolean>> = async () => ({}),
): Subscription {
  const instanceId = randomUUID();
  return bus.serve(
    'healthPing',
    async () => {
      const results = { nats: !bus.nc.isClosed(), ...(await checks()) };
      return { service: bus.service, instanceId, ok: Object.values(results).every(Boolean), checks: results };
    },
    { params: { service: bus.service } },
  );
}
