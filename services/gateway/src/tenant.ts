import type { FastifyRequest } from 'fastify';
import type { Tenant } from './auth.ts';
import { HttpRefusal, httpError } from './http-errors.ts';
import { tenantOf } from './plugins/auth.ts';

/**
 * The tenant a request acts for: its credentials' (a differing `entityId`/`orgId`, or a credential
 * that names no tenant, is refused with 403), or, without auth, the `entityId`/`orgId` given (400
 * when one is missing). Throws the refusal.
 */
export function resolveTenant(
  request: FastifyRequest,
  given: { entityId?: string | undefined; orgId?: string | undefined },
): Tenant {
  const tenant = tenantOf(request);
  if (tenant) {
    if (
      (given.entityId !== undefined && given.entityId !== tenant.entityId) ||
      (given.orgId !== undefined && given.orgId !== tenant.orgId)
    ) {
      throw new HttpRefusal(
        403,
        httpError('FORBIDDEN', 'Your credentials may not act for this entity and organisation.', {
          field: given.entityId !== tenant.entityId ? 'entityId' : 'orgId',
        }),
      );
    }
    return tenant;
  }
  if (given.entityId === undefined || given.orgId === undefined) {
    const field = given.entityId === undefined ? 'entityId' : 'orgId';
    throw new HttpRefusal(400, httpError('BAD_REQUEST', `${field}: is required`, { field }));
  }
  return { entityId: given.entityId, orgId: given.orgId };
}

/** The 503 of an endpoint that needs the database when none is configured: `<what> is (are) not available`. */
export function noDatabase(what: string, verb: 'is' | 'are' = 'is'): HttpRefusal {
  return new HttpRefusal(
    503,
    httpError('SERVICE_UNAVAILABLE', `${what} ${verb} not available: no database is configured.`),
  );
}
