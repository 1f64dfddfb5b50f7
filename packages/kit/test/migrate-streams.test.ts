import { randomUUID } from 'node:crypto';
import { type Bus, connectBus } from '@munim/bus';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/env.ts';
import { migrateStreamsFromEnv } from '../src/migrate-streams.ts';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const prefix = `ms${randomUUID().slice(0, 8)}`;
let bus: Bus | undefined;

afterAll(async () => {
  for (const name of ['WORK', 'EVENTS'])
    await bus?.jsm.streams.delete(`${prefix.toUpperCase()}_${name}`).catch(() => undefined);
  await bus?.close();
});

describe('the migration step of the streams (npm run migrate, SERVICE=migrate, npm start)', () => {
  it('makes the streams with the NATS_STREAM_* settings the services read', async () => {
    const env = { NATS_URL, NATS_PREFIX: prefix, NATS_STREAM_MAX_AGE_MS: '3600000' };
    await expect(migrateStreamsFromEnv(env)).resolves.toBe(true);
    bus = await connectBus({
      servers: NATS_URL,
      prefix,
      service: 'logger',
      streams: { maxAgeMs: 3_600_000 },
    });
    for (const key of ['work', 'events'] as const)
      expect((await bus.jsm.streams.info(bus.streamName(key))).config.max_age).toBe(3_600_000 * 1_000_000);
    // What a service then finds is what it wants: nothing to change.
    await expect(bus.ensureStreams()).resolves.toBe(undefined);
  });

  it('does nothing without NATS_URL, and names a bad setting', async () => {
    await expect(migrateStreamsFromEnv({})).resolves.toBe(false);
    await expect(migrateStreamsFromEnv({ NATS_URL, NATS_STREAM_REPLICAS: '9' })).rejects.toThrow(ConfigError);
    await expect(migrateStreamsFromEnv({ NATS_URL, NATS_STREAM_REPLICAS: '9' })).rejects.toThrow(
      /NATS_STREAM_REPLICAS: must be a whole number from 1 to 5/,
    );
  });
});
