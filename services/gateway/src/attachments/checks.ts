import type { Attachments } from '@munim/attachments';
import type { Tenant } from '../auth.ts';
import { HttpRefusal, httpError, noDatabase } from '../http-errors.ts';

/** 404 for an attachment that does not exist or is another tenant's. */
export const attachmentNotFound = (id: string) =>
  new HttpRefusal(404, httpError('NOT_FOUND', `No attachment ${id}.`, { field: 'attachmentId' }));

/** Attachments need the database; the 503 without one. */
export const noAttachments = () => noDatabase('Attachments', 'are');

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
  if (!attachments) throw noAttachments();
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
