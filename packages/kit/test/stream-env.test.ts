import { describe, expect, it } from 'vitest';
import { BaseEnvSchema, ConfigError, parseEnv, streamSettingsFromEnv } from '../src/env.ts';

/** The ConfigError message for this environment, or '' when it parses. */
function problem(env: Record<string, string>): string {
  try {
    parseEnv(BaseEnvSchema, env);
    return '';
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
}

describe('stream settings of every service (NATS_STREAM_*)', () => {
  it('default to one file-stored copy and the streams’ own limits', () => {
    expect(streamSettingsFromEnv(parseEnv(BaseEnvSchema, {}))).toEqual({ replicas: 1, storage: 'file' });
  });

  it('map replicas, storage and limits', () => {
    const env = parseEnv(BaseEnvSchema, {
      NATS_STREAM_REPLICAS: '3',
      NATS_STREAM_STORAGE: 'memory',
      NATS_STREAM_MAX_AGE_MS: '86400000',
      NATS_STREAM_MAX_BYTES: '1073741824',
    });
    expect(streamSettingsFromEnv(env)).toEqual({
      replicas: 3,
      storage: 'memory',
      maxAgeMs: 86_400_000,
      maxBytes: 1_073_741_824,
    });
    // 0 is JetStream's "no age limit".
    expect(streamSettingsFromEnv(parseEnv(BaseEnvSchema, { NATS_STREAM_MAX_AGE_MS: '0' })).maxAgeMs).toBe(0);
  });

  it.each([
    ['NATS_STREAM_REPLICAS', '0'],
    ['NATS_STREAM_REPLICAS', '6'],
    ['NATS_STREAM_REPLICAS', 'three'],
    ['NATS_STREAM_REPLICAS', '2.5'],
    ['NATS_STREAM_STORAGE', 'disk'],
    ['NATS_STREAM_MAX_AGE_MS', '-1'],
    ['NATS_STREAM_MAX_AGE_MS', '5000'],
    ['NATS_STREAM_MAX_AGE_MS', 'a week'],
    ['NATS_STREAM_MAX_BYTES', '0'],
    ['NATS_STREAM_MAX_BYTES', '10GB'],
  ])('refuses %s=%s, naming it', (name, value) => {
    expect(problem({ [name]: value })).toContain(`${name}:`);
  });
});
