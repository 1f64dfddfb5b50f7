import { z } from 'zod';

/** Every error code the system reports, on the bus, in SSE `error` events and in HTTP error bodies. */
export const ErrorCodeSchema = z.enum([
  'BAD_REQUEST',
  'VALIDATION_ERROR',
  'MALFORMED_MESSAGE',
  'UNAUTHORIZED',
  'FORBIDDEN',
  /** The caller's roles for the entity do not allow this (e.g. reading the audit trail as a viewer). */
  'ROLE_REQUIRED',
  'NOT_FOUND',
  'CONFLICT',
  /** The person who asked for a write cannot also approve it (segregation of duties). */
  'SELF_APPROVAL',
  'RATE_LIMITED',
  'NO_MODEL_CONFIGURED',
  'LLM_UNAVAILABLE',
  'LLM_ERROR',
  'MAX_ITERATIONS',
  'TOOL_NOT_FOUND',
  'TOOL_BLOCKED',
  'TOOL_TIMEOUT',
  'TOOL_FAILED',
  /** A write was sent and no answer came: it may or may not have run; check with a read tool. */
  'TOOL_OUTCOME_UNKNOWN',
  'MCP_UNAVAILABLE',
  /** A write came without proof that the user approved exactly that call; nothing ran. */
  'WRITE_NOT_APPROVED',
  'SERVICE_UNAVAILABLE',
  'TIMEOUT',
  'INTERNAL',
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;
export const ErrorCode = ErrorCodeSchema.enum;

/**
 * An error that carries one of munim's error codes, so whoever catches it can report or act on
 * the code; the services' coded errors extend it.
 */
export class CodedError extends Error {
  override name = 'CodedError';
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** An error as it travels: a code and a message fit for the reader (user or LLM). */
export const ErrorInfoSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
});
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>;

/** One field-level problem, in a shape a model can act on: the field, what is wrong, what is expected. */
export const FieldIssueSchema = z.object({
  field: z.string(),
  expected: z.string(),
  received: z.string(),
  code: z.string(),
  message: z.string(),
});
export type FieldIssue = z.infer<typeof FieldIssueSchema>;
