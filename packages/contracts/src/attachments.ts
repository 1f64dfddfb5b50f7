import { z } from 'zod';
import { IdSchema } from './envelope.ts';
import { TenantQuerySchema } from './subjects/conversations.ts';

// File attachments: what may be uploaded, and the HTTP shapes of `/v1/attachments`.

/** Largest upload: 20 MB. */
export const ATTACHMENT_MAX_BYTES = 20 * 1024 * 1024;

/** How long a signed download link stays valid (1 hour). */
export const ATTACHMENT_URL_TTL_SECONDS = 3600;

/** Attachments one query may carry. */
export const MAX_ATTACHMENTS_PER_QUERY = 5;

export const AttachmentCategorySchema = z.enum(['image', 'spreadsheet', 'pdf', 'document']);
export type AttachmentCategory = z.infer<typeof AttachmentCategorySchema>;

/** Every accepted type, its category and the file name extensions it goes by. */
export const ATTACHMENT_TYPES = {
  'image/jpeg': { category: 'image', extensions: ['jpg', 'jpeg'] },
  'image/png': { category: 'image', extensions: ['png'] },
  'image/webp': { category: 'image', extensions: ['webp'] },
  'image/gif': { category: 'image', extensions: ['gif'] },
  'application/pdf': { category: 'pdf', extensions: ['pdf'] },
  'text/csv': { category: 'spreadsheet', extensions: ['csv'] },
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': {
    category: 'spreadsheet',
    extensions: ['xlsx'],
  },
  'application/vnd.ms-excel': { category: 'spreadsheet', extensions: ['xls'] },
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': {
    category: 'document',
    extensions: ['docx'],
  },
  'text/plain': { category: 'document', extensions: ['txt', 'text', 'md'] },
} as const satisfies Record<string, { category: AttachmentCategory; extensions: readonly string[] }>;
export type AttachmentMimeType = keyof typeof ATTACHMENT_TYPES;
export const AttachmentMimeTypeSchema = z.enum(
  Object.keys(ATTACHMENT_TYPES) as [AttachmentMimeType, ...AttachmentMimeType[]],
);

export const AttachmentIdSchema = z.uuid({ error: 'must be an attachment id (a UUID)' });

/** The attachments a query refers to: distinct ids, at most {@link MAX_ATTACHMENTS_PER_QUERY}. */
export const AttachmentIdsSchema = z
  .array(AttachmentIdSchema)
  .min(1, 'must list at least one attachment id')
  .max(MAX_ATTACHMENTS_PER_QUERY, `must list at most ${MAX_ATTACHMENTS_PER_QUERY} attachments`)
  .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an attachment id');

/** The text fields of a `POST /v1/attachments` form (beside the `file`). */
export const AttachmentUploadFieldsSchema = TenantQuerySchema.extend({
  /** Scopes the attachment to one conversation; without it, any conversation of the tenant may use it. */
  conversationId: IdSchema.optional(),
}).strict();

export const AttachmentParamsSchema = z.object({ attachmentId: AttachmentIdSchema }).strict();

/** `?exp&sig` of a signed download link (local storage). */
export const AttachmentLinkQuerySchema = z
  .object({
    exp: z.coerce.number().int().positive().describe('When the link expires, in seconds since the epoch.'),
    sig: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/, 'is not a link signature')
      .describe('The link’s signature: the credential of this download.'),
  })
  .strict();

export const ExtractionStatusSchema = z.enum(['done', 'failed', 'skipped']);
export type ExtractionStatus = z.infer<typeof ExtractionStatusSchema>;

/** An attachment as the API shows it: metadata, a signed link, what was read from it and a suggestion. */
export const AttachmentSchema = z.object({
  id: z.string(),
  filename: z.string(),
  mimeType: AttachmentMimeTypeSchema,
  category: AttachmentCategorySchema,
  sizeBytes: z.number().int(),
  sha256: z.string(),
  conversationId: z.string().nullable(),
  createdAt: z.string(),
  /** Signed download link, valid until `expiresAt` (1 hour). */
  url: z.string(),
  expiresAt: z.string(),
  extracted: z.object({
    status: ExtractionStatusSchema,
    chars: z.number().int(),
    truncated: z.boolean(),
    /** Data rows of a spreadsheet, pages of a PDF. */
    rows: z.number().int().optional(),
    pages: z.number().int().optional(),
    /** The first characters of the extracted text. */
    preview: z.string().optional(),
    error: z.string().optional(),
  }),
  /** A message the user may send next about this file. */
  suggestedMessage: z.string(),
});
export type Attachment = z.infer<typeof AttachmentSchema>;
