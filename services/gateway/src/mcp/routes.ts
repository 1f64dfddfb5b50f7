import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { actorOf } from '../actor.ts';
import type { GatewayContext } from '../context.ts';
import { callerOf } from '../plugins/limits.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import { credentialOf } from '../tenant-gate.ts';
import { createServer, type McpDeps, queryCalls } from './server.ts';

function methodNotAllowed(reply: FastifyReply) {
  return reply
    .code(405)
    .header('allow', 'POST')
    .send({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this MCP server is stateless.' },
      id: null,
    });
}

/**
 * Mounts the agent as an MCP server (Streamable HTTP, stateless: one server and transport per
 * POST) at `/mcp`, with the one tool `query_cfo_agent`. JSON-RPC over Streamable HTTP is described
 * by MCP itself (tools/list), not by OpenAPI.
 */
export const mcpRoutes: FastifyPluginAsync<GatewayContext> = async (app, ctx) => {
  const deps: McpDeps = {
    bus: ctx.bus,
    log: ctx.log,
    openStreams: ctx.openStreams,
    streamTimeoutMs: ctx.config.STREAM_TIMEOUT_MS,
    idleTimeoutMs: ctx.config.STREAM_IDLE_TIMEOUT_MS,
  };
  app.post('/mcp', { schema: HIDDEN }, async (request, reply) => {
    const credential = credentialOf(request);
    // Refused over HTTP (429 with Retry-After), as /v1/query is, before the MCP server sees the call.
    for (const call of queryCalls(request.body, credential)) {
      const refused = await ctx.quotas.admit(call.tenant);
      if (!refused) continue;
      return reply
        .code(refused.kind === 'unreachable' ? 503 : 429)
        .header('retry-after', String(refused.retryAfterSeconds))
        .send({ jsonrpc: '2.0', error: { code: -32000, message: refused.message }, id: call.id });
    }
    const server = createServer(
      deps,
      credential,
      () => ctx.slots.acquire(callerOf(request)),
      actorOf(request, 'mcp'),
    );
    const transport = new StreamableHTTPServerTransport({}); // no session ids: stateless, one request per transport
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      ctx.log.error({ err: error }, 'mcp request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }),
        );
      }
    }
  });
  app.get('/mcp', { schema: HIDDEN }, async (_request, reply) => methodNotAllowed(reply));
  app.delete('/mcp', { schema: HIDDEN }, async (_request, reply) => methodNotAllowed(reply));
};
