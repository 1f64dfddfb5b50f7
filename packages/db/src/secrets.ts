import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The secret key is missing or malformed, or a stored secret cannot be decrypted with it. */
export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

/** `v1`: no associated data (earlier releases); `v2`: sealed to associated data the reader must give again. */
const LEGACY = 'v1';
const BOUND = 'v2';

/**
 * Parses a 32-byte AES-256 key written as 64 hex digits or as base64 (e.g. `LLM_CONFIG_KEY`);
 * throws `SecretKeyError` naming the problem, never the key.
 */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new SecretKeyError(SECRET_KEY_SHAPE);
  return key;
}

/** What a secret key must be, as a setting's error says it. */
export const SECRET_KEY_SHAPE = 'must be 32 bytes, as 64 hex digits or base64';

/** Whether `text` is a 32-byte key as `parseSecretKey` reads it (for a setting's schema). */
export function isSecretKeyText(text: string): boolean {
  try {
    parseSecretKey(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Encrypts a secret with AES-256-GCM. With `associatedData` (what the secret belongs to, e.g. its
 * row) it writes `v2:<iv>:<tag>:<ciphertext>` and only decrypts with the same associated data, so a
 * ciphertext copied elsewhere is useless; without, `v1:…` as earlier releases did.
 */
export function encryptSecret(key: Buffer, plaintext: string, associatedData?: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (associatedData !== undefined) cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    associatedData === undefined ? LEGACY : BOUND,
    iv.toString('base64'),
    cipher.getAuthTag().toString('base64'),
    body.toString('base64'),
  ].join(':');
}

/** Whether a stored secret was written without associated data (`v1`), so it should be sealed again. */
export function isUnboundSecret(stored: string): boolean {
  return stored.startsWith(`${LEGACY}:`);
}

/**
 * Decrypts what `encryptSecret` wrote. A `v2` secret needs the associated data it was sealed with
 * (a `v1` one ignores it); a wrong key, other associated data or altered text throws `SecretKeyError`.
 */
export function decryptSecret(key: Buffer, stored: string, associatedData?: string): string {
  const [version, iv, tag, body] = stored.split(':');
  if (
    (version !== LEGACY && version !== BOUND) ||
    iv === undefined ||
    tag === undefined ||
    body === undefined
  ) {
    throw new SecretKeyError('stored secret has an unknown format');
  }
  if (version === BOUND && associatedData === undefined) {
    throw new SecretKeyError('stored secret is bound to associated data that was not given');
  }
  try {
    // A full 16-byte tag only: a shortened one would be easier to forge.
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'), { authTagLength: 16 });
    if (version === BOUND) decipher.setAAD(Buffer.from(associatedData ?? '', 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  } catch (cause) {
    throw new SecretKeyError('stored secret cannot be decrypted with this key and associated data', {
      cause,
    });
  }
}
