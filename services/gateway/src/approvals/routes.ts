import {
  APPROVER_ROLES,
  ApprovalDecisionBodySchema,
  ApprovalListSchema,
  ApprovalOutcomeSchema,
  ApprovalParamsSchema,
  ApprovalsQuerySchema,
  type ErrorCode,
  type EventPayload,
  StandingGrantInputSchema,
  StandingGrantListSchema,
  StandingGrantParamsSchema,
  TenantScopeQuerySchema,
} from '@munim/contracts';
import { relay, SubmitError, submitQuery } from '@munim/kit';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { actorOf } from '../actor.ts';
import type { Tenant } from '../auth.ts';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError, noDatabase } from '../http-errors.ts';
import { errorResponses, jsonSchema, SECURITY } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { requestTenant } from '../tenant-gate.ts';
import { approvalConversation, type Decider, grant, listApprovals, listGrants, revoke } from './store.ts';

/** The HTTP status of a decision the agent refused. */
const REFUSED: Partial<Record<ErrorCode, number>> = {
  SELF_APPROVAL: 403,
  ROLE_REQUIRED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  VALIDATION_ERROR: 422,
  TIMEOUT: 504,
};

const deciderOf = (request: FastifyRequest): Decider => {
  const actor = actorOf(request, 'api');
  return { userId: actor.userId, roles: actor.roles };
};

/** Refuses a person who holds none of the approvers' roles for the entity. */
function mustApprove(person: Decider, tenant: Tenant, what: string): void {
  if (person.roles.some((r) => (APPROVER_ROLES as readonly string[]).includes(r))) return;
  throw new HttpRefusal(
    403,
    httpError(
      'ROLE_REQUIRED',
      `${what} for entity ${tenant.entityId} needs the approver or owner role; this credential's roles for it: ${person.roles.join(', ') || 'none'}.`,
    ),
  );
}

/** The database, or the 503 of approvals without one. */
function database(ctx: GatewayContext) {
  if (!ctx.db) throw noDatabase('Approvals are');
  return ctx.db;
}

/** `GET /v1/approvals` and the standing approvals. */
export const approvalInboxRoutes: FastifyPluginAsync<GatewayContext> = async (root, ctx) => {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/v1/approvals',
    {
      schema: {
        summary: 'Writes waiting for the caller’s approval, or those decided',
        tags: ['approvals'],
        security: SECURITY,
        querystring: ApprovalsQuerySchema,
        response: { 200: jsonSchema(ApprovalListSchema, 'output'), ...errorResponses(400, 401, 403, 503) },
      },
    },
    async (request) => {
      const { status, ...claim } = request.query;
      const tenant = requestTenant(request, claim);
      return { approvals: await listApprovals(database(ctx), tenant, deciderOf(request), status) };
    },
  );

  app.get(
    '/v1/approvals/standing',
    {
      schema: {
        summary: 'Standing approvals of the entity',
        tags: ['approvals'],
        security: SECURITY,
        querystring: TenantScopeQuerySchema,
        response: {
          200: jsonSchema(StandingGrantListSchema, 'output'),
          ...errorResponses(400, 401, 403, 503),
        },
      },
    },
    async (request) => {
      const tenant = requestTenant(request, request.query);
      return { grants: await listGrants(database(ctx), tenant) };
    },
  );

  app.post(
    '/v1/approvals/standing',
    {
      schema: {
        summary: 'Grant a standing approval: writes within its scope need only their maker’s confirmation',
        tags: ['approvals'],
        security: SECURITY,
        body: StandingGrantInputSchema,
        response: {
          201: jsonSchema(StandingGrantListSchema, 'output'),
          ...errorResponses(400, 401, 403, 503),
        },
      },
    },
    async (request, reply) => {
      const { entityId, orgId, ...scope } = request.body;
      const tenant = requestTenant(request, { entityId, orgId });
      const person = deciderOf(request);
      mustApprove(person, tenant, 'Granting a standing approval');
      if (Date.parse(scope.expiresAt) <= Date.now())
        throw new HttpRefusal(
          400,
          httpError('BAD_REQUEST', 'expiresAt: must be in the future', { field: 'expiresAt' }),
        );
      const id = await grant(database(ctx), tenant, person, scope);
      const grants = (await listGrants(database(ctx), tenant)).filter((g) => g.grantId === id);
      return reply.code(201).send({ grants });
    },
  );

  app.delete(
    '/v1/approvals/standing/:grantId',
    {
      schema: {
        summary: 'Revoke a standing approval (it no longer applies, even to a card already shown)',
        tags: ['approvals'],
        security: SECURITY,
        params: StandingGrantParamsSchema,
        querystring: TenantScopeQuerySchema,
        response: { 204: { type: 'null' }, ...errorResponses(400, 401, 403, 404, 503) },
      },
    },
    async (request, reply) => {
      const tenant = requestTenant(request, request.query);
      const person = deciderOf(request);
      mustApprove(person, tenant, 'Revoking a standing approval');
      if (!(await revoke(database(ctx), tenant, request.params.grantId, person)))
        throw new HttpRefusal(
          404,
          httpError('NOT_FOUND', 'There is no active standing approval with that id.'),
        );
      return reply.code(204).send();
    },
  );
};

