import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

interface CollectedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  events: string[];
  attributes: Record<string, unknown>;
}

/** A minimal OTLP/HTTP (JSON) receiver: what an OpenTelemetry collector would be sent. */
function startReceiver(): Promise<{
  url: string;
  spans: CollectedSpan[];
  metrics: string[];
  server: Server;
}> {
  const spans: CollectedSpan[] = [];
  const metrics: string[] = [];
  const value = (v: Record<string, unknown>) => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const json = JSON.parse(body.toString() || '{}');
      if (req.url === '/v1/traces') {
        for (const rs of json.resourceSpans ?? []) {
          const service = value(
            (rs.resource?.attributes ?? []).find((a: { key: string }) => a.key === 'service.name')?.value ??
              {},
          );
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                service: String(service),
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                events: (s.events ?? []).map((e: { name: string }) => e.name),
                attributes: Object.fromEntries(
                  (s.attributes ?? []).map((a: { key: string; value: Record<string, unknown> }) => [
                    a.key,
                    value(a.value),
                  ]),
                ),
              });
            }
          }
        }
      }
      if (req.url === '/v1/metrics') {
        for (const rm of json.resourceMetrics ?? []) {
          for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics ?? []) metrics.push(m.name);
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, metrics, server }),
    ),
  );
}

let sys: TestSystem;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const tenant = { entityId: 'ent-t', orgId: 'org-t' };
const SERVICES = ['gateway', 'router', 'agent', 'validator', 'mcp-executor', 'logger'].map(
  (s) => `munim-${s}`,
);

test.beforeAll(async ({ database, nats }) => {
  receiver = await startReceiver();
  sys = await startSystem({
    database,
    nats,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      // This receiver reads OTLP/JSON; production uses the default, protobuf.
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRIC_EXPORT_INTERVAL: '500',
    },
  });
});

afterAll(async () => {
  await sys?.stop();
  receiver?.server.close();
});

describe('one query is one trace (OpenTelemetry)', () => {
  test('gets spans from all six services under the trace id that complete reports', async () => {
    sys.llm?.script({ match: 'show all invoices', repeat: true, turns: [{ content: 'Your invoices.' }] });
    const { events } = await ask(sys.gatewayUrl, { query: 'show all invoices', ...tenant });
    const traceId = String(events.at(-1)?.data.traceId);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    // Spans are exported in batches as they end; wait until the whole tree has arrived.
    const collected = () => {
      const spans = receiver.spans.filter((s) => s.traceId === traceId);
      const ids = new Set(spans.map((s) => s.spanId));
      const orphans = spans.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId)).map((s) => s.name);
      return { services: new Set(spans.map((s) => s.service)), orphans };
    };
    await expect.poll(collected, { timeout: 15_000 }).toEqual({ services: new Set(SERVICES), orphans: [] });

    const trace = receiver.spans.filter((s) => s.traceId === traceId);
    const roots = trace.filter((s) => !s.parentSpanId);
    expect(roots.map((s) => s.name)).toEqual(['munim.query']);
    expect(roots[0]?.attributes['munim.request_id']).toBe(events[0]?.data.requestId);
    expect(
      trace.some((s) => s.service === 'munim-mcp-executor' && s.name === 'tools/call get_all_invoices'),
    ).toBe(true);
    const chat = trace.find((s) => s.name.startsWith('chat '));
    expect(chat?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': expect.anything(),
    });
    expect(trace.find((s) => s.service === 'munim-logger')?.attributes['messaging.system']).toBe('nats');
    await expect
      .poll(() => receiver.metrics, { timeout: 15_000 })
      .toEqual(
        expect.arrayContaining([
          'munim.queries',
          'munim.routes',
          'munim.validations',
          'munim.tool_calls',
          'munim.tool_call.duration',
          'gen_ai.client.token.usage',
          'gen_ai.client.operation.duration',
        ]),
      );
  });

  test('shows a blocked write as a span event', async () => {
    const query = `record a payment please ${randomUUID().slice(0, 6)}`;
    sys.llm?.script({
      match: query,
      turns: [
        { toolCalls: [{ name: 'create_payment', arguments: { Amount: 10 } }] },
        { content: 'I need more details.' },
      ],
    });
    const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
    const traceId = String(events.at(-1)?.data.traceId);
    await expect
      .poll(
        () =>
          receiver.spans.find((s) => s.traceId === traceId && s.events.includes('write_preflight_block'))
            ?.service,
        { timeout: 15_000 },
      )
      .toBe('munim-validator');
  });
});
