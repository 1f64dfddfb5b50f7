import type { EventType } from '@munim/contracts';
import type { FastifyRequest } from 'fastify';
import type { GatewayContext } from './context.ts';
import { HttpRefusal, httpError } from './http-errors.ts';

const ASKED = new Set(['1', 'true']);

/**
 * Whether this request streams the tools' full results (`?debug=true`): for the pipeline debugger,
 * and only for an admin credential, or on a gateway without authentication (local use). Everyone
 * else gets what an answer needs: each tool's outcome and record count, and the answer itself.
 */
export function streamsDetail(ctx: Pick<GatewayContext, 'authenticator'>, request: FastifyRequest): boolean {
  const asked = (request.query as Record<string, unknown> | undefined)?.debug;
  if (typeof asked !== 'string' || !ASKED.has(asked)) return false;
  if (!ctx.authenticator.enabled || request.principal?.admin) return true;
  throw new HttpRefusal(
    403,
    httpError('FORBIDDEN', 'debug: the tools’ full results are only streamed to an admin credential.', {
      field: 'debug',
    }),
  );
}

/**
 * An event's payload as a client sees it. Without detail, tool results travel as their outcome:
 * `tool_result` without `result`, and `complete`'s `mcpToolResults` without `input` and `result`
 * (the stored event keeps them, for the debugger and the logs).
 */
export function forClient(type: EventType, payload: unknown, detail: boolean): unknown {
  if (detail) return payload;
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
