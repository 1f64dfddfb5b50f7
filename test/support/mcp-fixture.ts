// A test's own MCP server, built from a list of tools and a function that answers calls, served
// over Streamable HTTP in the test's process or over stdio as a child the executor spawns; every
// call it receives is recorded, so a test can assert what was never sent.
//
// The SDK is not a dependency of the repository root: it resolves through the demo books package
// (a root devDependency), under vitest and when node runs a fixture file as a stdio server.
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

export type Args = Record<string, unknown>;

/** One tools/call as the server received it. */
export interface ReceivedCall {
  tool: string;
  args: Args;
}

/** What a fixture server lists and how it answers. */
export interface FixtureSpec {
  name: string;
  tools: () => Tool[];
  call: (tool: string, args: Args) => CallToolResult;
}

/** A low-level MCP server (no input validation of its own) telling `onCall` of every call. */
export function fixtureServer(spec: FixtureSpec, onCall: (call: ReceivedCall) => void): Server {
  const server = new Server(
    { name: spec.name, version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: spec.tools() }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const args = request.params.arguments ?? {};
    onCall({ tool: request.params.name, args });
    return spec.call(request.params.name, args);
  });
  return server;
}

/** A fixture served over Streamable HTTP. */
export interface HttpFixture {
  /** The MCP endpoint. */
  url: string;
  /** Every tools/call received, in arrival order. */
  calls: ReceivedCall[];
  /** Tells every session its tools changed (after `spec.tools()` lists something else). */
  toolsChanged(): Promise<void>;
  close(): Promise<void>;
}

/** Serves a fixture over Streamable HTTP on 127.0.0.1 and a random port, one server per session. */
export async function serveHttp(spec: FixtureSpec): Promise<HttpFixture> {
  const calls: ReceivedCall[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const servers = new Set<Server>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const header = req.headers['mcp-session-id'];
    const existing = typeof header === 'string' ? sessions.get(header) : undefined;
    if (existing) return existing.handleRequest(req, res);
    if (typeof header === 'string') {
      res.writeHead(404).end();
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = fixtureServer(spec, (call) => calls.push(call));
    servers.add(server);
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    async toolsChanged() {
      await Promise.allSettled([...servers].map((server) => server.sendToolListChanged()));
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

/** Serves a fixture on this process's stdio, appending every call to `FIXTURE_CALL_LOG` (a JSON line each). */
export async function serveStdio(spec: FixtureSpec): Promise<Server> {
  const log = process.env.FIXTURE_CALL_LOG;
  const server = fixtureServer(spec, (call) => {
    if (log) appendFileSync(log, `${JSON.stringify(call)}\n`);
  });
  await server.connect(new StdioServerTransport());
  return server;
}

/** The calls a stdio fixture has logged so far. */
export function loggedCalls(path: string): ReceivedCall[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ReceivedCall);
}

/** A tool result holding `value` as JSON text. */
export const jsonResult = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
});

/** One of a test's own MCP servers: a spec served here over Streamable HTTP, or a fixture file the executor spawns over stdio. */
export type FixtureServer =
  | { name: string; http: FixtureSpec }
  | { name: string; stdio: URL; args?: string[] };

/** Where each server is and what it has received, for the system's `MCP_SERVERS`. */
export interface FixtureServers {
  /** The `MCP_SERVERS` entries. */
  entries: Record<string, unknown>[];
  /** What the server of that name has received so far. */
  received(name: string): ReceivedCall[];
  close(): Promise<void>;
}

/** Starts the HTTP servers and names the stdio ones (their calls logged each to a file of `dir`). */
export async function serveFixtures(servers: readonly FixtureServer[], dir: string): Promise<FixtureServers> {
  const http = new Map<string, HttpFixture>();
  const entries: Record<string, unknown>[] = [];
  const logOf = (name: string) => join(dir, `${name}.jsonl`);
  for (const server of servers) {
    if ('http' in server) {
      const fixture = await serveHttp(server.http);
      http.set(server.name, fixture);
      entries.push({ name: server.name, url: fixture.url });
    } else
      entries.push({
        name: server.name,
        command: process.execPath,
        args: [fileURLToPath(server.stdio), ...(server.args ?? [])],
        env: { FIXTURE_CALL_LOG: logOf(server.name) },
      });
  }
  return {
    entries,
    received: (name) => http.get(name)?.calls ?? loggedCalls(logOf(name)),
    close: async () => {
      await Promise.all([...http.values()].map((fixture) => fixture.close()));
    },
  };
}
