import { createHash, timingSafeEqual } from 'node:crypto';
import { IdSchema, PERSON_ROLES, type PersonRole } from '@munim/contracts';
import type { EntityRole, KeyHolder } from '@munim/db';
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
  /**
   * The person a tenant credential acts as and their roles for its entity: a key's user (none: the
   * tenant's owner), a token's `sub`. For a key issued to a user, set once the tenant gate knows
   * which of the user's entities the request is for.
   */
  user?: Person;
  /** A key issued to a user of an org (`/v1/admin/users`): it acts for the entities the user has roles on. */
  member?: { userId: string; orgId: string; roles: EntityRole[]; program: boolean };
}

/** A person and their roles for one entity. */
export interface Person {
  /** Null: the tenant's owner, no user named. */
  userId: string | null;
  roles: PersonRole[];
  /** The credential is a program's key: its writes wait for a person unless it holds `automation`. */
  program?: boolean;
}

/** Where keys issued to users are looked up (the people store on the gateway's database). */
export interface KeyHolders {
  authenticate(key: string): Promise<KeyHolder | undefined>;
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
  /** Claim naming the person's roles (default `roles`): an array, or a space- or comma-separated string. */
  rolesClaim: string;
}

/** How keys issued to users begin (`@munim/db` People.issueKey). */
const ISSUED_KEY_PREFIX = 'munim_';
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
 * The person roles a token's roles claim names: an array of strings, or one string of names
 * separated by spaces or commas. Names that are not person roles are dropped; none left: viewer.
 */
export function rolesIn(value: unknown): PersonRole[] {
  const names = Array.isArray(value)
    ? value.filter((v): v is string => typeof v === 'string')
    : typeof value === 'string'
      ? value.split(/[\s,]+/)
      : [];
  const roles = PERSON_ROLES.filter((role) => names.includes(role));
  return roles.length > 0 ? roles : ['viewer'];
}

/**
 * Bearer authentication: API keys from `GATEWAY_API_KEYS`, keys issued to users through
 * `/v1/admin/users` (looked up by their hash in the database) and JWTs (HS256 secret or JWKS; `exp`
 * required) whose claims name the entity, organisation, user (`sub`) and roles. Configured keys
 * are compared as SHA-256 digests in constant time, and every one is compared, so the timing says
 * nothing about which (or how much of a) key matched.
 */
export class Authenticator {
  readonly #keys: { digest: Buffer; principal: Principal }[];
  readonly #jwt: JwtSettings | undefined;
  readonly #hmacKey: Uint8Array | undefined;
  readonly #jwks: JWTVerifyGetKey | undefined;
  readonly #adminRole: string | undefined;
  readonly #holders: KeyHolders | undefined;

  constructor(keys: readonly ApiKey[], jwt?: JwtSettings, admin?: AdminSettings, holders?: KeyHolders) {
    this.#holders = holders;
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
    if (found) return found;
    const held = await this.#issuedKey(token);
    if (held !== undefined) return held;
    if (!this.#jwt || !JWT_SHAPE.test(token)) return null;
    return this.#verifyJwt(token, this.#jwt);
  }

  /** A key issued to a user: its principal, null when refused, undefined when it is no such key. */
  async #issuedKey(token: string): Promise<Principal | null | undefined> {
    if (!this.#holders || !token.startsWith(ISSUED_KEY_PREFIX)) return undefined;
    const holder = await this.#holders.authenticate(token);
    if (!holder) return null;
    return {
      tenant: null,
      admin: false,
      id: `user-key:${holder.keyId}`,
      member: {
        userId: holder.userId,
        orgId: holder.orgId,
        roles: holder.roles,
        program: holder.kind === 'program',
      },
    };
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
    // `sub` is the user: one that is not an id cannot be recorded as who asked, so it is refused.
    if (payload.sub !== undefined && !IdSchema.safeParse(payload.sub).success) return null;
    const subject = payload.sub ?? `${entityId}/${orgId}`;
    return {
      tenant: { entityId, orgId },
      id: `jwt:${payload.iss ?? ''}:${subject}`,
      admin,
      user: { userId: payload.sub ?? null, roles: rolesIn(payload[settings.rolesClaim]) },
    };
  }
}

/** Whether a token carries a role, as a `roles` array claim or a `role` string claim. */
function hasRole(payload: JWTPayload, role: string): boolean {
  const { roles, role: single } = payload;
  return (Array.isArray(roles) && roles.includes(role)) || single === role;
}
