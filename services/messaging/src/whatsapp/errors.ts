/** What a failed Graph call carried, for {@link WhatsAppSendError}. */
export interface WhatsAppSendErrorDetails {
  /** The HTTP status of the last answer; absent when no answer came (a network error). */
  status?: number | undefined;
  /** Graph's `error.code` of the last answer, when it sent one. */
  code?: number | undefined;
  /** How many requests were made. */
  attempts: number;
  /** The wait Graph asked for (Retry-After) when it was longer than this client waits. */
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/**
 * A Graph API call that failed for good (after its retries, or at once for a validation error).
 * The message names the operation, the status and Graph's code and message, never the token.
 */
export class WhatsAppSendError extends Error {
  override name = 'WhatsAppSendError';
  readonly status: number | undefined;
  readonly code: number | undefined;
  readonly attempts: number;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, details: WhatsAppSendErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.code = details.code;
    this.attempts = details.attempts;
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** A message this client refuses to send: the Cloud API would reject it (length, count, type). */
export class WhatsAppMessageInvalidError extends Error {
  override name = 'WhatsAppMessageInvalidError';
}

/** A media file larger than the caller accepts; refused before it is read whole. */
export class WhatsAppMediaTooLargeError extends Error {
  override name = 'WhatsAppMediaTooLargeError';
  readonly maxBytes: number;

  constructor(mediaId: string, maxBytes: number, size?: number) {
    super(
      size === undefined
        ? `media ${mediaId} is larger than ${maxBytes} bytes`
        : `media ${mediaId} is ${size} bytes, more than ${maxBytes}`,
    );
    this.maxBytes = maxBytes;
  }
}
