import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Bus } from '@munim/bus';
import type { EventPayload } from '@munim/contracts';
import { type FixtureNats, test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { completeEvent, fakeBackend, startGateway } from './helpers.ts';

let testBus: FixtureNats;
let gateway: Gateway;
let url: string;
let bus: Bus;
let backend: Awaited<ReturnType<typeof fakeBackend>>;
let client: Client;

const mcq: EventPayload<'mcq'> = {
  actionId: 'act-9',
  mcq_type: 'confirm_write',
  tier: 2,
  question: 'Record a payment of ₹5000 from Acme Corp?',
  options: [
    { label: 'Yes, record it', value: 'confirm' },
    { label: 'Cancel', value: 'cancel' },
  ],
  pending_tool: 'create_payment',
  pending_args: { Amount: 5000 },
};

test.beforeAll(async ({ nats }) => {
  testBus = nats;
  ({ gateway, url, bus } = await startGateway(testBus));
  backend = await fakeBackend(testBus, (message) => {
    const { query } = message.data;
    if (query.startsWith('record')) {
      return [
        { type: 'mcq', payload: mcq },
        completeEvent(query, 'Please confirm the payment.', 'awaiting_confirmation'),
      ];
    }
    if (query.startsWith('hang')) return [{ type: 'understanding_started', payload: { query } }];
    if (query.startsWith('break'))
      return [{ type: 'error', payload: { code: 'LLM_UNAVAILABLE', message: 'The model is down.' } }];
    return [
      { type: 'response_chunk', payload: { text: 'Revenue was ₹12,00,000.' } },
      completeEvent(query, `Revenue was ₹12,00,000 for ${message.entityId}.`),
    ];
  });
  client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
});

afterAll(async () => {
  await client?.close();
  await backend?.stop();
  await gateway?.stop();
});

function texts(result: Awaited<ReturnType<Client['callTool']>>): string[] {
  return (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '');
}

describe('/mcp', () => {
  test('lists the query_cfo_agent tool with its input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['query_cfo_agent']);
    const schema = tools[0]?.inputSchema as { properties: Record<string, unknown>; required?: string[] };
    expect(Object.keys(schema.properties).sort()).toEqual([
      'confirmation',
      'conversationId',
      'entityId',
      'orgId',
      'query',
    ]);
    expect(schema.required).toEqual(['query']);
  });

  test('answers a query with the final answer and a status block', async () => {
    const result = await client.callTool({
      name: 'query_cfo_agent',
      arguments: {
        query: 'what was revenue last month',
        entityId: 'ent-1',
        orgId: 'org-1',
        conversationId: 'c-7',
      },
    });
    expect(result.isError).toBeFalsy();
    const [answer, block] = texts(result);
    expect(answer).toBe('Revenue was ₹12,00,000 for ent-1.');
    const status = JSON.parse(block ?? '');
    const submitted = backend.received.find((r) => r.message.requestId === status.requestId);
    expect(submitted?.message).toMatchObject({ entityId: 'ent-1', orgId: 'org-1', conversationId: 'c-7' });
    expect(submitted?.message.data.query).toBe('what was revenue last month');
    expect(status).toEqual({
      status: 'answered',
      requestId: submitted?.message.requestId,
      conversationId: 'c-7',
    });
  });

  test('reports a pending confirmation with its mcq', async () => {
    const result = await client.callTool({
      name: 'query_cfo_agent',
      arguments: { query: 'record 5000 from Acme', entityId: 'ent-1', orgId: 'org-1' },
    });
    const [answer, block] = texts(result);
    expect(answer).toBe('Please confirm the payment.');
    expect(JSON.parse(block ?? '')).toMatchObject({ status: 'awaiting_confirmation', mcq });
  });

  test('returns a tool error when the request ends with an error event', async () => {
    const result = await client.callTool({
      name: 'query_cfo_agent',
      arguments: { query: 'break please', entityId: 'ent-1', orgId: 'org-1' },
    });
    expect(result.isError).toBe(true);
    const [message, block] = texts(result);
    expect(message).toBe('The model is down.');
    expect(JSON.parse(block ?? '')).toMatchObject({ status: 'error', error: { code: 'LLM_UNAVAILABLE' } });
  });

  test('requires entityId and orgId when the gateway runs without keys, submitting nothing', async () => {
    const before = await testBus.lastSeq(bus, 'work');
    const result = await client.callTool({ name: 'query_cfo_agent', arguments: { query: 'show invoices' } });
    expect(result.isError).toBe(true);
    expect(texts(result)[0]).toMatch(/entityId and orgId are required/);
    const empty = await client.callTool({
      name: 'query_cfo_agent',
      arguments: { query: '', entityId: 'e', orgId: 'o' },
    });
    expect(empty.isError).toBe(true);
    expect(texts(empty)[0]).toMatch(/query/);
    expect(await testBus.lastSeq(bus, 'work')).toBe(before);
  });

  test('refuses GET on the stateless endpoint', async () => {
    const response = await fetch(`${url}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(405);
  });

  test('ends a call in flight with a tool error when the gateway stops', async () => {
    const { gateway: doomed, url: doomedUrl } = await startGateway(testBus);
    const doomedClient = new Client({ name: 'gateway-test', version: '1.0.0' });
    await doomedClient.connect(new StreamableHTTPClientTransport(new URL(`${doomedUrl}/mcp`)));
    try {
      const before = backend.received.length;
      const call = doomedClient.callTool({
        name: 'query_cfo_agent',
        arguments: { query: 'hang on', entityId: 'ent-1', orgId: 'org-1' },
      });
      await expect.poll(() => backend.received.length).toBe(before + 1);
      await doomed.stop();
      const result = await call;
      expect(result.isError).toBe(true);
      expect(texts(result)[0]).toBe('gateway shutting down');
    } finally {
      await doomedClient.close();
    }
  });

  test('stops following when the MCP client goes away mid-call', async () => {
    const baseline = bus.followCount();
    const leaving = new Client({ name: 'gateway-test', version: '1.0.0' });
    await leaving.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    const before = backend.received.length;
    const call = leaving
      .callTool({
        name: 'query_cfo_agent',
        arguments: { query: 'hang around', entityId: 'ent-1', orgId: 'org-1' },
      })
      .catch((error: unknown) => error);
    await expect.poll(() => backend.received.length).toBe(before + 1);
    expect(bus.followCount()).toBe(baseline + 1);
    await leaving.close();
    await call;
    await expect.poll(() => bus.followCount(), { timeout: 5000 }).toBe(baseline);
  });
});
