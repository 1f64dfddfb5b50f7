import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret, parseSecretKey, SecretKeyError } from '../src/secrets.ts';

describe('secrets', () => {
  it('parses a 32-byte key as hex or base64 and refuses other lengths', () => {
    const key = randomBytes(32);
    expect(parseSecretKey(key.toString('hex')).equals(key)).toBe(true);
    expect(parseSecretKey(key.toString('base64')).equals(key)).toBe(true);
    expect(() => parseSecretKey(randomBytes(16).toString('base64'))).toThrow(SecretKeyError);
  });

  it('round-trips a secret without storing it in clear, and refuses another key or altered text', () => {
    const key = randomBytes(32);
    const stored = encryptSecret(key, 'sk-very-secret');
    expect(stored).not.toContain('sk-very-secret');
    expect(encryptSecret(key, 'sk-very-secret')).not.toBe(stored);
    expect(decryptSecret(key, stored)).toBe('sk-very-secret');
    expect(() => decryptSecret(randomBytes(32), stored)).toThrow(SecretKeyError);
    const parts = stored.split(':');
    const altered = [...parts.slice(0, 3), Buffer.from('sk-other-secret').toString('base64')].join(':');
    expect(() => decryptSecret(key, altered)).toThrow(SecretKeyError);
    expect(() => decryptSecret(key, 'plain')).toThrow(SecretKeyError);
  });
});
