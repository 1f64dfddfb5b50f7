import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The secret key is missing or malformed, or a stored secret cannot be decrypted with it. */
export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

const VERSION = 'v1';

/**
 * Parses a 32-byte AES-256 key written as 64 hex digits or as base64 (e.g. `LLM_CONFIG_KEY`);
 * throws `SecretKeyError` naming the problem, never the key.
 */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new SecretKeyError('must be 32 bytes, as 64 hex digits or base64');
  return key;
}

/** Encrypts a secret with AES-256-GCM: `v1:<iv>:<tag>:<ciphertext>`, each part base64. */
export function encryptSecret(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    VERSION,
    iv.toString('base64'),
    cipher.getAuthTag().toString('base64'),
    body.toString('base64'),
  ].join(':');
}

/** Decrypts what `encryptSecret` wrote; a wrong key or altered text throws `SecretKeyError`. */
export function decryptSecret(key: Buffer, stored: string): string {
  const [version, iv, tag, body] = stored.split(':');
  if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
    throw new SecretKeyError('stored secret has an unknown format');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  } catch (cause) {
    throw new SecretKeyError('stored secret cannot be decrypted with this key', { cause });
  }
}
