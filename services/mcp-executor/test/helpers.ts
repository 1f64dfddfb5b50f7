import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestScope } from '@munim/contracts';
import type { Database } from '@munim/db';
import { createLogger } from '@munim/kit';
import type { Kysely } from 'kysely';
import { hashArgs, ToolPolicy } from '../src/app.ts';

export const log = createLogger('test', 'silent');

export { newScope, recordEvents } from '@munim/bus/testing';
export { freePort } from '@munim/testkit';

export interface SdkTool {
  tool: Tool;
  run: (args: Record<string, unknown>) => Promise<CallToolResult> | CallToolResult;
}

/**
 * A small stateful MCP server made with the SDK, for the cases the demo books do not cover:
 * paginated listing, list_changed notifications, error texts with stack traces.
 */
export async function startSdkServer(initial: SdkTool[], opts: { pageSize?: number } = {}) {
  const tools = new Map(initial.map((t) => [t.tool.name, t]));
  const servers = new Set<Server>();
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const calls: string[] = [];
  /** The `_meta` of every tools/call, in arrival order. */
  const metas: unknown[] = [];

  const newServer = () => {
    const server = new Server(
      { name: 'sdk-test', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      const all = [...tools.values()].map((t) => t.tool);
      const size = opts.pageSize ?? all.length;
      const start = Number(request.params?.cursor ?? 0);
      const next = start + size;
      return { tools: all.slice(start, next), ...(next < all.length ? { nextCursor: String(next) } : {}) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      calls.push(request.params.name);
      metas.push(request.params._meta);
      const entry = tools.get(request.params.name);
      if (!entry) return { isError: true, content: [{ type: 'text', text: 'no such tool' }] };
      return entry.run(request.params.arguments ?? {});
    });
    servers.add(server);
    return server;
  };

  const http: HttpServer = createServer(async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(req, res);
    if (typeof sessionId === 'string') {
      res.writeHead(404).end();
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    await newServer().connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    metas,
    /** Adds a tool and notifies every connected session. */
    async addTool(tool: SdkTool) {
      tools.set(tool.tool.name, tool);
      await Promise.allSettled([...servers].map((s) => s.sendToolListChanged()));
    },
    /** Removes a tool without telling anyone (only a periodic refresh notices). */
    removeToolQuietly(name: string) {
      tools.delete(name);
    },
    async close() {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

export const readTool = (name: string, extra: Partial<Tool> = {}): Tool => ({
  name,
  inputSchema: { type: 'object', properties: {} },
  annotations: { readOnlyHint: true },
  ...extra,
});

/** Waits until `check` holds (for setup code, where `expect.poll` is not available). */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The operator's exemption of every write from confirmation (tier 0, destructive ones too): for
 * tests of the write protocol itself (idempotency, timeouts, retries), whose calls come straight
 * over the bus. The executor's need for the user's approval is tested in `approvals.test.ts`.
 */
export const WRITES_EXEMPT = ToolPolicy.parse(
  'tools:\n  - { match: "*", tier: 0, allowUnconfirmedDestructive: true }\n',
);

/**
 * What the agent leaves in `pending_actions` once the user confirmed a call: the executor's proof
 * that exactly this write, for this tenant, may run once. Returns the approval id.
 */
export async function approve(
  db: Kysely<Database>,
  call: { scope: RequestScope; tool: string; args: Record<string, unknown>; callId: string },
  overrides: Partial<{ status: string; approvedAt: Date | null; expiresAt: Date; argsHash: string }> = {},
): Promise<string> {
  const actionId = randomUUID();
  await db
    .insertInto('pending_actions')
    .values({
      action_id: actionId,
      request_id: call.scope.requestId,
      conversation_id: call.scope.conversationId,
      entity_id: call.scope.entityId,
      org_id: call.scope.orgId,
      tool: call.tool,
      args: JSON.stringify(call.args),
      args_hash: overrides.argsHash ?? hashArgs(call.args),
      tier: 1,
      confirm_text: null,
      question: `Confirm: ${call.tool}?`,
      call_id: call.callId,
      tool_call_id: 'tc-1',
      state: JSON.stringify({}),
      status: overrides.status ?? 'executing',
      approved_at: overrides.approvedAt === undefined ? new Date() : overrides.approvedAt,
      expires_at: overrides.expiresAt ?? new Date(Date.now() + 60_000),
    })
    .execute();
  return actionId;
}
