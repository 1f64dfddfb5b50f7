import { AUDIT_READER_ROLES, AuditExportSchema, AuditQuerySchema } from '@munim/contracts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Tenant } from '../auth.ts';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError, noDatabase } from '../http-errors.ts';
import { errorResponses, jsonSchema, SECURITY } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { requestTenant } from '../tenant-gate.ts';
import { type AuditWindow, auditCsv, auditJson, auditPages } from './export.ts';

const READERS: readonly string[] = AUDIT_READER_ROLES;

/**
 * The roles the request holds for its entity: the credential's person's, the tenant's owner's
 * without authentication, none for a credential that names no person.
 */
function rolesOf(request: FastifyRequest): readonly string[] {
  const { principal } = request;
  return principal === null ? ['owner'] : (principal.user?.roles ?? []);
}

/** Refuses a caller whose roles for the entity do not include a reader's. */
function mustRead(request: FastifyRequest, tenant: Tenant): void {
  const roles = rolesOf(request);
  if (roles.some((role) => READERS.includes(role))) return;
  throw new HttpRefusal(
    403,
    httpError(
      'ROLE_REQUIRED',
      `Reading the audit trail of entity ${tenant.entityId} needs the approver, admin or owner role; ` +
        `this credential's roles for it: ${roles.length > 0 ? roles.join(', ') : 'none'}.`,
    ),
  );
}

/** A moment of the query: a date-time, or a date (midnight UTC). */
const moment = (text: string | undefined) => (text === undefined ? undefined : new Date(text));

/**
 * `GET /v1/audit`: the entity's audit trail in a window, oldest first, as JSON or CSV, for its
 * approvers, admins and owners. The whole window is streamed, read a page at a time; the org's
 * other entities' rows are withheld (their place in the chain only), so the export verifies.
 */
export const auditRoutes: FastifyPluginAsync<Pick<GatewayContext, 'db'>> = async (app, { db }) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/audit',
    {
      schema: {
        summary: 'The audit trail of the entity, hash-chained, oldest first (JSON or CSV)',
        tags: ['audit'],
        security: SECURITY,
        querystring: AuditQuerySchema,
        response: {
          200: {
            description:
              'Every row of the window, streamed. CSV: a header row naming the columns, then one row per line (RFC 4180).',
            content: {
              'application/json': { schema: jsonSchema(AuditExportSchema, 'output') },
              'text/csv': { schema: { type: 'string' } },
            },
          },
          ...errorResponses(400, 401, 403, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const { from, to, format, ...claim } = request.query;
      const tenant = requestTenant(request, claim);
      mustRead(request, tenant);
      if (!db) throw noDatabase('The audit trail');
      const window: AuditWindow = { from: moment(from), to: moment(to) };
      // The first page is read before the answer starts: a database that fails gets an error answer, not an empty export.
      const pages = auditPages(db, tenant, window);
      const first = await pages.next();
      const all = (async function* () {
        if (!first.done) yield first.value;
        yield* pages;
      })();
      reply.header('cache-control', 'no-store');
      if (format === 'csv') {
        const file = `audit-${tenant.orgId}-${tenant.entityId}.csv`;
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${file}"`)
          .send(auditCsv(all));
      }
      return reply.type('application/json; charset=utf-8').send(auditJson(all));
    },
  );
};
