import {
  ArchiveRefusedError,
  type AttachmentRow,
  type Attachments,
  contentDisposition,
  ExtractionBusyError,
  UnsupportedTypeError,
} from '@munim/attachments';
import {
  ATTACHMENT_TYPES,
  AttachmentLinkQuerySchema,
  AttachmentParamsSchema,
  AttachmentSchema,
  AttachmentUploadFieldsSchema,
  TenantQuerySchema,
} from '@munim/contracts';
import type { Database } from '@munim/db';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { Kysely } from 'kysely';
import type { Tenant } from './auth.ts';
import { conversationNotFound, resolveTenant, resolveTenantParams } from './conversations.ts';
import { HttpRefusal, httpError, validationError } from './http-errors.ts';
import { megabytes, readFileUpload } from './multipart.ts';
import { errorResponses, jsonSchema, SECURITY } from './openapi.ts';

/** Route docs only (handlers validate with zod), typed loosely so replies may use any status. */
const docs = (schema: Record<string, unknown>) => schema as FastifySchema;

export interface AttachmentDeps {
  db: Kysely<Database> | undefined;
  attachments: Attachments | undefined;
  maxBytes: number;
  tenantOf: (request: FastifyRequest) => Tenant | null;
}

const ACCEPTED = Object.entries(ATTACHMENT_TYPES)
  .flatMap(([, type]) => type.extensions.filter((e) => e !== 'text' && e !== 'md'))
  .map((e) => e.toUpperCase())
  .join(', ');

/** Reads the multipart form of an upload: one `file` of at most `maxBytes` and text fields. */
const readUpload = (request: FastifyRequest, maxBytes: number) =>
  readFileUpload(request, {
    maxBytes,
    defaultFilename: 'attachment',
    notMultipart: 'file: the body must be multipart/form-data with a file',
    missing: 'file: a file is required',
    otherFiles: 'refuse',
  });

const noDatabaseError = () =>
  httpError('SERVICE_UNAVAILABLE', 'Attachments are not available: no database is configured.');

function noDatabase(reply: FastifyReply) {
  return reply.code(503).send(noDatabaseError());
}

function notFound(reply: FastifyReply, id: string) {
  return reply.code(404).send(httpError('NOT_FOUND', `No attachment ${id}.`, { field: 'attachmentId' }));
}

/** Whether a conversation exists and belongs to another tenant. */
async function foreignConversation(db: Kysely<Database>, tenant: Tenant, conversationId: string) {
  const row = await db
    .selectFrom('unified_conversations')
    .select(['entity_id', 'org_id'])
    .where('id', '=', conversationId)
    .executeTakeFirst();
  return row !== undefined && (row.entity_id !== tenant.entityId || row.org_id !== tenant.orgId);
}

/**
 * Checks the attachments a query names: each must be the tenant's (else 404) and, when scoped to
 * a conversation, belong to the query's (else 400). Throws an HttpRefusal.
 */
export async function checkQueryAttachments(
  attachments: Attachments | undefined,
  ids: readonly string[],
  tenant: Tenant,
  conversationId: string | undefined,
): Promise<void> {
  if (!attachments) throw new HttpRefusal(503, noDatabaseError());
  const rows = await attachments.findMany(ids, tenant);
  const missing = ids.find((id) => !rows.some((row) => row.id === id));
  if (missing) {
    throw new HttpRefusal(
      404,
      httpError('NOT_FOUND', `attachmentIds: no attachment ${missing}`, { field: 'attachmentIds' }),
    );
  }
  const elsewhere = rows.find(
    (row) => row.conversation_id !== null && row.conversation_id !== conversationId,
  );
  if (elsewhere) {
    throw new HttpRefusal(
      400,
      httpError(
        'BAD_REQUEST',
        `attachmentIds: ${elsewhere.id} belongs to another conversation (send the query with its conversationId)`,
        { field: 'attachmentIds' },
      ),
    );
  }
}

/** The answer to an upload that could not be taken: its type (415), its expansion (413), a busy reader (503). */
function refuseUpload(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  const fileError = (message: string) => httpError('BAD_REQUEST', `file: ${message}`, { field: 'file' });
  if (error instanceof UnsupportedTypeError) {
    return reply.code(415).send(fileError(`${error.message}; accepted: ${ACCEPTED}`));
  }
  if (error instanceof ArchiveRefusedError) {
    request.log.warn({ reason: error.reason }, `archive refused: ${error.message}`);
    return reply.code(error.reason === 'unreadable' ? 415 : 413).send(fileError(error.message));
  }
  if (error instanceof ExtractionBusyError) {
    return reply
      .code(503)
      .header('retry-after', String(error.retryAfterSeconds))
      .send(httpError('SERVICE_UNAVAILABLE', error.message));
  }
  throw error;
}

