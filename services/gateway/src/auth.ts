import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiKey } from './env.ts';

/** The entity and organisation an API key may act for. */
export interface Tenant {
  entityId: string;
  orgId: string;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Bearer-key authentication against `GATEWAY_API_KEYS`. Keys are compared as SHA-256 digests in
 * constant time, and every configured key is compared, so the timing says nothing about which
 * (or how much of a) key matched.
 */
export class ApiKeyAuth {
  readonly #keys: { digest: Buffer; tenant: Tenant }[];

  constructor(keys: readonly ApiKey[]) {
    this.#keys = keys.map((k) => ({
      digest: digest(k.key),
      tenant: { entityId: k.entityId, orgId: k.orgId },
    }));
  }

  /** Whether any key is configured; without keys the gateway runs unauthenticated (local use). */
  get enabled(): boolean {
    return this.#keys.length > 0;
  }

  /** The tenant of an `Authorization: Bearer <key>` header, or null when it is missing or unknown. */
  authenticate(header: string | undefined): Tenant | null {
    const token = header ? BEARER.exec(header)?.[1] : undefined;
    if (!token) return null;
    const presented = digest(token);
    let found: Tenant | null = null;
    for (const entry of this.#keys) {
      if (timingSafeEqual(entry.digest, presented) && found === null) found = entry.tenant;
    }
    return found;
  }
}

/** Whether a tenant may act for the given entity and organisation. */
export function mayActFor(tenant: Tenant, entityId: string, orgId: string): boolean {
  return tenant.entityId === entityId && tenant.orgId === orgId;
}
