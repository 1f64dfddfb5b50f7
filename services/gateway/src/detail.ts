import type { EventType } from '@munim/contracts';
import type { FastifyRequest } from 'fastify';
import type { GatewayContext } from './context.ts';
import { HttpRefusal, httpError } from './http-errors.ts';

const ASKED = new Set(['1', 'true']);

/** What a client asked to see of the events: the tools' full results, and `complete` without repeats. */
export interface StreamView {
  detail: boolean;
  compact: boolean;
}

const ANSWERS = new Set([...ASKED, 'false', '0']);

/** Whether a yes-or-no option of the query string is yes; any other answer than yes or no is a 400. */
const asked = (request: FastifyRequest, name: string) => {
  const value = (request.query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return false;
  if (typeof value !== 'string' || !ANSWERS.has(value))
    throw new HttpRefusal(
      400,
      httpError('BAD_REQUEST', `${name}: must be true, 1, false or 0`, { field: name }),
    );
  return ASKED.has(value);
};

/** The view a request asked for (`?debug=true`, `?compact=true`); a debug view refused is a 403. */
export function streamView(ctx: Pick<GatewayContext, 'authenticator'>, request: FastifyRequest): StreamView {
  return { detail: streamsDetail(ctx, request), compact: asked(request, 'compact') };
}

/**
 * Whether this request streams the tools' full results (`?debug=true`): for the pipeline debugger,
 * and only for an admin credential, or on a gateway without authentication (local use). Everyone
 * else gets what an answer needs: each tool's outcome and record count, and the answer itself.
 */
function streamsDetail(ctx: Pick<GatewayContext, 'authenticator'>, request: FastifyRequest): boolean {
  if (!asked(request, 'debug')) return false;
  if (!ctx.authenticator.enabled || request.principal?.admin) return true;
  throw new HttpRefusal(
    403,
    httpError('FORBIDDEN', 'debug: the tools’ full results are only streamed to an admin credential.', {
      field: 'debug',
    }),
  );
}

/**
 * What `complete` repeats of the stream before it, left out of a compact view: the answer (its
 * `response_chunk`s and any `response_replace` carried it), the question, the pipeline
 * (`pipeline_planned`) and the tools' outcomes (`tool_result`).
 */
const REPEATED_IN_COMPLETE = ['response', 'query', 'pipelineSteps', 'mcpToolResults'];

/**
 * An event's payload as a client sees it. Without detail, tool results travel as their outcome:
 * `tool_result` without `result`, and `complete`'s `mcpToolResults` without `input` and `result`
 * (the stored event keeps them, for the debugger and the logs). A compact view's `complete` has
 * only what the stream had not carried yet (status, format, sources, model, usage, …).
 */
export function forClient(type: EventType, payload: unknown, view: StreamView): unknown {
  if (type === 'complete' && view.compact) {
    const rest: Record<string, unknown> = { ...(payload as Record<string, unknown>) };
    for (const key of REPEATED_IN_COMPLETE) delete rest[key];
    return rest;
  }
  if (view.detail) return payload;
  if (type === 'tool_result') {
    const { result: _result, ...lean } = payload as Record<string, unknown>;
    return lean;
  }
  if (type === 'complete') {
    const complete = payload as { mcpToolResults?: Record<string, unknown>[] };
    if (!complete.mcpToolResults?.length) return payload;
    return {
      ...complete,
      mcpToolResults: complete.mcpToolResults.map(({ input: _input, result: _result, ...lean }) => lean),
    };
  }
  return payload;
}
