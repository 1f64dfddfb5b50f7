import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret, openLlmKey, SecretKeyError, sealLlmKey } from '../src/index.ts';

const secretKey = randomBytes(32);

describe('secrets bound to associated data', () => {
  it('opens only with the associated data it was sealed with', () => {
    const stored = encryptSecret(secretKey, 'sk-bound', 'row 1');
    expect(stored.startsWith('v2:')).toBe(true);
    expect(decryptSecret(secretKey, stored, 'row 1')).toBe('sk-bound');
    expect(() => decryptSecret(secretKey, stored, 'row 2')).toThrow(SecretKeyError);
    expect(() => decryptSecret(secretKey, stored)).toThrow(SecretKeyError);
    // A v1 secret, written before, opens whatever associated data the reader gives.
    expect(decryptSecret(secretKey, encryptSecret(secretKey, 'sk-old'), 'row 1')).toBe('sk-old');
  });
});

describe('llm_configs keys', () => {
  const owner = { id: 7, provider: 'openai', endpoint: 'https://models.example.com/v1' };

  it('binds a key to its row, provider and endpoint origin (not the path)', () => {
    const stored = sealLlmKey(secretKey, owner, 'sk-7');
    expect(openLlmKey(secretKey, owner, stored)).toBe('sk-7');
    expect(openLlmKey(secretKey, { ...owner, endpoint: 'https://models.example.com/v2/' }, stored)).toBe(
      'sk-7',
    );
    for (const other of [
      { ...owner, id: 8 },
      { ...owner, provider: 'azure' },
      { ...owner, endpoint: 'https://attacker.example/v1' },
      { ...owner, endpoint: 'https://models.example.com:8443/v1' },
    ]) {
      expect(() => openLlmKey(secretKey, other, stored)).toThrow(SecretKeyError);
    }
  });

  it('refuses a key stored without associated data, whatever row it is presented for', () => {
    const legacy = encryptSecret(secretKey, 'sk-legacy');
    expect(() => openLlmKey(secretKey, owner, legacy)).toThrow(/without associated data/);
    expect(() => openLlmKey(secretKey, owner, legacy)).toThrow(SecretKeyError);
  });
});
