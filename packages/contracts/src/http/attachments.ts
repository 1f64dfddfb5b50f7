// Defined in ../attachments.ts with the attachment types they check; re-exported to list the family here.
export {
  AttachmentLinkQuerySchema,
  AttachmentParamsSchema,
  AttachmentSchema,
  AttachmentUploadFieldsSchema,
} from '../attachments.ts';
