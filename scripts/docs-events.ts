/**
 * What each SSE event means and which service sends it, for docs/events.md. The payload schemas
 * come from @munim/contracts; `npm run docs` fails when an event type has no entry here, or an
 * entry names no event type.
 */
export const EVENT_DESCRIPTIONS: Readonly<Record<string, { by: string; text: string }>> = {
  connected: {
    by: 'gateway or router',
    text: 'Always the first event: the request is open. Carries the ids to reconnect with and to continue the conversation.',
  },
  understanding_started: { by: 'router', text: 'Routing has begun for this question.' },
  route_started: { by: 'router', text: 'How many intents and tools the router is choosing among.' },
  route_classified: {
    by: 'router',
    text: 'The decision: the fast path (an intent, no model), the model path, or a cached answer; the category and, for the model path, its tier.',
  },
  tools_filtered: { by: 'router', text: 'The tool groups and tools offered to the model for this question.' },
  intent_detecting: { by: 'router', text: 'Intent matching has begun.' },
  intent_detected: { by: 'router', text: 'The best matching intent (or none) and its confidence.' },
  entities_extracted: {
    by: 'router',
    text: 'Values read from the question: parties, dates, amounts, numbers.',
  },
  pipeline_planned: { by: 'agent', text: 'The read tools a fast-path intent will run, in order.' },
  pipeline_executing: { by: 'agent', text: 'One step of a fast-path pipeline starts.' },
  enrichments_planned: {
    by: 'agent',
    text: 'Computed additions to the answer (totals, rankings, overdue alerts).',
  },
  enrichments_applying: { by: 'agent', text: 'The enrichments being applied now.' },
  executing_tool: {
    by: 'mcp-executor',
    text: "A tool call starts: a write's at once, a read's after 20 ms unless its result came sooner. `args` only for callers allowed to debug.",
  },
  tool_result: {
    by: 'mcp-executor',
    text: 'What a tool call came to: success, record count, duration, truncation, or the error. The data itself (`result`) only for callers allowed to debug.',
  },
  mode_switch: {
    by: 'router',
    text: 'The answer moved from one category to the other (small talk to the books, or back), and why.',
  },
  write_validation: {
    by: 'validator',
    text: 'A write was checked before it could run: `passed`, or `blocked` with the missing fields and field errors.',
  },
  tool_retry: { by: 'agent', text: 'The model is retrying a blocked write with corrected arguments.' },
  mcq: {
    by: 'agent',
    text: 'A write waits for the user: a confirmation card with its tier, question, options and what will change, in words. Answer it with `mcqResponse` on `POST /v1/query`.',
  },
  confirmation: {
    by: 'agent',
    text: "One step in a confirmation's life (proposed, approved, cancelled, rejected, expired, void, executed, awaiting_approval), with the hash that binds it to the exact call.",
  },
  approval_requested: {
    by: 'agent',
    text: 'The write its maker confirmed (or a program asked for) now waits for other people: which roles may approve, how many must, and until when. Decide it with `POST /v1/approvals/:approvalId`; the request ends with `complete.status` `awaiting_approval`.',
  },
  response_generating: { by: 'agent', text: 'The model is writing the answer.' },
  response_chunk: {
    by: 'agent',
    text: 'The next piece of the answer text; every answer, small talk included, is streamed this way.',
  },
  response_replace: {
    by: 'agent',
    text: 'The answer text streamed so far is replaced by `text` (final checks changed it, or it was not the answer); later chunks append to it.',
  },
  complete: {
    by: 'agent or router',
    text: 'Always the last event of a request that ended normally: the whole answer, the path, the tools and their outcomes, token usage, the trace id and the `status`.',
  },
  error: {
    by: 'gateway, router or agent',
    text: 'The last event of a request that failed: a code and a message fit to show a user.',
  },
};
