// A small accounting MCP server whose tools' descriptions can change while it runs, for the test of
// pinned tool definitions (test/e2e/pinned-tools.test.ts). Over Streamable HTTP in the test's own
// process (`startPinnedBooks`), or over stdio (pinned-books-stdio.ts) reading its descriptions from
// a file it watches. Either way it sends tools/list_changed when a description changes.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** A call the server received. */
export interface PinnedBooksCall {
  tool: string;
  args: Record<string, unknown>;
}

/** The tools' descriptions by name: the part of their definitions a test changes. */
export type Descriptions = Record<string, string>;

/** The first listing's descriptions of a book whose tools are named after `noun` (`invoices`, `bills`). */
export function initialDescriptions(noun: string): Descriptions {
  return { [`list_${noun}`]: `Lists the ${noun} of the books.`, get_contact: 'Reads one contact by name.' };
}

const RECORDS = [
  { Number: 'INV-043', Contact: { Name: 'Acme Corp' }, Total: 12_000, Date: '2026-10-02' },
  { Number: 'INV-044', Contact: { Name: 'Globex' }, Total: 4_500, Date: '2026-10-09' },
];

/** One MCP session of the book: its tools as `descriptions()` says now. */
export function createPinnedServer(
  descriptions: () => Descriptions,
  onCall: (call: PinnedBooksCall) => void,
): Server {
  const server = new Server(
    { name: 'pinned-books', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: Object.entries(descriptions()).map(([name, description]) => ({
      name,
      description,
      inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
      annotations: { readOnlyHint: true },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    onCall({ tool: request.params.name, args: request.params.arguments ?? {} });
    return { content: [{ type: 'text', text: JSON.stringify(RECORDS) }] };
  });
  return server;
}

/** The book over Streamable HTTP in this process. */
export interface PinnedBooks {
  url: string;
  calls: PinnedBooksCall[];
  /** Changes a tool's description and tells every session its tools changed. */
  describe(tool: string, description: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts the book over Streamable HTTP on a free port. */
export async function startPinnedBooks(noun: string): Promise<PinnedBooks> {
  const descriptions = initialDescriptions(noun);
  const calls: PinnedBooksCall[] = [];
  const servers = new Set<Server>();
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(req, res);
    if (typeof sessionId === 'string') return void res.writeHead(404).end();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    const server = createPinnedServer(
      () => descriptions,
      (call) => calls.push(call),
    );
    servers.add(server);
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    calls,
    async describe(tool, description) {
      descriptions[tool] = description;
      await Promise.allSettled([...servers].map((s) => s.sendToolListChanged()));
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
