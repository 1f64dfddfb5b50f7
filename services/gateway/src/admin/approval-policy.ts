import {
  ApprovalPolicyError,
  ApprovalPolicyInputSchema,
  type EffectiveApprovalPolicy,
  OrgQuerySchema,
  parseApprovalPolicy,
} from '@munim/contracts';
import { ApprovalPolicies } from '@munim/db';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Principal } from '../auth.ts';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError, noDatabase } from '../http-errors.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Besides admin credentials, an org's own admins and owners may use the route (for their org). */
    orgAdmins?: boolean;
  }
}

/** Whether a tenant credential acts as an admin or owner of its org (its roles for its entity). */
export function isOrgAdmin(principal: Principal | null): boolean {
  const roles = principal?.tenant ? (principal.user?.roles ?? []) : [];
  return roles.includes('admin') || roles.includes('owner');
}

/** The org a caller may administer the policy of: any for admin credentials, else its own. */
function mayAdminister(request: FastifyRequest, orgId: string): void {
  const principal = request.principal;
  if (principal?.admin || (isOrgAdmin(principal) && principal?.tenant?.orgId === orgId)) return;
  throw new HttpRefusal(
    403,
    httpError(
      'FORBIDDEN',
      `An org's admin or owner may set only that org's approval policy, not ${orgId}'s.`,
      {
        field: 'orgId',
      },
    ),
  );
}

/** Who set it, for the record: the user, else the credential's id (never the secret). */
const actor = (request: FastifyRequest) =>
  request.principal?.user?.userId ?? request.principal?.id ?? 'admin';

/**
 * `/v1/admin/approval-policy?orgId=`: an org's approval policy — who must approve which writes.
 * `PUT` sets the org's own (the policy as the body, checked as `APPROVAL_POLICY_FILE` is: a bad
 * one is refused with 400 naming the entry), in place of the operator's file for that org; `GET`
 * answers the policy in force and its source: `org`, `file` or `default` (none: the person who
 * asked confirms). Admin credentials may use it for any org; a user of the org with the admin or
 * owner role, for their own.
 */
export const approvalPolicyRoutes: FastifyPluginAsync<GatewayContext> = async (app, ctx) => {
  const admin = app.withTypeProvider<ZodTypeProvider>();
  const file = ctx.config.APPROVAL_POLICY_FILE?.policy;
  const fallback = (orgId: string): EffectiveApprovalPolicy =>
    file ? { orgId, source: 'file', policy: file } : { orgId, source: 'default', policy: null };

  admin.get(
    '/v1/admin/approval-policy',
    { config: { orgAdmins: true }, schema: { ...HIDDEN, querystring: OrgQuerySchema } },
    async (request): Promise<EffectiveApprovalPolicy> => {
      const { orgId } = request.query;
      mayAdminister(request, orgId);
      const own = ctx.db ? await new ApprovalPolicies(ctx.db).get(orgId) : undefined;
      if (!own) return fallback(orgId);
      const { updatedBy, updatedAt } = own;
      let policy: EffectiveApprovalPolicy['policy'];
      try {
        policy = parseApprovalPolicy(own.policy);
      } catch (error) {
        if (!(error instanceof ApprovalPolicyError)) throw error;
        // Stored before a rule of the schema changed: shown as stored (the agent then asks the owner).
        policy = own.policy as EffectiveApprovalPolicy['policy'];
      }
      return { orgId, source: 'org', policy, updatedBy, updatedAt };
    },
  );

  admin.put(
    '/v1/admin/approval-policy',
    {
      config: { orgAdmins: true, bodyRequired: true },
      schema: { ...HIDDEN, querystring: OrgQuerySchema, body: ApprovalPolicyInputSchema },
    },
    async (request): Promise<EffectiveApprovalPolicy> => {
      const { orgId } = request.query;
      mayAdminister(request, orgId);
      if (!ctx.db) throw noDatabase('Approval policies');
      let policy: ReturnType<typeof parseApprovalPolicy>;
      try {
        policy = parseApprovalPolicy(request.body);
      } catch (error) {
        if (!(error instanceof ApprovalPolicyError)) throw error;
        const field = error.message.slice(0, error.message.indexOf(':'));
        throw new HttpRefusal(400, httpError('BAD_REQUEST', error.message, { field }), { cause: error });
      }
      const stored = await new ApprovalPolicies(ctx.db).put(orgId, policy, actor(request));
      return { orgId, source: 'org', policy, updatedBy: stored.updatedBy, updatedAt: stored.updatedAt };
    },
  );
};