/**
 * `POST /v1/approvals/:approvalId`: a decision, carried to the agent as a request in the maker's
 * conversation, which checks who decides and runs an approved write once; the answer is what it
 * came to.
 */
export const approvalDecisionRoutes: FastifyPluginAsync<GatewayContext> = async (root, ctx) => {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/v1/approvals/:approvalId',
    {
      schema: {
        summary: 'Approve or reject a write waiting for approval (optionally editing it first)',
        tags: ['approvals'],
        security: SECURITY,
        params: ApprovalParamsSchema,
        body: ApprovalDecisionBodySchema,
        response: {
          200: jsonSchema(ApprovalOutcomeSchema, 'output'),
          ...errorResponses(400, 401, 403, 404, 409, 422, 503, 504),
        },
      },
    },
    async (request) => {
      const { entityId, orgId, decision, reason, args } = request.body;
      const tenant = requestTenant(request, { entityId, orgId });
      const { approvalId } = request.params;
      const conversationId = await approvalConversation(database(ctx), tenant, approvalId);
      if (!conversationId)
        throw new HttpRefusal(
          404,
          httpError('NOT_FOUND', 'There is no approval with that id for this entity.'),
        );
      let submission: Awaited<ReturnType<typeof submitQuery>>;
      try {
        submission = await submitQuery(ctx.bus, {
          query: `${decision} ${approvalId}`,
          approvalDecision: {
            approvalId,
            decision,
            ...(reason ? { reason } : {}),
            ...(args ? { args } : {}),
          },
          conversationId,
          ...tenant,
          actor: actorOf(request, 'api'),
        });
      } catch (error) {
        if (!(error instanceof SubmitError)) throw error;
        throw new HttpRefusal(
          503,
          httpError('SERVICE_UNAVAILABLE', 'The decision could not be sent; try again shortly.'),
        );
      }
      let complete: EventPayload<'complete'> | undefined;
      let failure: { code: ErrorCode; message: string } | undefined;
      let wrote: { success: boolean; error?: string | undefined } | undefined;
      const ended = await ctx.openStreams.track((shutdown) =>
        relay({
          following: submission.following,
          signal: shutdown,
          timeoutMs: ctx.config.STREAM_TIMEOUT_MS,
          onEvent: ({ message }) => {
            const event = message.data;
            if (event.type === 'complete') complete = event.payload;
            else if (event.type === 'error') failure = event.payload;
            else if (event.type === 'tool_result' && event.payload.success !== undefined)
              wrote = { success: event.payload.success, error: event.payload.error };
          },
        }),
      );
      const error = ended ?? failure;
      if (error || !complete) {
        const info = error ?? { code: 'INTERNAL' as const, message: 'The decision ended without an answer.' };
        throw new HttpRefusal(REFUSED[info.code] ?? 502, httpError(info.code, info.message));
      }
      const outcome = complete.approval ?? {
        // A decision finished by another agent instance (its first one died) says it in its result.
        approvalId,
        status: wrote?.success ? ('executed' as const) : ('failed' as const),
        ...(wrote?.error ? { error: wrote.error } : {}),
      };
      const write = complete.mcpToolResults.at(-1);
      return {
        status: outcome.status,
        ...(outcome.error ? { error: outcome.error } : {}),
        ...(write && outcome.status === 'executed'
          ? { result: { tool: write.tool, success: write.success } }
          : {}),
        response: complete.response,
        requestId: submission.scope.requestId,
      };
    },
  );
};
