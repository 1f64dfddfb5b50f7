import { createHash, timingSafeEqual } from 'node:crypto';
import { IdSchema, type PersonRole } from '@munim/contracts';
import { createRemoteJWKSet, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { ApiKey } from './env.ts';

/** The entity and organisation a credential may act for. */
export interface Tenant {
  entityId: string;
  orgId: string;
}

/** An authenticated caller: whose books it may use, and a stable id for rate limits and stream caps. */
export interface Principal {
  /** Null for an admin credential that names no tenant: it administers, and acts for no entity. */
  tenant: Tenant | null;
  /** May use the admin endpoints (`/v1/admin/*`). */
  admin: boolean;
  /** `key:<digest prefix>` or `jwt:<issuer>:<subject or tenant>`; never the secret itself. */
  id: string;
  /** The person a tenant credential acts as, when it names one, and their roles for its entity. */
  user?: { userId: string | null; roles: PersonRole[] };
}

/** Who is an administrator: holders of these keys, and tokens with this role. */
export interface AdminSettings {
  keys: readonly string[];
  /** Looked for in a `roles` array claim or a `role` string claim. */
  role: string;
}

/** How bearer JWTs are verified; absent when only API keys (or nothing) are configured. */
export interface JwtSettings {
  /** HS256 shared secret. */
  secret?: string | undefined;
  /** JWKS URL of the issuer's public keys (RS256, ES256, EdDSA …). */
  jwksUrl?: string | undefined;
  issuer?: string | undefined;
  audience?: string | undefined;
  /** Claim naming the entity (default `entity_id`). */
  entityClaim: string;
  /** Claim naming the organisation (default `org_id`). */
  orgClaim: string;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;
const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'EdDSA',
];

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function claim(payload: JWTPayload, name: string): string | null {
  const value = payload[name];
  return typeof value === 'string' && IdSchema.safeParse(value).success ? value : null;
}

/**
 * Bearer authentication: API keys from `GATEWAY_API_KEYS` and, alongside, JWTs (HS256 secret or
 * JWKS; `exp` required) whose claims name the entity and organisation. Keys are compared as
 * SHA-256 digests in constant time, and every configured key is compared, so the timing says
 * nothing about which (or how much of a) key matched.
 */
export class Authenticator {
  readonly #keys: { digest: Buffer; principal: Principal }[];
  readonly #jwt: JwtSettings | undefined;
  readonly #hmacKey: Uint8Array | undefined;
  readonly #jwks: JWTVerifyGetKey | undefined;
  readonly #adminRole: string | undefined;

  constructor(keys: readonly ApiKey[], jwt?: JwtSettings, admin?: AdminSettings) {
    this.#keys = keys.map((k) => {
      const hashed = digest(k.key);
      return {
        digest: hashed,
        principal: {
          tenant: { entityId: k.entityId, orgId: k.orgId },
          id: `key:${hashed.subarray(0, 8).toString('hex')}`,
          admin: false,
          user: { userId: k.userId ?? null, roles: k.roles },
        },
      };
    });
    for (const key of admin?.keys ?? []) {
      const hashed = digest(key);
      this.#keys.push({
        digest: hashed,
        principal: { tenant: null, id: `admin:${hashed.subarray(0, 8).toString('hex')}`, admin: true },
      });
    }
    this.#adminRole = admin?.role;
    const enabled = jwt && (jwt.secret || jwt.jwksUrl);
    this.#jwt = enabled ? jwt : undefined;
    this.#hmacKey = jwt?.secret ? new TextEncoder().encode(jwt.secret) : undefined;
    this.#jwks = jwt?.jwksUrl ? createRemoteJWKSet(new URL(jwt.jwksUrl)) : undefined;
  }

  /** Whether any credential is configured; without one the gateway runs unauthenticated (local use). */
  get enabled(): boolean {
    return this.#keys.length > 0 || this.#jwt !== undefined;
  }

  /** The caller of an `Authorization: Bearer <key or JWT>` header, or null when it is missing or invalid. */
  async authenticate(header: string | undefined): Promise<Principal | null> {
    const token = header ? BEARER.exec(header)?.[1] : undefined;
    if (!token) return null;
    const presented = digest(token);
    let found: Principal | null = null;
    for (const entry of this.#keys) {
      if (timingSafeEqual(entry.digest, presented) && found === null) found = entry.principal;
    }
    if (found || !this.#jwt || !JWT_SHAPE.test(token)) return found;
    return this.#verifyJwt(token, this.#jwt);
  }

  async #verifyJwt(token: string, settings: JwtSettings): Promise<Principal | null> {
    // A token without an expiry would be a credential for ever: `exp` is required.
    const options = {
      requiredClaims: ['exp'],
      ...(settings.issuer ? { issuer: settings.issuer } : {}),
      ...(settings.audience ? { audience: settings.audience } : {}),
    };
    let payload: JWTPayload | undefined;
    if (this.#hmacKey) {
      payload = await jwtVerify(token, this.#hmacKey, { ...options, algorithms: ['HS256'] }).then(
        (r) => r.payload,
        () => undefined,
      );
    }
    if (!payload && this.#jwks) {
      payload = await jwtVerify(token, this.#jwks, { ...options, algorithms: ASYMMETRIC_ALGORITHMS }).then(
        (r) => r.payload,
        () => undefined,
      );
    }
    if (!payload) return null;
    const entityId = claim(payload, settings.entityClaim);
    const orgId = claim(payload, settings.orgClaim);
    const admin = this.#adminRole !== undefined && hasRole(payload, this.#adminRole);
    if (!entityId || !orgId) {
      // A token that names no tenant is refused, unless it is an administrator's (who administers only).
      if (!admin || !payload.sub) return null;
      return { tenant: null, id: `jwt:${payload.iss ?? ''}:${payload.sub}`, admin };
    }
    const subject = payload.sub ?? `${entityId}/${orgId}`;
    return { tenant: { entityId, orgId }, id: `jwt:${payload.iss ?? ''}:${subject}`, admin };
  }
}

/** Whether a token carries a role, as a `roles` array claim or a `role` string claim. */
function hasRole(payload: JWTPayload, role: string): boolean {
  const { roles, role: single } = payload;
  return (Array.isArray(roles) && roles.includes(role)) || single === role;
}
