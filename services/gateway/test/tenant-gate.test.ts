/**
 * Every route that acts for a tenant goes through the one tenant gate. The routes are taken from
 * the gateway's own route table (fastify's printRoutes), so a route added later is walked too:
 * each must give a credential that names no tenant, and a key that names another tenant, the
 * gate's refusal, word for word, and so must every tool of the MCP server. Real NATS and PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { test } from '@munim/testkit';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect } from 'vitest';
import { type GatewayTestbed, gatewayTestbed } from './helpers.ts';

const KEY_A = 'tenant-gate-key-a-5c8e1f3a9b-0123';
const ADMIN_KEY = 'tenant-gate-admin-2d7b4e6c1a-0123';
const OTHER = { entityId: 'ent-b', orgId: 'org-b' };
/** The one route under /v1 that is not behind a credential: a signed link is its own. */
const SIGNED_LINK = '/v1/attachments/:attachmentId/content';

let bed: GatewayTestbed;
let app: FastifyInstance;
let url: string;

interface Route {
  method: string;
  path: string;
}

/**
 * The routes of fastify's printRoutes tree (`commonPrefix: false`): each line is `├── <segment>
 * (<methods>)`, nested four columns per level under the line of its parent's path.
 */
function routeTable(tree: string): Route[] {
  const parents: string[] = [];
  const routes: Route[] = [];
  for (const line of tree.split('\n')) {
    const match = /^(.*?)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    const path = (parents[depth - 1] ?? '') + (match[2] ?? '');
    parents[depth] = path;
    parents.length = depth + 1;
    for (const method of (match[3] ?? '').split(', ').filter(Boolean)) routes.push({ method, path });
  }
  return routes;
}

/** The routes that act for a tenant: under /v1 and /mcp, but the admin ones and the signed link. */
function tenantRoutes(): Route[] {
  return routeTable(app.printRoutes({ commonPrefix: false })).filter(
    ({ method, path }) =>
      method !== 'HEAD' &&
      (path.startsWith('/v1/') || path === '/mcp') &&
      !path.startsWith('/v1/admin/') &&
      path !== SIGNED_LINK,
  );
}

const concrete = (path: string) => path.replace(/:\w+/g, () => randomUUID());
const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });

/** A multipart form naming `tenant`, with a small file every upload route takes. */
function form(tenant: typeof OTHER): FormData {
  const body = new FormData();
  body.set('entityId', tenant.entityId);
  body.set('orgId', tenant.orgId);
  body.set('file', new Blob([new Uint8Array(64)], { type: 'audio/wav' }), 'note.wav');
  return body;
}

async function answer(response: Response) {
  return { status: response.status, body: (await response.json()) as { error: { message: string } } };
}

test.beforeAll(async ({ nats, db: fileDb }) => {
  bed = await gatewayTestbed({ nats, db: fileDb }, () => 'answered');
  const started = await bed.startGateway({
    GATEWAY_API_KEYS: `${KEY_A}:ent-a:org-a`,
    GATEWAY_ADMIN_KEYS: ADMIN_KEY,
  });
  ({ url } = started);
  app = started.gateway.app;
});

afterAll(async () => {
  await bed?.close();
});

describe('the tenant gate', () => {
  test('finds the tenant routes in the route table', () => {
    const paths = tenantRoutes().map(({ method, path }) => `${method} ${path}`);
    expect(paths).toEqual(expect.arrayContaining(['POST /v1/query', 'POST /mcp', 'GET /v1/conversations']));
    expect(paths.length).toBeGreaterThan(12);
  });

  test('refuses a credential that names no tenant on every tenant route, with the same answer', async () => {
    const submitted = bed.backend.received.length;
    const answers = [];
    for (const { method, path } of tenantRoutes()) {
      const response = await fetch(`${url}${concrete(path)}`, {
        method,
        headers: {
          ...bearer(ADMIN_KEY),
          ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
        },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      answers.push({ route: `${method} ${path}`, ...(await answer(response)) });
    }
    const [first] = answers;
    expect(first?.status).toBe(403);
    expect(first?.body.error.message).toMatch(/admin credential administers .* does not act for a tenant/);
    for (const { route, status, body } of answers) {
      expect({ route, status, body }).toEqual({ route, status: first?.status, body: first?.body });
    }
    expect(bed.backend.received.length).toBe(submitted);
  });

  test('refuses a key that names another tenant on every tenant route and every MCP tool, with the same answer', async () => {
    const submitted = bed.backend.received.length;
    const answers = [];
    for (const { method, path } of tenantRoutes()) {
      const route = `${method} ${path}`;
      const scope = new URLSearchParams(OTHER).toString();
      const inQuery = await fetch(`${url}${concrete(path)}?${scope}`, { method, headers: bearer(KEY_A) });
      answers.push({ route: `${route} (query string)`, ...(await answer(inQuery)) });
      if (method !== 'POST') continue;
      const asJson = await answer(
        await fetch(`${url}${concrete(path)}`, {
          method,
          headers: { ...bearer(KEY_A), 'content-type': 'application/json' },
          body: JSON.stringify(OTHER),
        }),
      );
      if (asJson.status === 400 && /multipart\/form-data/.test(asJson.body.error.message)) {
        const asForm = await fetch(`${url}${concrete(path)}`, {
          method,
          headers: bearer(KEY_A),
          body: form(OTHER),
        });
        answers.push({ route: `${route} (form fields)`, ...(await answer(asForm)) });
      } else {
        answers.push({ route: `${route} (JSON body)`, ...asJson });
      }
    }
    const [first] = answers;
    expect(first?.status).toBe(403);
    expect(first?.body).toMatchObject({ error: { code: 'FORBIDDEN', field: 'entityId' } });
    for (const { route, status, body } of answers) {
      expect({ route, status, body }).toEqual({ route, status: first?.status, body: first?.body });
    }

    const client = new Client({ name: 'tenant-gate-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: bearer(KEY_A) } }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
      for (const tool of tools) {
        const required = tool.inputSchema.required ?? [];
        const args = { ...Object.fromEntries(required.map((name) => [name, 'show bills'])), ...OTHER };
        const result = await client.callTool({ name: tool.name, arguments: args });
        expect({ tool: tool.name, isError: result.isError }).toEqual({ tool: tool.name, isError: true });
        expect((result.content as { text: string }[])[0]?.text, tool.name).toBe(first?.body.error.message);
      }
    } finally {
      await client.close();
    }
    expect(bed.backend.received.length).toBe(submitted);
  });
});
