import { z } from 'zod';
import { IdSchema } from '../envelope.ts';

// HTTP shapes of the audit trail's export.

/**
 * What the audit trail records a person or program doing to a write, or an admin doing to the
 * books' settings (`locked`: the lock date; `configured`: the business context), or an approver
 * doing to a standing approval (`granted`, `revoked`).
 */
export const AUDIT_ACTIONS = [
  'proposed',
  'confirmed',
  'approved',
  'rejected',
  'edited',
  'executed',
  'failed',
  'cancelled',
  'expired',
  'locked',
  'configured',
  'granted',
  'revoked',
] as const;

/** The roles that may read an entity's audit trail. */
export const AUDIT_READER_ROLES = ['approver', 'admin', 'owner'] as const;

const Moment = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .describe('An ISO 8601 date-time with its offset, or a date (midnight UTC).');

/** `GET /v1/audit?from&to&format`: the entity's audit trail, oldest first. */
export const AuditQuerySchema = z
  .object({
    entityId: IdSchema.optional().describe(
      'The entity; required without auth, must be the credential’s with it.',
    ),
    orgId: IdSchema.optional().describe(
      'The organisation; required without auth, must be the credential’s with it.',
    ),
    from: Moment.optional().describe('Rows at or after this moment (default: from the first row).'),
    to: Moment.optional().describe('Rows before this moment (default: to the last row).'),
    format: z
      .enum(['json', 'csv'])
      .default('json')
      .describe('`json` (default) or `csv` (a header row first).'),
  })
  .strict()
  .refine((q) => q.from === undefined || q.to === undefined || Date.parse(q.from) < Date.parse(q.to), {
    path: ['to'],
    error: 'must be after from',
  });
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

const Hash = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * One row of the trail. `hash` is the SHA-256 (hex) of `prevHash` followed by the row's canonical
 * JSON without `hash` (keys sorted, no whitespace). A row of another entity of the organisation
 * is withheld: only `seq`, `orgId`, `prevHash` and `hash`, the rest null, so the chain can be
 * followed through it.
 */
export const AuditRowSchema = z.object({
  seq: z.number().int().min(1).describe('The row’s place in the organisation’s chain, from 1.'),
  at: z.iso.datetime().nullable().describe('When, UTC, to the millisecond; null for a withheld row.'),
  entityId: IdSchema.nullable().describe('The entity; null for a withheld row.'),
  orgId: IdSchema,
  actor: z.string().nullable().describe('Who: a user id, or `program:<key id>`; null for a withheld row.'),
  action: z.enum(AUDIT_ACTIONS).nullable().describe('What was done; null for a withheld row.'),
  tool: z.string().nullable(),
  argsHash: z.string().nullable().describe('SHA-256 of the call’s arguments, when there was a call.'),
  summary: z.string().nullable().describe('What was done to what, in words; null for a withheld row.'),
  prevHash: Hash.describe('The hash of the row before (64 zeros before the first).'),
  hash: Hash,
});
export type AuditRowExport = z.infer<typeof AuditRowSchema>;

/** The JSON export: every row of the window, oldest first. */
export const AuditExportSchema = z.object({ rows: z.array(AuditRowSchema) });
