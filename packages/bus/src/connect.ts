import type { ServiceName } from '@munim/contracts';
import { connect } from '@nats-io/transport-node';
import { Bus, type BusLogger } from './bus.ts';

export interface ConnectBusOptions {
  /** Comma-separated NATS URLs. */
  servers: string;
  prefix: string;
  service: ServiceName;
  /** Connection name shown by the server's monitoring. */
  name?: string;
  log?: BusLogger;
}

/** Connects to NATS (reconnecting forever) and returns the typed bus. */
export async function connectBus(opts: ConnectBusOptions): Promise<Bus> {
  const nc = await connect({
    servers: opts.servers
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    name: opts.name ?? opts.service,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // An Error (with its stack) per request and per JetStream publish costs more than the hop
    // itself; our own errors name the subject and the service instead.
    noAsyncTraces: true,
  });
  return Bus.create({ nc, prefix: opts.prefix, service: opts.service, log: opts.log });
}
