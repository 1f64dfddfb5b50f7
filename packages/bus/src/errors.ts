import { CodedError, type ErrorCode } from '@munim/contracts';

/** A message did not match its subject's schema. */
export class MalformedMessageError extends CodedError {
  override name = 'MalformedMessageError';
  readonly subject: string;
  constructor(subject: string, detail: string, options?: ErrorOptions) {
    super('MALFORMED_MESSAGE', `malformed message on ${subject}: ${detail}`, options);
    this.subject = subject;
  }
}

/** A request/reply call failed: no responder, timeout, or an error reply. */
export class RequestFailedError extends CodedError {
  override name = 'RequestFailedError';
  /**
   * No instance answered (no responder, a timeout, a broken connection), as opposed to an error
   * reply: a request that is safe to repeat may be sent again, to whichever instance is up.
   */
  readonly unanswered: boolean;
  constructor(code: ErrorCode, message: string, options?: ErrorOptions & { unanswered?: boolean }) {
    super(code, message, options);
    this.unanswered = options?.unanswered ?? false;
  }
}

/** A handler's failure with a code the caller may act on; other errors reply as INTERNAL. */
export class HandlerError extends CodedError {
  override name = 'HandlerError';
}

/** Renders a zod-style issue list as one line naming each offending path. */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.map(String).join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}
