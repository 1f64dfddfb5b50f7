import { createHash } from 'node:crypto';
import type { Bus } from '@munim/bus';
import type { ErrorInfo, EventPayload } from '@munim/contracts';
import { type QueryInput, relay, submitQuery } from '@munim/kit';

/** What a request came to, as a phone is told it. */
export interface Outcome {
  requestId: string;
  conversationId: string;
  mcq?: EventPayload<'mcq'>;
  approvalRequested?: EventPayload<'approval_requested'>;
  complete?: EventPayload<'complete'>;
  /** The request's `error`, or why its events could not be followed to the end. */
  error?: ErrorInfo;
}

/**
 * The request id that answers a message: derived from the channel's message id, so a delivery
 * handled again (by another instance, after a crash) names the same request, which JetStream
 * stores once, instead of asking twice.
 */
export function requestIdFor(channel: string, messageId: string): string {
  const hex = createHash('sha256').update(`${channel}:${messageId}`).digest('hex');
  return `msg-${hex.slice(0, 40)}`;
}

/** Submits a question (or an answer to a card) through the same pipeline as the gateway, and follows it to its end. */
export async function ask(
  bus: Bus,
  input: QueryInput & { requestId: string },
  opts: { timeoutMs: number; signal: AbortSignal },
): Promise<Outcome> {
  const { scope, following } = await submitQuery(bus, input);
  const outcome: Outcome = { requestId: scope.requestId, conversationId: scope.conversationId };
  const ended = await relay({
    following,
    signal: opts.signal,
    timeoutMs: opts.timeoutMs,
    onEvent: ({ message }) => {
      const event = message.data;
      if (event.type === 'connected') outcome.conversationId = event.payload.conversationId;
      else if (event.type === 'mcq') outcome.mcq = event.payload;
      else if (event.type === 'approval_requested') outcome.approvalRequested = event.payload;
      else if (event.type === 'complete') outcome.complete = event.payload;
      else if (event.type === 'error') outcome.error = event.payload;
    },
  });
  if (ended) outcome.error = ended;
  return outcome;
}
