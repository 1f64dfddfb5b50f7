import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { decryptSecret, encryptSecret, isUnboundSecret } from './secrets.ts';

/** What an `llm_configs` API key is sealed to: its row, provider and the origin it may be sent to. */
export interface LlmKeyOwner {
  id: number | string;
  provider: string;
  endpoint: string;
}

/** The origin (scheme, host, port) of an endpoint, or the text itself when it is not a URL. */
export function endpointOrigin(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return endpoint;
  }
}

/** The AES-GCM associated data of a row's key: a ciphertext moved to another row, provider or origin fails. */
export function llmKeyAssociatedData(owner: LlmKeyOwner): string {
  return JSON.stringify(['llm_configs', Number(owner.id), owner.provider, endpointOrigin(owner.endpoint)]);
}

/** Encrypts a row's API key, bound to the row (see {@link llmKeyAssociatedData}). */
export function sealLlmKey(secretKey: Buffer, owner: LlmKeyOwner, apiKey: string): string {
  return encryptSecret(secretKey, apiKey, llmKeyAssociatedData(owner));
}

/**
 * Decrypts a row's API key. Keys stored before they were bound to their row (`v1`) still open; a
 * bound key opens only in the row, provider and origin it was sealed for (else `SecretKeyError`).
 */
export function openLlmKey(secretKey: Buffer, owner: LlmKeyOwner, stored: string): string {
  return decryptSecret(secretKey, stored, llmKeyAssociatedData(owner));
}

/**
 * Seals again, bound to their rows, the `llm_configs` keys written before keys were bound (`v1`);
 * a row changed meanwhile is left for the next run. Returns how many were sealed and how many
 * could not be opened with this key (those stay as they are).
 */
export async function resealUnboundLlmKeys(
  db: Kysely<Database>,
  secretKey: Buffer,
): Promise<{ sealed: number; unreadable: number }> {
  const rows = await db
    .selectFrom('llm_configs')
    .select(['id', 'provider', 'endpoint', 'api_key_encrypted'])
    .where('api_key_encrypted', 'like', 'v1:%')
    .execute();
  let sealed = 0;
  let unreadable = 0;
  for (const row of rows) {
    const stored = row.api_key_encrypted;
    if (stored === null || !isUnboundSecret(stored)) continue;
    let apiKey: string;
    try {
      apiKey = decryptSecret(secretKey, stored);
    } catch {
      unreadable += 1;
      continue;
    }
    const result = await db
      .updateTable('llm_configs')
      .set({ api_key_encrypted: sealLlmKey(secretKey, row, apiKey) })
      .where('id', '=', row.id)
      .where('api_key_encrypted', '=', stored)
      .where('provider', '=', row.provider)
      .where('endpoint', '=', row.endpoint)
      .executeTakeFirst();
    if (result.numUpdatedRows > 0n) sealed += 1;
  }
  return { sealed, unreadable };
}
