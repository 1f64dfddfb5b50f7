import { ConfigError } from '@munim/kit';
import { describe, expect, it } from 'vitest';
import { loadEnv } from '../src/env.ts';

const base = { DATABASE_URL: 'postgres://127.0.0.1:5432/munim' };

describe('router env', () => {
  it('defaults the response cache on with lifetimes of 5 min, 15 min and 1 h', () => {
    expect(loadEnv(base)).toMatchObject({
      RESPONSE_CACHE: 'on',
      CACHE_TTL_VOLATILE_MS: 300_000,
      CACHE_TTL_REPORT_MS: 900_000,
      CACHE_TTL_STATIC_MS: 3_600_000,
      FAST_PATH_THRESHOLD: 0.85,
    });
    expect(loadEnv({ ...base, RESPONSE_CACHE: 'off', CACHE_TTL_REPORT_MS: '60000' })).toMatchObject({
      RESPONSE_CACHE: 'off',
      CACHE_TTL_REPORT_MS: 60_000,
    });
  });

  it('hands a dead instance’s queries to another after ROUTER_ACK_WAIT_MS', () => {
    expect(loadEnv(base).ROUTER_ACK_WAIT_MS).toBe(30_000);
    expect(loadEnv({ ...base, ROUTER_ACK_WAIT_MS: '3000' }).ROUTER_ACK_WAIT_MS).toBe(3_000);
    expect(() => loadEnv({ ...base, ROUTER_ACK_WAIT_MS: '10' })).toThrow(/ROUTER_ACK_WAIT_MS/);
  });

  it('names a bad variable', () => {
    expect(() => loadEnv({ ...base, RESPONSE_CACHE: 'maybe' })).toThrow(ConfigError);
    expect(() => loadEnv({ ...base, RESPONSE_CACHE: 'maybe' })).toThrow(/RESPONSE_CACHE/);
    expect(() => loadEnv({ ...base, CACHE_TTL_STATIC_MS: '-1' })).toThrow(/CACHE_TTL_STATIC_MS/);
  });
});
