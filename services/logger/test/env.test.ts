import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '@munim/kit';
import { describe, expect, it } from 'vitest';
import { loadEnv } from '../src/env.ts';

describe('logger env', () => {
  it('requires DATABASE_URL to be a postgres URL', () => {
    expect(() => loadEnv({})).toThrow(ConfigError);
    expect(() => loadEnv({})).toThrow(/DATABASE_URL: is required/);
    expect(() => loadEnv({ DATABASE_URL: 'mysql://db/x' })).toThrow(
      /DATABASE_URL: must be a postgres:\/\/ URL/,
    );
    expect(() => loadEnv({ DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL/);
  });

  it('defaults LOGGER_CONCURRENCY to 2 and rejects a bad one', () => {
    const env = loadEnv({ DATABASE_URL: 'postgresql://u@h:5432/d' });
    expect(env.LOGGER_CONCURRENCY).toBe(2);
    expect(loadEnv({ DATABASE_URL: 'postgres://h/d', LOGGER_CONCURRENCY: '4' }).LOGGER_CONCURRENCY).toBe(4);
    expect(() => loadEnv({ DATABASE_URL: 'postgres://h/d', LOGGER_CONCURRENCY: '0' })).toThrow(
      /LOGGER_CONCURRENCY/,
    );
  });

  it('stops the service with a message naming DATABASE_URL', () => {
    const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
    const env = { ...process.env, DATABASE_URL: 'http://nope' };
    const run = spawnSync(process.execPath, [main], { env, encoding: 'utf8', timeout: 15_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('DATABASE_URL');
  });
});
