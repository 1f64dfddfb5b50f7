import {
  ApiKeyInputSchema,
  OrgQuerySchema,
  UserInputSchema,
  UserKeyParamsSchema,
  UserParamsSchema,
  UserRolesInputSchema,
} from '@munim/contracts';
import { People, PeopleError } from '@munim/db';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError, noDatabase } from '../http-errors.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';

const STATUS: Record<PeopleError['code'], number> = { INVALID_INPUT: 400, NOT_FOUND: 404, CONFLICT: 409 };
const CODE = { INVALID_INPUT: 'BAD_REQUEST', NOT_FOUND: 'NOT_FOUND', CONFLICT: 'CONFLICT' } as const;

/** A refusal of the people store as the HTTP answer it is. */
async function answering<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof PeopleError)
      throw new HttpRefusal(STATUS[error.code], httpError(CODE[error.code], error.message), { cause: error });
    throw error;
  }
}

/** Who did it, for the record: the admin credential's id (never the secret). */
const actor = (request: FastifyRequest) => request.principal?.id ?? 'admin';

/**
 * The people of each org: `/v1/admin/users` adds users with roles per entity, changes their
 * roles, disables them, and makes, lists and revokes their API keys. A key is in the answer that
 * makes it and nowhere else: only its hash is kept. Every change records the admin who made it.
 */
export const userRoutes: FastifyPluginAsync<GatewayContext> = async (app, ctx) => {
  const admin = app.withTypeProvider<ZodTypeProvider>();
  const people = () => {
    if (!ctx.db) throw noDatabase('Users');
    return new People(ctx.db);
  };
  const missing = (userId: string, orgId: string) =>
    new HttpRefusal(404, httpError('NOT_FOUND', `User ${userId} is not a user of org ${orgId}.`));

  admin.get('/v1/admin/users', { schema: { ...HIDDEN, querystring: OrgQuerySchema } }, async (request) => ({
    users: await people().list(request.query.orgId),
  }));

  admin.post('/v1/admin/users', { schema: { ...HIDDEN, body: UserInputSchema } }, async (request, reply) => {
    const { orgId, ...input } = request.body;
    const user = await answering(people().create(orgId, input, actor(request)));
    return reply.code(201).send(user);
  });

  admin.get(
    '/v1/admin/users/:userId',
    { schema: { ...HIDDEN, params: UserParamsSchema, querystring: OrgQuerySchema } },
    async (request) => {
      const user = await people().get(request.query.orgId, request.params.userId);
      if (!user) throw missing(request.params.userId, request.query.orgId);
      return user;
    },
  );

  admin.put(
    '/v1/admin/users/:userId/roles',
    { schema: { ...HIDDEN, params: UserParamsSchema, body: UserRolesInputSchema } },
    async (request) =>
      answering(
        people().setRoles(request.body.orgId, request.params.userId, request.body.roles, actor(request)),
      ),
  );

  admin.post(
    '/v1/admin/users/:userId/disable',
    { schema: { ...HIDDEN, params: UserParamsSchema, body: OrgQuerySchema } },
    async (request) => {
      await answering(people().disable(request.body.orgId, request.params.userId));
      return answering(people().get(request.body.orgId, request.params.userId));
    },
  );

  admin.post(
    '/v1/admin/users/:userId/keys',
    { schema: { ...HIDDEN, params: UserParamsSchema, body: ApiKeyInputSchema } },
    async (request, reply) => {
      const made = await answering(
        people().issueKey(request.body.orgId, request.params.userId, {
          label: request.body.label,
          kind: request.body.kind,
          by: actor(request),
        }),
      );
      // The one time the key is shown: no cache may keep it.
      return reply.code(201).header('cache-control', 'no-store').send(made);
    },
  );

  admin.get(
    '/v1/admin/users/:userId/keys',
    { schema: { ...HIDDEN, params: UserParamsSchema, querystring: OrgQuerySchema } },
    async (request) => {
      const { orgId } = request.query;
      if (!(await people().get(orgId, request.params.userId))) throw missing(request.params.userId, orgId);
      return { keys: await people().keys(orgId, request.params.userId) };
    },
  );

  admin.delete(
    '/v1/admin/users/:userId/keys/:keyId',
    { schema: { ...HIDDEN, params: UserKeyParamsSchema, querystring: OrgQuerySchema } },
    async (request, reply) => {
      const { orgId } = request.query;
      const mine = (await people().keys(orgId, request.params.userId)).some(
        (k) => k.keyId === request.params.keyId,
      );
      if (!mine || !(await people().revokeKey(orgId, request.params.keyId)))
        throw new HttpRefusal(
          404,
          httpError(
            'NOT_FOUND',
            `Key ${request.params.keyId} is not a live key of user ${request.params.userId}.`,
          ),
        );
      return reply.code(204).send();
    },
  );
};