/** `POST /v1/attachments`, `GET` and `DELETE /v1/attachments/:id` (seed 003 §6.3), tenant-scoped. */
export function registerAttachments(api: FastifyInstance, deps: AttachmentDeps): void {
  const { db, attachments, tenantOf, maxBytes } = deps;
  const tags = ['attachments'];
  const params = jsonSchema(AttachmentParamsSchema);
  const tenantQuery = jsonSchema(TenantQuerySchema.strict());

  api.post(
    '/v1/attachments',
    {
      schema: docs({
        summary: `Upload a file (multipart: file, entityId, orgId, conversationId?); ${ACCEPTED}; at most ${megabytes(maxBytes)}`,
        tags,
        security: SECURITY,
        consumes: ['multipart/form-data'],
        response: {
          201: jsonSchema(AttachmentSchema, 'output'),
          ...errorResponses(400, 401, 403, 404, 413, 415, 429, 503),
        },
      }),
    },
    async (request, reply) => {
      if (!db || !attachments) return noDatabase(reply);
      const upload = await readUpload(request, maxBytes);
      const fields = AttachmentUploadFieldsSchema.safeParse(upload.fields);
      if (!fields.success) return reply.code(400).send(validationError(fields.error.issues));
      const tenant = resolveTenant(request, reply, fields.data, tenantOf);
      if (!tenant) return reply;
      const { conversationId } = fields.data;
      if (conversationId && (await foreignConversation(db, tenant, conversationId))) {
        return conversationNotFound(reply, conversationId);
      }
      let row: AttachmentRow;
      try {
        row = await attachments.upload({
          bytes: upload.bytes,
          filename: upload.filename,
          declaredType: upload.mimeType,
          owner: tenant,
          conversationId,
        });
      } catch (error) {
        return refuseUpload(request, reply, error);
      }
      request.log.info(
        {
          attachmentId: row.id,
          category: row.category,
          sizeBytes: row.size_bytes,
          extraction: row.extraction_status,
        },
        'attachment stored',
      );
      return reply.code(201).send(await attachments.view(row));
    },
  );

  /** The attachment a GET or DELETE names, its tenant and the store; undefined once a 4xx or 503 is sent. */
  const lookup = (request: FastifyRequest, reply: FastifyReply) => {
    const scoped = resolveTenantParams(request, reply, AttachmentParamsSchema, tenantOf);
    if (!scoped) return;
    if (!attachments) return void noDatabase(reply);
    return { id: scoped.params.attachmentId, tenant: scoped.tenant, store: attachments };
  };

  api.get(
    '/v1/attachments/:attachmentId',
    {
      schema: docs({
        summary: 'An attachment of the caller’s tenant, with a fresh signed link (1 hour)',
        tags,
        security: SECURITY,
        params,
        querystring: tenantQuery,
        response: {
          200: jsonSchema(AttachmentSchema, 'output'),
          ...errorResponses(400, 401, 403, 404, 429, 503),
        },
      }),
    },
    async (request, reply) => {
      const found = lookup(request, reply);
      if (!found) return reply;
      const row = await found.store.find(found.id, found.tenant);
      if (!row) return notFound(reply, found.id);
      return found.store.view(row);
    },
  );

  api.delete(
    '/v1/attachments/:attachmentId',
    {
      schema: docs({
        summary: 'Delete an attachment of the caller’s tenant (record and stored file)',
        tags,
        security: SECURITY,
        params,
        querystring: tenantQuery,
        response: { 204: { type: 'null' }, ...errorResponses(400, 401, 403, 404, 429, 503) },
      }),
    },
    async (request, reply) => {
      const found = lookup(request, reply);
      if (!found) return reply;
      if (!(await found.store.remove(found.id, found.tenant))) return notFound(reply, found.id);
      return reply.code(204).send();
    },
  );
}

/**
 * `GET /v1/attachments/:id/content?exp&sig`: the bytes behind a signed link. The signature is
 * the credential (so an `<img>` or a download works without headers); registered outside the
 * bearer-authenticated scope for that reason.
 */
export function registerAttachmentContent(app: FastifyInstance, deps: Pick<AttachmentDeps, 'attachments'>) {
  const { attachments } = deps;
  app.get(
    '/v1/attachments/:attachmentId/content',
    {
      schema: docs({
        summary: 'Download an attachment through its signed link (exp and sig from url)',
        tags: ['attachments'],
        params: jsonSchema(AttachmentParamsSchema),
        querystring: jsonSchema(AttachmentLinkQuerySchema),
        response: {
          200: {
            description: 'The file',
            content: { 'application/octet-stream': { schema: { type: 'string' } } },
          },
          ...errorResponses(400, 403, 404, 503),
        },
      }),
    },
    async (request, reply) => {
      const params = AttachmentParamsSchema.safeParse(request.params);
      if (!params.success) return reply.code(400).send(validationError(params.error.issues));
      const query = AttachmentLinkQuerySchema.safeParse(request.query ?? {});
      if (!query.success) return reply.code(400).send(validationError(query.error.issues));
      if (!attachments) return noDatabase(reply);
      const id = params.data.attachmentId;
      const check = attachments.checkLink(id, query.data.exp, query.data.sig);
      if (check !== 'ok') {
        return reply
          .code(403)
          .send(
            httpError(
              'FORBIDDEN',
              check === 'expired'
                ? 'exp: this link has expired; ask for a fresh one (GET /v1/attachments/:id)'
                : 'sig: this link is not valid',
              { field: check === 'expired' ? 'exp' : 'sig' },
            ),
          );
      }
      const row = await attachments.findById(id);
      if (!row) return notFound(reply, id);
      const bytes = await attachments.content(row);
      const maxAge = Math.max(0, query.data.exp - Math.floor(Date.now() / 1000));
      return reply
        .type(row.mime_type)
        .header('content-disposition', contentDisposition(row.filename))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', `private, max-age=${maxAge}`)
        .send(bytes);
    },
  );
}
