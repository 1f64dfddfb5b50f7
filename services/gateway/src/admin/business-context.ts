import {
  BusinessContextInputSchema,
  type BusinessContextView,
  BusinessEntityParamsSchema,
  LockDateInputSchema,
  type LockDateView,
  longDate,
  OrgQuerySchema,
} from '@munim/contracts';
import {
  type BusinessSettings,
  BusinessSettingsError,
  loadBusinessContext,
  readBusinessSettings,
  readLockDate,
  saveBusinessSettings,
  setLockDate,
} from '@munim/db';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError, noDatabase } from '../http-errors.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { isOrgAdmin } from './approval-policy.ts';

/** An org's admin or owner administers only the entity and org its credential names. */
function mayAdminister(request: FastifyRequest, entityId: string, orgId: string): void {
  const principal = request.principal;
  if (principal?.admin) return;
  const tenant = principal?.tenant;
  if (isOrgAdmin(principal) && tenant?.orgId === orgId && tenant.entityId === entityId) return;
  const field = tenant?.orgId === orgId ? 'entityId' : 'orgId';
  throw new HttpRefusal(
    403,
    httpError(
      'FORBIDDEN',
      `An admin or owner may set only their own entity's settings, not ${entityId} of ${orgId}.`,
      { field },
    ),
  );
}

/** Who changed it, for the trail: the user, else the credential's id (never the secret). */
const actor = (request: FastifyRequest) =>
  request.principal?.user?.userId ?? request.principal?.id ?? 'admin';

const view = (entityId: string, orgId: string, s: BusinessSettings): BusinessContextView => ({
  entityId,
  orgId,
  configured: s.configured,
  companyName: s.companyName,
  countryCode: s.countryCode,
  countryName: s.countryName,
  currency: s.currency,
  locale: s.locale,
  dateFormat: s.dateFormat,
  fyStartMonth: s.fyStartMonth,
  timezone: s.timezone,
  taxName: s.taxName,
  state: s.state,
  gstin: s.gstin,
  lockDate: s.lockDate,
});

const ROUTE = '/v1/admin/entities/:entityId';
const schema = { ...HIDDEN, params: BusinessEntityParamsSchema, querystring: OrgQuerySchema };

/**
 * An entity's business context and closed period, for admin credentials and the entity's own
 * admins and owners. `…/business-context`: `GET` the settings in force (its own over its
 * country's, with its state, GSTIN and lock date); `PUT` the fields to change (null clears an
 * override). `…/lock-date`: `GET` it; `PUT { lockDate }` closes the books up to that day (null
 * reopens them). Every change is a row of the audit trail (`configured`, `locked`); a bad value
 * is refused with 400 naming the field.
 */
export const businessContextRoutes: FastifyPluginAsync<GatewayContext> = async (app, ctx) => {
  const admin = app.withTypeProvider<ZodTypeProvider>();
  const db = (what: string) => {
    if (!ctx.db) throw noDatabase(what);
    return ctx.db;
  };

  admin.get(
    `${ROUTE}/business-context`,
    { config: { orgAdmins: true }, schema },
    async (request): Promise<BusinessContextView> => {
      const { entityId } = request.params;
      const { orgId } = request.query;
      mayAdminister(request, entityId, orgId);
      return view(entityId, orgId, await readBusinessSettings(db('Business settings'), { entityId, orgId }));
    },
  );

  admin.put(
    `${ROUTE}/business-context`,
    {
      config: { orgAdmins: true, bodyRequired: true },
      schema: { ...schema, body: BusinessContextInputSchema },
    },
    async (request): Promise<BusinessContextView> => {
      const { entityId } = request.params;
      const { orgId } = request.query;
      mayAdminister(request, entityId, orgId);
      try {
        const saved = await saveBusinessSettings(
          db('Business settings'),
          { entityId, orgId },
          request.body,
          actor(request),
        );
        return view(entityId, orgId, saved);
      } catch (error) {
        if (!(error instanceof BusinessSettingsError)) throw error;
        throw new HttpRefusal(400, httpError('BAD_REQUEST', error.message, { field: error.field }), {
          cause: error,
        });
      }
    },
  );

  admin.get(
    `${ROUTE}/lock-date`,
    { config: { orgAdmins: true }, schema },
    async (request): Promise<LockDateView> => {
      const { entityId } = request.params;
      const { orgId } = request.query;
      mayAdminister(request, entityId, orgId);
      const tenant = { entityId, orgId };
      const [lock, business] = await Promise.all([
        readLockDate(db('Lock dates'), tenant),
        loadBusinessContext(db('Lock dates'), tenant),
      ]);
      return {
        ...tenant,
        ...lock,
        lockDateText: lock.lockDate ? longDate(lock.lockDate, business.locale) : null,
      };
    },
  );

  admin.put(
    `${ROUTE}/lock-date`,
    { config: { orgAdmins: true, bodyRequired: true }, schema: { ...schema, body: LockDateInputSchema } },
    async (request): Promise<LockDateView> => {
      const { entityId } = request.params;
      const { orgId } = request.query;
      mayAdminister(request, entityId, orgId);
      const tenant = { entityId, orgId };
      const business = await loadBusinessContext(db('Lock dates'), tenant);
      const describe = (iso: string) => longDate(iso, business.locale);
      const { changed: _changed, ...lock } = await setLockDate(
        db('Lock dates'),
        tenant,
        request.body.lockDate,
        {
          actor: actor(request),
          describe,
        },
      );
      return { ...tenant, ...lock, lockDateText: lock.lockDate ? describe(lock.lockDate) : null };
    },
  );
};
