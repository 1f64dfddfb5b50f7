import { decryptSecret, encryptSecret, isUnboundSecret, SecretKeyError } from './secrets.ts';

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
 * Decrypts a row's API key: it opens only in the row, provider and origin it was sealed for. A key
 * stored without associated data (`v1`, from before keys were bound; migration 0023 sealed those
 * again) is refused, as is any other mismatch, with `SecretKeyError`.
 */
export function openLlmKey(secretKey: Buffer, owner: LlmKeyOwner, stored: string): string {
  if (isUnboundSecret(stored)) {
    throw new SecretKeyError(
      `the API key of model configuration ${owner.id} is stored without associated data, so it is refused; ` +
        'run `npm run migrate` with LLM_CONFIG_KEY to bind it to its row, or send the key again',
    );
  }
  return decryptSecret(secretKey, stored, llmKeyAssociatedData(owner));
}
