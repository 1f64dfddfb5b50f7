// The MCP server (low-level `Server`: no input validation, like the real accounting system) and its
// Streamable HTTP front: stateful sessions on /mcp, bearer auth, call recording and fault injection.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  isInitializeRequest,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Books } from './data.ts';
import { ApiError, type Args, TOOLS_BY_NAME, toolList } from './tools.ts';

export interface RecordedCall {
  tool: string;
  args: Record<string, unknown>;
  entityId?: string;
  orgId?: string;
  /** ISO timestamp of arrival. */
  at: string;
}

export interface Faults {
  /** Delay before a tool runs, per tool name; the key '*' applies to every tool. */
  delayMs?: Record<string, number>;
  /** Run this tool (the write commits), then destroy the HTTP connection instead of answering. */
  dropResponseFor?: string;
  /** How many calls to drop before the fault clears itself (default: every call). */
  dropTimes?: number;
}

/** State shared by every session and listener of one demo books instance. */
export interface Runtime {
  books: Books;
  calls: RecordedCall[];
  faults: Faults;
  /** Connections to destroy once the tool call with this session/request id has run. */
  drops: Map<string, () => void>;
}

const dropKey = (sessionId: string | undefined, requestId: unknown): string =>
  `${sessionId ?? ''}\u0000${String(requestId)}`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function runTool(books: Books, name: string, args: Args): CallToolResult {
  const tool = TOOLS_BY_NAME.get(name);
  if (!tool) return { isError: true, content: [{ type: 'text', text: `Error: unknown tool "${name}"` }] };
  try {
    const result = tool.run(books, args);
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result as Args };
  } catch (err) {
    const status = err instanceof ApiError ? err.status : 500;
    const message = err instanceof Error ? err.message : String(err);
    return {
      isError: true,
      content: [{ type: 'text', text: `Error: Request failed with status code ${status}: ${message}` }],
    };
  }
}

export function createMcpServer(rt: Runtime): Server {
  const server = new Server(
    { name: 'demo-books', title: 'Demo Books (Sharma Traders Pvt Ltd)', version: '0.1.0' },
    {
      capabilities: { tools: {} },
      instructions:
        'Accounting system of Sharma Traders Pvt Ltd (INR, GST). Ids are UUIDs; amounts are rupees.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    const query = extra.requestInfo?.url?.searchParams;
    const entityId = query?.get('entityid') ?? query?.get('entityId') ?? undefined;
    const orgId = query?.get('orgid') ?? query?.get('orgId') ?? undefined;
    rt.calls.push({
      tool: name,
      args,
      ...(entityId && { entityId }),
      ...(orgId && { orgId }),
      at: new Date().toISOString(),
    });
    const delay = rt.faults.delayMs?.[name] ?? rt.faults.delayMs?.['*'];
    if (delay) await sleep(delay);
    const result = runTool(rt.books, name, args);
    const key = dropKey(extra.sessionId, extra.requestId);
    const drop = rt.drops.get(key);
    if (drop) {
      rt.drops.delete(key);
      drop();
    }
    return result;
  });
  return server;
}

// ── HTTP ────────────────────────────────────────────────────────────────────

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

const rpcError = (res: ServerResponse, status: number, code: number, message: string) =>
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Swallows everything the transport writes, so nothing (not even headers) reaches the client. */
function muzzle(res: ServerResponse): void {
  Object.assign(res, { writeHead: () => res, flushHeaders: () => {}, write: () => true, end: () => res });
}

export interface HttpOptions {
  authToken?: string;
}

export interface Listening {
  /** The MCP endpoint, e.g. http://127.0.0.1:3100/mcp */
  url: string;
  close(): Promise<void>;
}

export async function listen(
  rt: Runtime,
  opts: HttpOptions,
  port = 0,
  host = '127.0.0.1',
): Promise<Listening> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();

  /** Marks tools/call requests in this body whose response is to be lost. */
  const planDrops = (body: unknown, sessionId: string, req: IncomingMessage, res: ServerResponse): void => {
    const tool = rt.faults.dropResponseFor;
    if (!tool) return;
    for (const m of Array.isArray(body) ? body : [body]) {
      if (!isRecord(m) || m.method !== 'tools/call' || !isRecord(m.params) || m.params.name !== tool)
        continue;
      muzzle(res);
      rt.drops.set(dropKey(sessionId, m.id), () => {
        if (rt.faults.dropTimes !== undefined && --rt.faults.dropTimes <= 0) {
          delete rt.faults.dropResponseFor;
          delete rt.faults.dropTimes;
        }
        req.socket.destroy();
      });
    }
  };

  const handleMcp = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (opts.authToken && req.headers.authorization !== `Bearer ${opts.authToken}`) {
      sendJson(
        res,
        401,
        { error: 'unauthorized', message: 'Missing or invalid bearer token' },
        { 'www-authenticate': 'Bearer' },
      );
      return;
    }
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    const session = sessionId ? sessions.get(sessionId) : undefined;
    if (sessionId && !session) return rpcError(res, 404, -32001, 'Session not found');

    if (req.method === 'POST') {
      let body: unknown;
      try {
        body = await readJson(req);
      } catch {
        return rpcError(res, 400, -32700, 'Parse error: Invalid JSON');
      }
      if (session && sessionId) {
        planDrops(body, sessionId, req, res);
        return session.transport.handleRequest(req, res, body);
      }
      if (!isInitializeRequest(body))
        return rpcError(res, 400, -32000, 'Bad Request: No valid session ID provided');
      const server = createMcpServer(rt);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, server });
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (!session) return rpcError(res, 400, -32000, 'Bad Request: No valid session ID provided');
      return session.transport.handleRequest(req, res);
    }
    sendJson(res, 405, { error: 'method not allowed' }, { allow: 'GET, POST, DELETE' });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const route = `${req.method} ${path}`;
    if (path === '/mcp') return handleMcp(req, res);
    if (route === 'GET /healthz') return sendJson(res, 200, { status: 'ok' });
    if (route === 'GET /_calls') return sendJson(res, 200, rt.calls);
    if (route === 'DELETE /_calls') {
      rt.calls.length = 0;
      return sendJson(res, 200, { ok: true });
    }
    if (route === 'GET /_faults') return sendJson(res, 200, rt.faults);
    if (route === 'POST /_faults' || route === 'DELETE /_faults') {
      let body: unknown;
      try {
        body = route === 'POST /_faults' ? await readJson(req) : {};
      } catch {
        return sendJson(res, 400, { error: 'invalid JSON' });
      }
      rt.faults = isRecord(body) ? (body as Faults) : {};
      return sendJson(res, 200, rt.faults);
    }
    sendJson(res, 404, { error: 'not found' });
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: err instanceof Error ? err.message : String(err) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const bound = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  const hostPart = bound.includes(':') ? `[${bound}]` : bound;
  return {
    url: `http://${hostPart}:${address.port}/mcp`,
    close: async () => {
      await Promise.allSettled(
        [...sessions.values()].map(async (s) => {
          await s.transport.close();
          await s.server.close();
        }),
      );
      sessions.clear();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
