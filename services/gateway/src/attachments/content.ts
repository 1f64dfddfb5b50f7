import { contentDisposition } from '@munim/attachments';
import { AttachmentLinkQuerySchema, AttachmentParamsSchema } from '@munim/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError } from '../http-errors.ts';
import { errorResponses } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { attachmentNotFound, noAttachments } from './checks.ts';

/**
 * `GET /v1/attachments/:id/content?exp&sig`: the bytes behind a signed link. The signature is
 * the credential (so an `<img>` or a download works without headers); registered outside the
 * bearer-authenticated scope for that reason.
 */
export const attachmentContentRoutes: FastifyPluginAsync<Pick<GatewayContext, 'attachments'>> = async (
  app,
  { attachments },
) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/attachments/:attachmentId/content',
    {
      schema: {
        summary: 'Download an attachment through its signed link (exp and sig from url)',
        tags: ['attachments'],
        params: AttachmentParamsSchema,
        querystring: AttachmentLinkQuerySchema,
        response: {
          200: {
            description: 'The file',
            content: { 'application/octet-stream': { schema: { type: 'string' } } },
          },
          ...errorResponses(400, 403, 404, 503),
        },
      },
    },
    async (request, reply) => {
      if (!attachments) throw noAttachments();
      const id = request.params.attachmentId;
      const { exp, sig } = request.query;
      const check = attachments.checkLink(id, exp, sig);
      if (check !== 'ok') {
        throw new HttpRefusal(
          403,
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
      if (!row) throw attachmentNotFound(id);
      const bytes = await attachments.content(row);
      const maxAge = Math.max(0, exp - Math.floor(Date.now() / 1000));
      return reply
        .type(row.mime_type)
        .header('content-disposition', contentDisposition(row.filename))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', `private, max-age=${maxAge}`)
        .send(bytes);
    },
  );
};
