import { randomBytes, randomUUID } from 'node:crypto';
import type { AgentEvent, RequestScope, ServiceName } from '@munim/contracts';
import { connect } from '@nats-io/transport-node';
import { Bus } from './bus.ts';

/** The NATS the tests use: NATS_URL (the test run's global setup sets it), else the local one. */
export const natsUrl = (): string => process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/**
 * One test file's slice of the real NATS: a unique subject/stream prefix, buses for any
 * services on it, and `cleanup` that deletes its streams and closes the connections.
 */
export class TestNats {
  readonly prefix = `t${randomBytes(6).toString('hex')}`;
  readonly #buses: Bus[] = [];

  async bus(service: ServiceName): Promise<Bus> {
    const nc = await connect({ servers: natsUrl(), noAsyncTraces: true });
    const bus = await Bus.create({ nc, prefix: this.prefix, service });
    await bus.ensureStreams();
    this.#buses.push(bus);
    return bus;
  }

  async cleanup(): Promise<void> {
    const first = this.#buses[0];
    if (first) {
      for (const key of ['work', 'events'] as const) {
        await first.jsm.streams.delete(first.streamName(key)).catch(() => {});
      }
    }
    await Promise.all(this.#buses.map((b) => b.nc.drain().catch(() => {})));
  }
}

/** A bus on a fresh prefix with its streams; `cleanup` deletes them. */
export async function testBus(service: ServiceName = 'agent') {
  const nats = new TestNats();
  const bus = await nats.bus(service);
  return { bus, cleanup: () => nats.cleanup() };
}

/** A fresh request scope for one test request. */
export const newScope = (): RequestScope => ({
  requestId: randomUUID(),
  conversationId: 'conv-1',
  entityId: 'entity-1',
  orgId: 'org-1',
});

/** Records the events of one request as they are published on its subjects (its end's included). */
export function recordEvents(bus: Bus, requestId: string): { events: AgentEvent[]; stop(): void } {
  const events: AgentEvent[] = [];
  const subs = (['requestEvents', 'requestEnded'] as const).map((name) =>
    bus.nc.subscribe(bus.subject(name, { requestId }), {
      // A message is one event's envelope or several (see `emitAll`).
      callback: (_err, msg) => {
        const body = msg.json() as { data: AgentEvent } | { data: AgentEvent }[];
        for (const m of Array.isArray(body) ? body : [body]) events.push(m.data);
      },
    }),
  );
  return {
    events,
    stop: () => {
      for (const sub of subs) sub.unsubscribe();
    },
  };
}
