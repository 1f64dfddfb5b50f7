import type { ErrorCode, HttpError } from '@munim/contracts';
import type { z } from 'zod';

/** Builds the JSON body of a 4xx/5xx answer (contracts `HttpErrorSchema`). */
export function httpError(
  code: ErrorCode,
  message: string,
  extra: { field?: string; issues?: { field: string; message: string }[] } = {},
): HttpError {
  return { error: { code, message, ...extra } };
}

/** One field-level problem per zod issue; an unknown key is named as its own field. */
export function fieldIssues(issues: readonly z.core.$ZodIssue[]): { field: string; message: string }[] {
  return issues.flatMap((issue) => {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: base ? `${base}.${key}` : key,
        message: 'is not a known field',
      }));
    }
    return [{ field: base || 'body', message: issue.message }];
  });
}

/** A 400 body naming the first offending field and listing every problem. */
export function validationError(issues: readonly z.core.$ZodIssue[]): HttpError {
  const list = fieldIssues(issues);
  const first = list[0] ?? { field: 'body', message: 'is invalid' };
  return httpError('BAD_REQUEST', `${first.field}: ${first.message}`, { field: first.field, issues: list });
}

/** A request that cannot be served; `status`, `headers` and `body` are the HTTP answer to send. */
export class HttpRefusal extends Error {
  override name = 'HttpRefusal';
  readonly status: number;
  readonly body: HttpError;
  readonly headers: Record<string, string>;
  constructor(
    status: number,
    body: HttpError,
    options?: ErrorOptions & { headers?: Record<string, string> },
  ) {
    super(body.error.message, options);
    this.status = status;
    this.body = body;
    this.headers = options?.headers ?? {};
  }
}

/** The 503 of an endpoint that needs the database when none is configured: `<what> is (are) not available`. */
export function noDatabase(what: string, verb: 'is' | 'are' = 'is'): HttpRefusal {
  return new HttpRefusal(
    503,
    httpError('SERVICE_UNAVAILABLE', `${what} ${verb} not available: no database is configured.`),
  );
}
