import { Bus } from '@munim/bus';
import { natsUrl, TestNats } from '@munim/bus/testing';
import { connect } from '@nats-io/transport-node';

/** The `nats` fixture: a test file's slice of NATS, and what tests read of its streams. */
export class FixtureNats extends TestNats {
  /** Last sequence of a stream: grows with every publish, whatever was consumed since. */
  async lastSeq(bus: Bus, key: 'work' | 'events'): Promise<number> {
    return (await bus.jsm.streams.info(bus.streamName(key))).state.last_seq;
  }

  async consumerCount(bus: Bus, key: 'work' | 'events'): Promise<number> {
    return (await bus.jsm.streams.info(bus.streamName(key))).state.consumer_count;
  }

  /** Also deletes the streams services in other processes made on this prefix (a test's system). */
  override async cleanup(): Promise<void> {
    await super.cleanup();
    const nc = await connect({ servers: natsUrl(), noAsyncTraces: true });
    try {
      const bus = await Bus.create({ nc, prefix: this.prefix, service: 'gateway' });
      for (const key of ['work', 'events'] as const) {
        await bus.jsm.streams.delete(bus.streamName(key)).catch(() => {});
      }
    } finally {
      await nc.close();
    }
  }
}
