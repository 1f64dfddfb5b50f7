import { randomUUID } from 'node:crypto';
import { type Bus, type Following, newTraceparent, traceparentOf } from '@munim/bus';
import type { Actor, ApprovalDecision, Channel, McqResponse, RequestScope } from '@munim/contracts';
import { SpanKind, trace } from '@opentelemetry/api';
import { lazyCounter } from './telemetry.ts';

/** A query (or an answer to a pending confirmation) as the gateway accepts it, already validated. */
export interface QueryInput {
  query?: string | undefined;
  mcqResponse?: McqResponse | undefined;
  /** A person's decision on a write waiting for approval (in the maker's conversation). */
  approvalDecision?: ApprovalDecision | undefined;
  entityId: string;
  orgId: string;
  conversationId?: string | undefined;
  /** Checked by the caller: the tenant's, and the conversation's when scoped to one. */
  attachmentIds?: string[] | undefined;
  /** `mcp` for the `/mcp` tool: there, text never confirms a change. */
  channel?: Channel | undefined;
  /** A caller allowed to debug asked for the tools' full results. */
  debug?: boolean | undefined;
  /** Who asks: carried by every message of the request. */
  actor: Actor;
  /**
   * The request's id, for a submission that may be made again (a messaging delivery seen twice):
   * the same id is stored once, and its events are followed again. New by default.
   */
  requestId?: string | undefined;
}

/** A submitted query: its scope and the follow of its events, starting with `connected`. */
export interface Submission {
  scope: RequestScope;
  following: Following;
}

const tracer = trace.getTracer('munim-gateway');
const queries = lazyCounter('munim.queries', 'Queries submitted through the gateway');

/** The query could not be put on the bus (NATS unreachable, stream missing). */
export class SubmitError extends Error {
  override name = 'SubmitError';
}

/**
 * Submits a query the one way both the HTTP API and the MCP tool do: follow the new request's
 * events first (so none is missed), then publish `querySubmitted` with the request id as its dedupe
 * id and a new trace, then open the request (`connected`). The router opens it too, before its
 * first event: a request is opened only once submitted, so one this gateway dies between leaves
 * no request that never ends.
 */
export async function submitQuery(bus: Bus, input: QueryInput): Promise<Submission> {
  const scope: RequestScope = {
    requestId: input.requestId ?? randomUUID(),
    conversationId: input.conversationId ?? randomUUID(),
    entityId: input.entityId,
    orgId: input.orgId,
    actor: input.actor,
  };
  // The root of the query's trace: every hop after this is its descendant.
  const span = tracer.startSpan(input.mcqResponse ? 'munim.confirmation' : 'munim.query', {
    kind: SpanKind.SERVER,
    attributes: {
      'http.request.method': 'POST',
      'http.route': input.channel === 'messaging' ? '/v1/channels/whatsapp/webhook' : '/v1/query',
      'munim.request_id': scope.requestId,
      'munim.conversation_id': scope.conversationId,
      'munim.entity_id': scope.entityId,
    },
  });
  queries().add(1, { 'munim.kind': input.mcqResponse ? 'confirmation' : 'query' });
  const traceparent = traceparentOf(span) ?? newTraceparent();
  let following: Following;
  try {
    following = await bus.follow(scope.requestId, { fresh: true });
  } catch (error) {
    throw new SubmitError('could not follow the request events', { cause: error });
  }
  try {
    await bus.publish(
      'querySubmitted',
      scope,
      {
        query: input.query ?? '',
        ...(input.mcqResponse ? { mcqResponse: input.mcqResponse } : {}),
        ...(input.approvalDecision ? { approvalDecision: input.approvalDecision } : {}),
        ...(input.attachmentIds?.length ? { attachmentIds: input.attachmentIds } : {}),
        ...(input.channel ? { channel: input.channel } : {}),
        ...(input.debug ? { debug: true } : {}),
        ...(input.conversationId === undefined ? { newConversation: true as const } : {}),
      },
      { msgID: scope.requestId, traceparent },
    );
  } catch (error) {
    await following.stop();
    span.recordException(error instanceof Error ? error : String(error));
    span.end();
    throw new SubmitError('could not submit the query', { cause: error });
  }
  // Not fatal: the router opens the request too, and the follow hands its `connected` out.
  await bus
    .open(scope, traceparent)
    .catch((error: unknown) =>
      bus.log?.warn(
        { err: error, requestId: scope.requestId },
        'could not open the request; the router will',
      ),
    )
    .finally(() => span.end());
  return { scope, following };
}
