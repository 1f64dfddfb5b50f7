import {
  ArchiveRefusedError,
  type AttachmentRow,
  ExtractionBusyError,
  UnsupportedTypeError,
} from '@munim/attachments';
import {
  ATTACHMENT_TYPES,
  AttachmentParamsSchema,
  AttachmentSchema,
  AttachmentUploadFieldsSchema,
  TenantScopeQuerySchema,
} from '@munim/contracts';
import type { Database } from '@munim/db';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Tenant } from '../auth.ts';
import type { GatewayContext } from '../context.ts';
import { conversationNotFound } from '../conversations/store.ts';
import { HttpRefusal, httpError, validationError } from '../http-errors.ts';
import { megabytes, readFileUpload } from '../multipart.ts';
import { errorResponses, SECURITY } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { requestTenant } from '../tenant-gate.ts';
import { attachmentNotFound, noAttachments } from './checks.ts';

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

/** Whether a conversation exists and belongs to another tenant. */
async function foreignConversation(db: Kysely<Database>, tenant: Tenant, conversationId: string) {
  const row = await db
    .selectFrom('unified_conversations')
    .select(['entity_id', 'org_id'])
    .where('id', '=', conversationId)
    .executeTakeFirst();
  return row !== undefined && (row.entity_id !== tenant.entityId || row.org_id !== tenant.orgId);
}

/** The refusal of an upload that could not be taken: its type (415), its expansion (413), a busy reader (503). */
function uploadRefusal(request: FastifyRequest, error: unknown): HttpRefusal {
  const fileError = (message: string) => httpError('BAD_REQUEST', `file: ${message}`, { field: 'file' });
  if (error instanceof UnsupportedTypeError) {
    return new HttpRefusal(415, fileError(`${error.message}; accepted: ${ACCEPTED}`));
  }
  if (error instanceof ArchiveRefusedError) {
    request.log.warn({ reason: error.reason }, `archive refused: ${error.message}`);
    return new HttpRefusal(error.reason === 'unreadable' ? 415 : 413, fileError(error.message));
  }
  if (error instanceof ExtractionBusyError) {
    return new HttpRefusal(503, httpError('SERVICE_UNAVAILABLE', error.message), {
      headers: { 'retry-after': String(error.retryAfterSeconds) },
    });
  }
  throw error;
}

/** `POST /v1/attachments`, `GET` and `DELETE /v1/attachments/:id`, tenant-scoped. */
export const attachmentRoutes: FastifyPluginAsync<GatewayContext> = async (app, ctx) => {
  const { db, attachments } = ctx;
  const maxBytes = ctx.config.ATTACHMENTS_MAX_BYTES;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const docs = { tags: ['attachments'], security: SECURITY };

  api.post(
    '/v1/attachments',
    {
      schema: {
        ...docs,
        summary: `Upload a file (multipart: file, entityId, orgId, conversationId?); ${ACCEPTED}; at most ${megabytes(maxBytes)}`,
        consumes: ['multipart/form-data'],
        response: { 201: AttachmentSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429, 503) },
      },
    },
    async (request, reply) => {
      if (!db || !attachments) throw noAttachments();
      const upload = await readUpload(request, maxBytes);
      // The fields arrive in the multipart stream, read here so the file's size is enforced as it streams.
      const fields = AttachmentUploadFieldsSchema.safeParse(upload.fields);
      if (!fields.success) throw new HttpRefusal(400, validationError(fields.error.issues));
      const tenant = requestTenant(request, fields.data);
      const { conversationId } = fields.data;
      if (conversationId && (await foreignConversation(db, tenant, conversationId))) {
        throw conversationNotFound(conversationId);
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
        throw uploadRefusal(request, error);
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

  api.get(
    '/v1/attachments/:attachmentId',
    {
      schema: {
        ...docs,
        summary: 'An attachment of the caller’s tenant, with a fresh signed link (1 hour)',
        params: AttachmentParamsSchema,
        querystring: TenantScopeQuerySchema,
        response: { 200: AttachmentSchema, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      const tenant = requestTenant(request, request.query);
      if (!attachments) throw noAttachments();
      const { attachmentId } = request.params;
      const row = await attachments.find(attachmentId, tenant);
      if (!row) throw attachmentNotFound(attachmentId);
      return attachments.view(row);
    },
  );

  api.delete(
    '/v1/attachments/:attachmentId',
    {
      schema: {
        ...docs,
        summary: 'Delete an attachment of the caller’s tenant (record and stored file)',
        params: AttachmentParamsSchema,
        querystring: TenantScopeQuerySchema,
        response: { 204: { type: 'null' }, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      const tenant = requestTenant(request, request.query);
      if (!attachments) throw noAttachments();
      const { attachmentId } = request.params;
      if (!(await attachments.remove(attachmentId, tenant))) throw attachmentNotFound(attachmentId);
      return reply.code(204).send();
    },
  );
};
