import type { Bus } from '@munim/bus';
import type { RequestScope, ServiceName } from '@munim/contracts';

/** The services the gateway depends on, pinged by `/readyz`. */
export const PINGED_SERVICES = [
  'router',
  'agent',
  'validator',
  'mcp-executor',
  'logger',
] as const satisfies readonly ServiceName[];

/** Health pings belong to no request; the bus still needs a valid scope for the envelope. */
const HEALTH_SCOPE: RequestScope = {
  requestId: 'health',
  conversationId: 'health',
  entityId: 'health',
  orgId: 'health',
};

export interface Readiness {
  ready: boolean;
  nats: boolean;
  services: Record<ServiceName, boolean>;
}

/** Pings every dependency in parallel; a service is up when one instance answers `ok` in time. */
export async function checkReadiness(bus: Bus, timeoutMs: number): Promise<Readiness> {
  const nats = !bus.nc.isClosed();
  const answers = await Promise.all(
    PINGED_SERVICES.map(async (service) => {
      if (!nats) return false;
      try {
        const reply = await bus.request('healthPing', HEALTH_SCOPE, {}, { params: { service }, timeoutMs });
        return reply.ok && reply.service === service;
      } catch {
        return false;
      }
    }),
  );
  const services = { gateway: true } as Record<ServiceName, boolean>;
  PINGED_SERVICES.forEach((service, index) => {
    services[service] = answers[index] ?? false;
  });
  return { ready: nats && answers.every(Boolean), nats, services };
}
