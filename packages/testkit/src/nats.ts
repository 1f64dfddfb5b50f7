import type { Bus } from '@munim/bus';
import { TestNats } from '@munim/bus/testing';

/** The `nats` fixture: a test file's slice of NATS, and what tests read of its streams. */
export class FixtureNats extends TestNats {
  /** Last sequence of a stream: grows with every publish, whatever was consumed since. */
  async lastSeq(bus: Bus, key: 'work' | 'events'): Promise<number> {
    return (await bus.jsm.streams.info(bus.streamName(key))).state.last_seq;
  }

  async consumerCount(bus: Bus, key: 'work' | 'events'): Promise<number> {
    return (await bus.jsm.streams.info(bus.streamName(key))).state.consumer_count;
  }
}
