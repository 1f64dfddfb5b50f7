import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Bus } from '@munim/bus';
import {
  type Actor,
  type CompletionStatus,
  type ErrorInfo,
  type EventPayload,
  IdSchema,
  isRecord,
  MAX_QUERY_LENGTH,
  type McqResponse,
  McqResponseSchema,
} from '@munim/contracts';
import { type OpenStreams, relay, SubmitError, submitQuery } from '@munim/kit';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Tenant } from '../auth.ts';
import type { SlotRefusal } from '../limits.ts';
import { decideTenant } from '../tenant-gate.ts';

/** Name of the one tool the gateway's MCP server offers. */
export const QUERY_TOOL = 'query_cfo_agent';

/** What the tool needs to run a query. */
export interface McpDeps {
  bus: Bus;
  log: Logger;
  openStreams: OpenStreams;
  streamTimeoutMs: number;
  idleTimeoutMs?: number | undefined;
}

const QueryToolInput = {
  query: z
    .string()
    .trim()
    .min(1)
    .max(MAX_QUERY_LENGTH)
    .describe(
      'The question or instruction, in plain language (with a confirmation: any short note, e.g. "confirm").',
    ),
  confirmation: McqResponseSchema.optional().describe(
    'The answer to a pending confirmation (the mcq of an "awaiting_confirmation" result): its actionId, ' +
      '"confirm" or "cancel", and for typed confirmations the word it asks for. A change is confirmed only ' +
      'this way, never by text such as "yes". Needs the conversationId of that result.',
  ),
  conversationId: IdSchema.optional().describe('Continue this conversation; omit to start a new one.'),
  entityId: IdSchema.optional().describe(
    'The business entity (required when the server runs without API keys).',
  ),
  orgId: IdSchema.optional().describe('The organisation (required when the server runs without API keys).'),
};
type QueryToolArgs = {
  query: string;
  confirmation?: McqResponse | undefined;
  conversationId?: string | undefined;
  entityId?: string | undefined;
  orgId?: string | undefined;
};

/** What the tool reports besides the answer text. */
interface QueryOutcome {
  status: CompletionStatus | 'error';
  requestId: string;
  conversationId: string;
  mcq?: EventPayload<'mcq'>;
  error?: ErrorInfo;
}

function toolError(message: string, outcome?: QueryOutcome): CallToolResult {
  return {
    isError: true,
    content: [
      { type: 'text', text: message },
      ...(outcome ? [{ type: 'text' as const, text: JSON.stringify(outcome, null, 2) }] : []),
    ],
  };
}

/** Without credentials the tool's arguments name the tenant; this says so when they do not. */
const NO_TENANT =
  'entityId and orgId are required: this server runs without API keys, so it cannot tell whose books to use.';

/** Runs one query to its end, the same way `POST /v1/query` does, and reports the final answer. */
async function runQuery(
  deps: McpDeps,
  args: QueryToolArgs,
  credential: Tenant | null,
  clientSignal: AbortSignal,
  acquire: () => (() => void) | SlotRefusal,
  actor: Actor,
): Promise<CallToolResult> {
  const decision = decideTenant(credential, args, NO_TENANT);
  if (decision.refusal) return toolError(decision.refusal.message);
  if (args.confirmation && args.conversationId === undefined) {
    return toolError(
      'conversationId is required with a confirmation: give the conversationId of the result that asked for it.',
    );
  }
  const release = acquire();
  if (typeof release !== 'function') {
    return toolError(`Too many queries are running for you; retry in ${release.retryAfterSeconds} s.`);
  }
  try {
    return await runResolvedQuery(deps, args, decision.tenant, clientSignal, actor);
  } finally {
    release();
  }
}

