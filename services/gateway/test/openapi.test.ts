import { FeedbackRequestSchema, QueryRequestSchema } from '@munim/contracts';
import { type FixtureNats, test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { jsonSchema } from '../src/plugins/openapi.ts';
import { startGateway } from './helpers.ts';

let testBus: FixtureNats;
let gateway: Gateway;
let url: string;

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { securitySchemes: Record<string, unknown> };
}

test.beforeAll(async ({ nats }) => {
  testBus = nats;
  ({ gateway, url } = await startGateway(testBus, {
    GATEWAY_API_KEYS: 'docs-key-0123456789abcdefghij:ent-a:org-a',
  }));
});

afterAll(async () => {
  await gateway?.stop();
});

describe('OpenAPI description', () => {
  test('is served at /docs/json without credentials and lists every HTTP route but /mcp', async () => {
    const response = await fetch(`${url}/docs/json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as OpenApiDoc;
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/healthz',
      '/readyz',
      '/v1/approvals',
      '/v1/approvals/standing',
      '/v1/approvals/standing/{grantId}',
      '/v1/approvals/{approvalId}',
      '/v1/attachments',
      '/v1/attachments/{attachmentId}',
      '/v1/attachments/{attachmentId}/content',
      '/v1/audit',
      '/v1/conversations',
      '/v1/conversations/{conversationId}',
      '/v1/conversations/{conversationId}/export',
      '/v1/feedback',
      '/v1/metrics/health',
      '/v1/query',
      '/v1/requests/{requestId}/events',
    ]);
    expect(Object.keys(doc.paths['/v1/conversations/{conversationId}'] ?? {}).sort()).toEqual([
      'delete',
      'get',
    ]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  test('documents request bodies with the same zod schemas the handlers validate with', async () => {
    const doc = (await (await fetch(`${url}/docs/json`)).json()) as OpenApiDoc;
    const query = doc.paths['/v1/query']?.post as {
      requestBody: { content: Record<string, { schema: Record<string, unknown> }> };
      responses: Record<string, { content?: Record<string, unknown> }>;
    };
    const body = query.requestBody.content['application/json']?.schema;
    expect(body).toEqual(jsonSchema(QueryRequestSchema));
    expect(body).toMatchObject({ required: ['entityId', 'orgId'], additionalProperties: false });
    expect(Object.keys((body as { properties: object }).properties)).toEqual(
      expect.arrayContaining(['query', 'entityId', 'orgId', 'conversationId', 'mcqResponse']),
    );
    expect(Object.keys(query.responses['200']?.content ?? {})).toEqual(['text/event-stream']);
    // 404: an attachmentIds entry that names no attachment of the tenant.
    expect(Object.keys(query.responses)).toEqual(
      expect.arrayContaining(['400', '401', '403', '404', '429', '503']),
    );
    const feedback = doc.paths['/v1/feedback']?.post as {
      requestBody: { content: Record<string, { schema: unknown }> };
    };
    expect(feedback.requestBody.content['application/json']?.schema).toEqual(
      jsonSchema(FeedbackRequestSchema),
    );
  });

  test('keeps the handlers’ own validation errors (route schemas only document)', async () => {
    const response = await fetch(`${url}/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer docs-key-0123456789abcdefghij' },
      body: JSON.stringify({ entityId: 'ent-a', orgId: 'org-a' }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'BAD_REQUEST', field: 'query' } });
  });
});
