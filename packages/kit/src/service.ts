import { type Bus, connectBus } from '@munim/bus';
import type { Message, ServiceName } from '@munim/contracts';
import type { Logger } from 'pino';
import { type BaseEnv, natsAuthFromEnv, streamSettingsFromEnv } from './env.ts';
import {
  type HealthChecks,
  type HealthServer,
  healthChecks,
  healthPortFromEnv,
  serveHealth,
  serveHealthHttp,
} from './health.ts';

/**
 * Connects a service to the NATS its environment names, with its own credentials, and makes sure
 * munim's streams exist with the configured settings. `bus.close()` drains it.
 */
export async function connectService(service: ServiceName, env: BaseEnv, log: Logger): Promise<Bus> {
  const bus = await connectBus({
    servers: env.NATS_URL,
    prefix: env.NATS_PREFIX,
    service,
    log,
    auth: natsAuthFromEnv(env),
    streams: streamSettingsFromEnv(env),
  });
  await bus.ensureStreams();
  return bus;
}

/**
 * A service's readiness, on the bus (the gateway's `/readyz` asks every service; the answer stops
 * with the bus) and as `/livez` and `/readyz` on `HEALTH_PORT`, whose server `runMain` drains and closes.
 */
export function serveProbes(bus: Bus, checks?: HealthChecks): Promise<HealthServer | undefined> {
  serveHealth(bus, checks);
  return serveHealthHttp(healthPortFromEnv(), healthChecks(bus, checks));
}

/**
 * The `onGiveUp` of a consumer that owns requests: a request whose message failed its last delivery
 * ends with an `INTERNAL` error saying `text`, so its client is not left waiting for an answer.
 */
export function endRequestOnGiveUp(bus: Bus, text: string): (message: Message<unknown>) => Promise<void> {
  return async (message) => {
    await bus.emit(message, { type: 'error', payload: { code: 'INTERNAL', message: text } });
  };
}