async function runResolvedQuery(
  deps: McpDeps,
  args: QueryToolArgs,
  resolved: Tenant,
  clientSignal: AbortSignal,
  actor: Actor,
): Promise<CallToolResult> {
  let submission: Awaited<ReturnType<typeof submitQuery>>;
  try {
    submission = await submitQuery(deps.bus, {
      query: args.query,
      ...(args.confirmation ? { mcqResponse: args.confirmation } : {}),
      conversationId: args.conversationId,
      channel: 'mcp',
      ...resolved,
      actor,
    });
  } catch (error) {
    if (!(error instanceof SubmitError)) throw error;
    deps.log.error({ err: error }, 'mcp query could not be submitted');
    return toolError('The CFO agent is unavailable right now; try again shortly.');
  }
  const { scope, following } = submission;
  let mcq: EventPayload<'mcq'> | undefined;
  let complete: EventPayload<'complete'> | undefined;
  let failure: ErrorInfo | undefined;
  const ended = await deps.openStreams.track((shutdown) =>
    relay({
      following,
      signal: AbortSignal.any([shutdown, clientSignal]),
      timeoutMs: deps.streamTimeoutMs,
      idleTimeoutMs: deps.idleTimeoutMs,
      onEvent: ({ message }) => {
        const event = message.data;
        if (event.type === 'mcq') mcq = event.payload;
        else if (event.type === 'complete') complete = event.payload;
        else if (event.type === 'error') failure = event.payload;
      },
    }),
  );
  const base = { requestId: scope.requestId, conversationId: scope.conversationId };
  const error = ended ?? failure;
  if (error || !complete) {
    const info = error ?? { code: 'INTERNAL' as const, message: 'The request ended without an answer.' };
    return toolError(info.message, { status: 'error', ...base, error: info });
  }
  const outcome: QueryOutcome = { status: complete.status, ...base, ...(mcq ? { mcq } : {}) };
  const result: CallToolResult = {
    content: [
      { type: 'text', text: complete.response },
      { type: 'text', text: JSON.stringify(outcome, null, 2) },
    ],
    structuredContent: { response: complete.response, ...outcome },
  };
  return result;
}

/**
 * An MCP server with the one tool {@link QUERY_TOOL}, for one request whose credential acts for
 * `credential` (null without auth); each call's tenant is the tenant gate's decision.
 */
export function createServer(
  deps: McpDeps,
  credential: Tenant | null,
  acquire: () => (() => void) | SlotRefusal,
  /** Who calls: the credential's person, acting through `/mcp`. */
  actor: Actor,
): McpServer {
  const server = new McpServer({ name: 'munim', version: '0.1.0' });
  server.registerTool(
    QUERY_TOOL,
    {
      title: 'Ask the CFO agent',
      description:
        'Ask munim, the AI CFO agent, about the books (invoices, bills, payments, reports) or tell it to record ' +
        'something. Returns the final answer, then a JSON block with status, requestId and conversationId; a ' +
        'risky write ends with status "awaiting_confirmation" and the pending confirmation (mcq), or with ' +
        '"awaiting_approval" when it waits for a person to approve it (a caller without the automation role ' +
        'never confirms its own writes).',
      inputSchema: QueryToolInput,
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    (args, extra) => runQuery(deps, args, credential, extra.signal, acquire, actor),
  );
  return server;
}

/**
 * The calls of {@link QUERY_TOOL} in a JSON-RPC message (one or a batch), each with the tenant it
 * would run for; calls whose tenant is not a valid one are left to the tool to refuse.
 */
export function queryCalls(body: unknown, credential: Tenant | null): { id: unknown; tenant: Tenant }[] {
  return (Array.isArray(body) ? body : [body]).flatMap((message) => {
    if (!isRecord(message) || message.method !== 'tools/call' || !isRecord(message.params)) return [];
    if (message.params.name !== QUERY_TOOL) return [];
    const args = isRecord(message.params.arguments) ? message.params.arguments : {};
    const id = (value: unknown) => (IdSchema.safeParse(value).success ? (value as string) : undefined);
    const decision = decideTenant(credential, { entityId: id(args.entityId), orgId: id(args.orgId) });
    return decision.tenant ? [{ id: message.id ?? null, tenant: decision.tenant }] : [];
  });
}
