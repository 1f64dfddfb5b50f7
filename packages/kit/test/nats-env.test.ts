import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BaseEnvSchema, ConfigError, natsAuthFromEnv, parseEnv } from '../src/env.ts';

const dir = mkdtempSync(join(tmpdir(), 'munim-nats-env-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};
const SEED = 'SUAMK2FG4MI6UE3ACF3FK3OIQBCEIEZV7NSWFFEW63UXMRLFM2XLAXK4GY';
const seedFile = file('user.nk', `${SEED}\n`);
const credsFile = file(
  'user.creds',
  `-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QifQ.e30.c2ln\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${SEED}\n------END USER NKEY SEED------\n`,
);
const pem = file('ca.pem', '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

describe('NATS variables of every service', () => {
  it('needs none of them, and maps each to the connection options', () => {
    expect(problem({})).toBe('');
    const env = parseEnv(BaseEnvSchema, {
      NATS_USER: 'agent',
      NATS_PASSWORD: 'pw',
      NATS_TLS_CA_FILE: pem,
      NATS_TLS_CERT_FILE: pem,
      NATS_TLS_KEY_FILE: pem,
    });
    expect(natsAuthFromEnv(env)).toEqual({
      user: 'agent',
      password: 'pw',
      tls: { caFile: pem, certFile: pem, keyFile: pem },
    });
    expect(natsAuthFromEnv(parseEnv(BaseEnvSchema, { NATS_CREDS_FILE: credsFile }))).toMatchObject({
      credsFile,
    });
    expect(problem({ NATS_NKEY_SEED_FILE: seedFile })).toBe('');
    expect(problem({ NATS_TOKEN: 't' })).toBe('');
  });

  it.each([
    [{ NATS_PASSWORD: 'pw' }, 'NATS_PASSWORD: is set without NATS_USER'],
    [{ NATS_USER: 'agent' }, 'NATS_USER: is set without NATS_PASSWORD'],
    [{ NATS_TLS_CERT_FILE: pem }, 'NATS_TLS_CERT_FILE: is set without NATS_TLS_KEY_FILE'],
    [{ NATS_TLS_KEY_FILE: pem }, 'NATS_TLS_KEY_FILE: is set without NATS_TLS_CERT_FILE'],
    [{ NATS_TOKEN: 't', NATS_CREDS_FILE: credsFile }, 'NATS_TOKEN: is set together with NATS_CREDS_FILE'],
    [
      { NATS_USER: 'a', NATS_PASSWORD: 'p', NATS_NKEY_SEED_FILE: seedFile },
      'NATS_USER: is set together with NATS_NKEY_SEED_FILE',
    ],
    [{ NATS_CREDS_FILE: join(dir, 'missing.creds') }, 'NATS_CREDS_FILE: cannot be read'],
    [{ NATS_TLS_CA_FILE: join(dir, 'missing.pem') }, 'NATS_TLS_CA_FILE: cannot be read'],
    [{ NATS_CREDS_FILE: seedFile }, 'NATS_CREDS_FILE: does not hold a NATS user JWT'],
    [{ NATS_NKEY_SEED_FILE: pem }, 'NATS_NKEY_SEED_FILE: does not hold an nkey seed'],
  ])('refuses %o naming the variable', (env, message) => {
    expect(problem(env)).toContain(message);
  });

  it('never repeats a secret in its message', () => {
    const message = problem({ NATS_PASSWORD: 'hunter2-secret', NATS_TOKEN: 'tok-secret' });
    expect(message).toContain('NATS_PASSWORD');
    expect(message).not.toMatch(/hunter2|tok-secret/);
  });
});
