import type { Actor, ActorVia } from '@munim/contracts';
import type { FastifyRequest } from 'fastify';
import type { Person } from './auth.ts';

/** Without authentication (loopback only) a request acts as its tenant's owner, no user named. */
export const TENANT_OWNER: Person = { userId: null, roles: ['owner'] };

/** A credential that names no person (none does, once the tenant gate ran) only reads. */
const NOBODY: Person = { userId: null, roles: ['viewer'] };

/**
 * The person a request acts as, as every message of it carries it: the credential's user and
 * their roles for the request's entity, or the tenant's owner without authentication.
 */
export function actorOf(request: FastifyRequest, via: ActorVia): Actor {
  const principal = request.principal;
  const person = principal === null ? TENANT_OWNER : (principal.user ?? NOBODY);
  return {
    userId: person.userId,
    roles: [...person.roles],
    via,
    ...(person.program ? { program: true } : {}),
  };
}
