import { isRecord } from '@munim/contracts';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Principal, Tenant } from './auth.ts';
import { HttpRefusal, httpError } from './http-errors.ts';

/**
 * The one place that decides which tenant a request acts for, for every HTTP route under `/v1`
 * (but the admin ones) and every MCP tool call alike:
 * - a credential that names a tenant acts for that tenant only; a request that names another
 *   entity or organisation (query string, JSON body, form fields, tool arguments) is refused;
 * - a credential that names no tenant (an admin key, an admin token without tenant claims)
 *   administers and acts for nobody, so it cannot ask, confirm a write, replay or read a tenant's
 *   data unless it is also that tenant's;
 * - without any credential configured (local use), the request names its tenant itself.
 */

/** The entity and organisation a request names. */
export interface TenantClaim {
  entityId?: string | undefined;
  orgId?: string | undefined;
}

/** Why the gate refused, as every channel answers it: HTTP status, message and the field at fault. */
export interface TenantRefusal {
  status: 400 | 403;
  message: string;
  field?: 'entityId' | 'orgId';
}

/** The gate's answer: the tenant to act for, or the refusal. */
export type TenantDecision =
  | { tenant: Tenant; refusal?: undefined }
  | { tenant?: undefined; refusal: TenantRefusal };

const ADMIN_NOT_TENANT: TenantRefusal = {
  status: 403,
  message:
    'An admin credential administers (/v1/admin/*) and does not act for a tenant: use an API key or token that names the tenant.',
};

const DOES_NOT_MATCH = {
  entityId: 'entityId does not match the entity of your credentials',
  orgId: 'orgId does not match the organisation of your credentials',
} as const;

/** The tenant a credential acts for: null without auth, a refusal for a credential that names none. */
function credentialTenant(principal: Principal | null, claims: TenantClaim[]): Tenant | null | TenantRefusal {
  if (!principal) return null;
  if (principal.member) return memberTenant(principal, principal.member, claims);
  return principal.tenant ?? ADMIN_NOT_TENANT;
}

/**
 * The tenant of a key issued to a user: the entity the request names — or, naming none (an MCP
 * handshake, say), the first of the user's entities by id — which the user must hold a role on,
 * as that user with those roles. An entity the user has no role on is refused like another
 * tenant's.
 */
function memberTenant(
  principal: Principal,
  member: NonNullable<Principal['member']>,
  claims: TenantClaim[],
): Tenant | TenantRefusal {
  const orgId = claims.find((c) => c.orgId !== undefined)?.orgId;
  if (orgId !== undefined && orgId !== member.orgId)
    return { status: 403, message: `${DOES_NOT_MATCH.orgId}: they may not act for it.`, field: 'orgId' };
  const entities = [...new Set(member.roles.map((r) => r.entityId))].sort();
  const entityId = claims.find((c) => c.entityId !== undefined)?.entityId ?? entities[0];
  if (entityId === undefined)
    return { status: 403, message: 'This user holds no role on any entity, so the key may not act for one.' };
  const roles = member.roles.filter((r) => r.entityId === entityId).map((r) => r.role);
  if (roles.length === 0)
    return {
      status: 403,
      message: `${DOES_NOT_MATCH.entityId}: this user holds no role on it.`,
      field: 'entityId',
    };
  // A principal of its own request (issued keys are looked up each time): the person it acts as here.
  principal.user = { userId: member.userId, roles, ...(member.program ? { program: true } : {}) };
  return { entityId, orgId: member.orgId };
}

const isRefusal = (value: Tenant | TenantRefusal | null): value is TenantRefusal =>
  value !== null && 'status' in value;

/** The refusal of a claim that names another tenant than the credential's; null when it names none. */
function otherTenant(credential: Tenant, claim: TenantClaim): TenantRefusal | null {
  const field =
    claim.entityId !== undefined && claim.entityId !== credential.entityId
      ? 'entityId'
      : claim.orgId !== undefined && claim.orgId !== credential.orgId
        ? 'orgId'
        : undefined;
  if (!field) return null;
  return {
    status: 403,
    message: `${DOES_NOT_MATCH[field]}: they may not act for this entity and organisation.`,
    field,
  };
}

/**
 * The tenant of a credential (null without auth; see {@link credentialOf}) and a claim: the
 * credential's, when the claim names no other; without auth the claim's, which must name both
 * (else 400, with `missing` as the message when given).
 */
export function decideTenant(
  credential: Tenant | null,
  claim: TenantClaim,
  missing?: string,
): TenantDecision {
  if (credential) {
    const refusal = otherTenant(credential, claim);
    return refusal ? { refusal } : { tenant: credential };
  }
  const { entityId, orgId } = claim;
  if (entityId === undefined || orgId === undefined) {
    const field = entityId === undefined ? 'entityId' : 'orgId';
    return { refusal: { status: 400, message: missing ?? `${field}: is required`, field } };
  }
  return { tenant: { entityId, orgId } };
}

/** A refusal as an HTTP answer to throw. */
function refusalError(refusal: TenantRefusal): HttpRefusal {
  const code = refusal.status === 400 ? 'BAD_REQUEST' : 'FORBIDDEN';
  return new HttpRefusal(
    refusal.status,
    httpError(code, refusal.message, refusal.field ? { field: refusal.field } : {}),
  );
}

/** The string `entityId` and `orgId` of a parsed query string or JSON body; other values name nothing. */
function claimIn(part: unknown): TenantClaim {
  if (!isRecord(part)) return {};
  const { entityId, orgId } = part;
  return {
    ...(typeof entityId === 'string' ? { entityId } : {}),
    ...(typeof orgId === 'string' ? { orgId } : {}),
  };
}

/** The tenants the MCP tool calls of a JSON-RPC message (one or a batch) name in their arguments. */
function toolCallClaims(body: unknown): TenantClaim[] {
  return (Array.isArray(body) ? body : [body]).flatMap((message) =>
    isRecord(message) && message.method === 'tools/call' && isRecord(message.params)
      ? [claimIn(message.params.arguments)]
      : [],
  );
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the tenant gate: the tenant of the credential (null without auth); undefined where it did not run. */
    gatedCredential: Tenant | null | undefined;
  }
}

/**
 * The gate as a hook of every route of the scope it is registered in: before validation (so a
 * request naming another tenant is refused whatever else is wrong with it) it refuses a credential
 * that names no tenant, and a query string or JSON body that names another tenant than the
 * credential's. Form fields and tool arguments are read by their handlers, which ask the gate
 * through {@link requestTenant} and {@link decideTenant}.
 */
export const tenantGate = fp(
  async (scope) => {
    scope.decorateRequest('gatedCredential', undefined);
    scope.addHook('preValidation', async (request) => {
      const parts = [request.query, request.body];
      // A key issued to a user picks its entity from the request, MCP tool arguments included.
      const claims = [...parts.map(claimIn), ...toolCallClaims(request.body)];
      const credential = credentialTenant(request.principal, claims);
      if (isRefusal(credential)) throw refusalError(credential);
      if (credential) {
        for (const part of parts) {
          const refusal = otherTenant(credential, claimIn(part));
          if (refusal) throw refusalError(refusal);
        }
      }
      request.gatedCredential = credential;
    });
  },
  { name: 'munim-tenant-gate', dependencies: ['munim-principals'] },
);

/**
 * The tenant of the request's credential, null without auth. Throws when the gate did not run:
 * a route that acts for a tenant must be registered where the gate is.
 */
export function credentialOf(request: FastifyRequest): Tenant | null {
  const credential = request.gatedCredential;
  if (credential === undefined) {
    throw new Error(
      `${request.method} ${request.routeOptions.url}: the tenant gate did not run for this route`,
    );
  }
  return credential;
}

/** The tenant a request acts for, given what it names ({@link decideTenant}); throws the refusal. */
export function requestTenant(request: FastifyRequest, claim: TenantClaim, missing?: string): Tenant {
  const decision = decideTenant(credentialOf(request), claim, missing);
  if (decision.refusal) throw refusalError(decision.refusal);
  return decision.tenant;
}

/** Whether a tenant may act for the given entity and organisation (a stored request, a file). */
export function mayActFor(tenant: Tenant, entityId: string, orgId: string): boolean {
  return tenant.entityId === entityId && tenant.orgId === orgId;
}
