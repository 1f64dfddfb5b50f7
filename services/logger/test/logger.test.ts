import { randomUUID } from 'node:crypto';
import { type Bus, newTraceparent, traceIdOf } from '@munim/bus';
import type { AgentEvent, Message, RequestScope, ServiceName } from '@munim/contracts';
import type { Database } from '@munim/db';
import { createLogger, serveHealth } from '@munim/kit';
import { type TestNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { buildLogger, LOGGER_DURABLE, type LoggerApp } from '../src/app.ts';
import { storeBatch, storeEvent } from '../src/store.ts';

const log = createLogger('logger', 'silent');
const apps: LoggerApp[] = [];
const buses = new Map<ServiceName, Bus>();
let nats: TestNats;
let db: Kysely<Database>;
let loggerBus: Bus;

// Two logger instances and 200 events in flight at once.
test.override('dbPoolSize', { scope: 'file' }, 20);

async function startLogger(): Promise<{ app: LoggerApp; bus: Bus }> {
  const bus = await nats.bus('logger');
  const app = await buildLogger({ bus, log, db, config: { concurrency: 8 } });
  await app.start();
  apps.push(app);
  return { app, bus };
}

function as(service: ServiceName): Bus {
  const bus = buses.get(service);
  if (!bus) throw new Error(`no bus for ${service}`);
  return bus;
}

function newScope(): RequestScope {
  return { requestId: randomUUID(), conversationId: 'conv-1', entityId: 'ent-1', orgId: 'org-1' };
}

/** Resolves once the durable consumer has delivered and had acked every message in the stream. */
async function caughtUp(): Promise<void> {
  await expect
    .poll(
      async () => {
        const info = await loggerBus.jsm.consumers.info(loggerBus.streamName('events'), LOGGER_DURABLE);
        return info.num_pending + info.num_ack_pending;
      },
      { timeout: 15_000, interval: 50 },
    )
    .toBe(0);
}

async function eventsOf(requestId: string) {
  return db
    .selectFrom('request_events')
    .selectAll()
    .where('request_id', '=', requestId)
    .orderBy('seq')
    .execute();
}

async function routingLogOf(requestId: string) {
  return db
    .selectFrom('query_routing_logs')
    .selectAll()
    .where('request_id', '=', requestId)
    .executeTakeFirst();
}

test.beforeAll(async ({ nats: fileNats, db: fileDb }) => {
  nats = fileNats;
  db = fileDb;
  for (const service of ['gateway', 'router', 'agent', 'validator', 'mcp-executor'] as const) {
    buses.set(service, await nats.bus(service));
  }
  ({ bus: loggerBus } = await startLogger());
  serveHealth(loggerBus, apps[0]!.health);
});

afterAll(async () => {
  for (const app of apps) await app.stop();
});

/** A write flow: blocked, self-corrected, executed. */
function writeFlow(scope: RequestScope): [ServiceName, AgentEvent][] {
  return [
    [
      'gateway',
      { type: 'connected', payload: { requestId: scope.requestId, conversationId: scope.conversationId } },
    ],
    ['router', { type: 'understanding_started', payload: { query: 'Record ₹5000 payment from Acme Corp' } }],
    [
      'router',
      {
        type: 'route_classified',
        payload: { path: 'llm', category: 'unified', confidence: 0.4, tier: 'cheap' },
      },
    ],
    [
      'validator',
      {
        type: 'write_validation',
        payload: {
          tool: 'create_payment',
          status: 'blocked',
          missing_fields: ['Amount', 'Applications'],
          fields_validated: ['AccountId'],
          message: 'Missing Amount and Applications[]. Fetch invoices via get_all_invoices.',
          duration_ms: 2,
        },
      },
    ],
    [
      'mcp-executor',
      {
        type: 'tool_result',
        payload: {
          tool: 'get_all_invoices',
          success: true,
          result: [{ InvoiceId: 'INV-042' }],
          duration_ms: 40,
        },
      },
    ],
    [
      'agent',
      {
        type: 'tool_retry',
        payload: {
          tool: 'create_payment',
          attempt: 2,
          reason: 'Previous attempt blocked by pre-flight validation',
        },
      },
    ],
    [
      'validator',
      {
        type: 'write_validation',
        payload: {
          tool: 'create_payment',
          status: 'passed',
          fields_validated: ['AccountId', 'Amount', 'Applications'],
          duration_ms: 1,
        },
      },
    ],
    [
      'mcp-executor',
      {
        type: 'tool_result',
        payload: { tool: 'create_payment', success: true, result: { PaymentId: 'PAY-001' } },
      },
    ],
    [
      'agent',
      {
        type: 'complete',
        payload: {
          query: 'Record ₹5000 payment from Acme Corp',
          path: 'llm',
          category: 'unified',
          matchedIntent: null,
          extractedEntities: {},
          reasoning: 'write flow',
          pipelineSteps: [],
          enrichments: [],
          responseFormat: 'text',
          response: 'Payment of ₹5,000 recorded against Invoice INV-042 for Acme Corp.',
          mcpToolResults: [],
          dataSources: ['get_all_invoices'],
          llmModel: 'gpt-4o-mini',
          iterationCount: 3,
          usage: { input_tokens: 1200, output_tokens: 80, total_tokens: 1280 },
          status: 'answered',
        },
      },
    ],
  ];
}

async function publishFlow(scope: RequestScope, flow: [ServiceName, AgentEvent][], traceparent?: string) {
  const published: { seq: number; message: Message<AgentEvent> }[] = [];
  for (const [service, event] of flow) {
    const { seq, message } = await as(service).emit(scope, event, traceparent);
    published.push({ seq, message: message as Message<AgentEvent> });
  }
  return published;
}

/** A write flow as stored events: stream sequences from `firstSeq`, one second apart. */
function streamedFlow(scope: RequestScope, firstSeq: number) {
  return writeFlow(scope).map(([service, event], i) => ({
    seq: firstSeq + i,
    message: {
      id: randomUUID(),
      ...scope,
      service,
      ts: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      data: event,
    } as Message<AgentEvent>,
  }));
}

describe('logger', () => {
  const scope = newScope();
  let published: { seq: number; message: Message<AgentEvent> }[] = [];
  const traceparent = newTraceparent();

  test('stores every event of the write flow once and folds it into query_routing_logs', async () => {
    published = await publishFlow(scope, writeFlow(scope), traceparent);
    await expect
      .poll(async () => (await routingLogOf(scope.requestId))?.status, { timeout: 10_000 })
      .toBe('answered');
    await caughtUp();

    const stored = await eventsOf(scope.requestId);
    expect(stored.map((e) => e.id)).toEqual(published.map((p) => p.message.id));
    expect(stored.map((e) => e.seq)).toEqual(published.map((p) => p.seq));
    expect(stored.map((e) => e.type)).toEqual(published.map((p) => p.message.data.type));
    expect(stored.map((e) => e.service)).toEqual(published.map((p) => p.message.service));
    expect(stored[3]?.payload).toEqual(published[3]?.message.data.payload);
    expect(stored[0]).toMatchObject({ conversation_id: 'conv-1', entity_id: 'ent-1', org_id: 'org-1' });

    const first = published[0]!.message;
    const last = published.at(-1)!.message;
    const row = await routingLogOf(scope.requestId);
    expect(row).toMatchObject({
      query: 'Record ₹5000 payment from Acme Corp',
      path: 'llm',
      category: 'unified',
      tier: 'cheap',
      entity_id: 'ent-1',
      org_id: 'org-1',
      conversation_id: 'conv-1',
      is_write_operation: true,
      guardrails_triggered: ['write_preflight_block'],
      tools_used: ['get_all_invoices', 'create_payment'],
      tools_failed: ['create_payment'],
      llm_model: 'gpt-4o-mini',
      iteration_count: 3,
      input_tokens: 1200,
      output_tokens: 80,
      status: 'answered',
      error_code: null,
      response: 'Payment of ₹5,000 recorded against Invoice INV-042 for Acme Corp.',
      trace_id: traceIdOf(traceparent),
    });
    expect(row?.confidence).toBeCloseTo(0.4, 5);
    expect(row?.created_at.toISOString()).toBe(first.ts);
    expect(row?.latency_ms).toBe(Date.parse(last.ts) - Date.parse(first.ts));
    expect(row?.write_tool_results).toEqual([
      {
        tool: 'create_payment',
        validation_status: 'blocked',
        fields_checked: ['AccountId', 'Amount', 'Applications'],
        missing_fields: ['Amount', 'Applications'],
        message: 'Missing Amount and Applications[]. Fetch invoices via get_all_invoices.',
        duration_ms: 2,
        mcp_result: null,
      },
      {
        tool: 'create_payment',
        validation_status: 'passed',
        fields_checked: ['AccountId', 'Amount', 'Applications'],
        duration_ms: 1,
        mcp_result: { success: true },
      },
    ]);

    // An operator looking for writes the validator blocked finds it.
    const blocked = await db
      .selectFrom('query_routing_logs')
      .select('request_id')
      .where((eb) => eb(eb.val('write_preflight_block'), '=', eb.fn.any('guardrails_triggered')))
      .orderBy('created_at', 'desc')
      .execute();
    expect(blocked.map((b) => b.request_id)).toContain(scope.requestId);
  });

  test('ignores a redelivered event: same envelope id, new JetStream message', async () => {
    const before = await routingLogOf(scope.requestId);
    const blocked = published[3]!.message;
    const complete = published.at(-1)!.message;
    const gateway = as('gateway');
    const subject = gateway.subject('requestEvents', { requestId: scope.requestId });
    for (const message of [blocked, complete]) {
      const ack = await gateway.js.publish(subject, JSON.stringify(message), {
        msgID: `again-${randomUUID()}`,
      });
      expect(ack.duplicate).toBe(false);
    }
    await caughtUp();

    expect(await eventsOf(scope.requestId)).toHaveLength(published.length);
    const after = await routingLogOf(scope.requestId);
    expect({ ...after, updated_at: null }).toEqual({ ...before, updated_at: null });
    expect(after?.updated_at).toEqual(before?.updated_at);
  });

  test('stores text PostgreSQL would refuse (NUL, lone surrogates) instead of failing forever', async () => {
    const s = newScope();
    await as('agent').emit(s, { type: 'understanding_started', payload: { query: 'nul\u0000here' } });
    await as('mcp-executor').emit(s, {
      type: 'tool_result',
      payload: { tool: 'get_bills', success: true, result: { note: 'a\u0000b', odd: 'x\uD800y' } },
    });
    await expect.poll(async () => (await eventsOf(s.requestId)).length, { timeout: 10_000 }).toBe(2);
    const stored = await eventsOf(s.requestId);
    expect(stored[1]?.payload).toEqual({
      tool: 'get_bills',
      success: true,
      result: { note: 'a\uFFFDb', odd: 'x\uFFFDy' },
    });
    expect(await routingLogOf(s.requestId)).toMatchObject({
      query: 'nul\uFFFDhere',
      tools_used: ['get_bills'],
    });
  });

  test('stores a message whose bytes are not valid UTF-8 as its decoded text', async () => {
    const s = newScope();
    const gateway = as('gateway');
    const json = JSON.stringify({
      id: randomUUID(),
      ...s,
      service: 'mcp-executor',
      ts: new Date().toISOString(),
      data: { type: 'tool_result', payload: { tool: 'get_bills', success: true, result: 'A~B~C' } },
    });
    // A stray byte and a UTF-8-encoded surrogate (CESU-8): PostgreSQL refuses both as input.
    const bytes = Buffer.concat(
      json
        .split('~')
        .flatMap((part, i) => [
          ...(i === 1 ? [Buffer.from([0xff])] : i === 2 ? [Buffer.from([0xed, 0xa0, 0x80])] : []),
          Buffer.from(part),
        ]),
    );
    await gateway.js.publish(gateway.subject('requestEvents', { requestId: s.requestId }), bytes);
    await expect.poll(async () => (await eventsOf(s.requestId)).length, { timeout: 10_000 }).toBe(1);
    const [stored] = await eventsOf(s.requestId);
    expect(stored?.payload).toEqual({
      tool: 'get_bills',
      success: true,
      result: `A\uFFFDB${'\uFFFD'.repeat(3)}C`,
    });
  });

  test('records an error event as the outcome', async () => {
    const s = newScope();
    const { message: first } = await as('gateway').emit(s, {
      type: 'connected',
      payload: { requestId: s.requestId, conversationId: s.conversationId },
    });
    const { message: err } = await as('agent').emit(s, {
      type: 'error',
      payload: { code: 'NO_MODEL_CONFIGURED', message: 'No language model is configured.' },
    });
    await expect
      .poll(async () => (await routingLogOf(s.requestId))?.status, { timeout: 10_000 })
      .toBe('error');
    expect(await routingLogOf(s.requestId)).toMatchObject({
      error_code: 'NO_MODEL_CONFIGURED',
      response: 'No language model is configured.',
      latency_ms: Date.parse(err.ts) - Date.parse(first.ts),
    });
  });

  test('answers its health probe with a postgres check', async () => {
    const reply = await as('gateway').request(
      'healthPing',
      newScope(),
      {},
      {
        timeoutMs: 2000,
        params: { service: 'logger' },
      },
    );
    expect(reply).toMatchObject({ service: 'logger', ok: true, checks: { nats: true, postgres: true } });
  });

  test('with two instances on the durable, stores each of 200 events (each sent twice) exactly once', async () => {
    await startLogger();
    const scopes = Array.from({ length: 20 }, newScope);
    const flows = scopes.map((s) => {
      const flow = writeFlow(s).filter(([, e]) => e.type !== 'tool_retry');
      flow.splice(-1, 0, ['agent', { type: 'response_chunk', payload: { text: 'Payment ' } }]);
      flow.splice(-1, 0, ['agent', { type: 'response_chunk', payload: { text: 'recorded.' } }]);
      return flow;
    });
    expect(flows.every((f) => f.length === 10)).toBe(true);
    const gateway = as('gateway');
    await Promise.all(
      scopes.map(async (s, i) => {
        // Every event goes out twice (the second as a new JetStream message), so the two
        // instances also race on the same envelope ids.
        for (const { message } of await publishFlow(s, flows[i]!)) {
          await gateway.js.publish(
            gateway.subject('requestEvents', { requestId: s.requestId }),
            JSON.stringify(message),
            {
              msgID: `again-${message.id}`,
            },
          );
        }
      }),
    );

    const ids = scopes.map((s) => s.requestId);
    const countStored = async () =>
      (
        await db
          .selectFrom('request_events')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('request_id', 'in', ids)
          .executeTakeFirstOrThrow()
      ).n;
    await expect.poll(countStored, { timeout: 15_000, interval: 100 }).toBe(200);
    await caughtUp();
    expect(await countStored()).toBe(200);

    const rows = await db
      .selectFrom('query_routing_logs')
      .selectAll()
      .where('request_id', 'in', ids)
      .execute();
    expect(rows).toHaveLength(20);
    for (const row of rows) {
      expect(row.status).toBe('answered');
      expect(row.write_tool_results.map((w) => w.validation_status)).toEqual(['blocked', 'passed']);
      expect(row.guardrails_triggered).toEqual(['write_preflight_block']);
      expect([...row.tools_used].sort()).toEqual(['create_payment', 'get_all_invoices']);
      expect(row.tools_failed).toEqual(['create_payment']);
    }
  });

  test('folds events that arrive out of stream order as if they came in order', async () => {
    const scope = newScope();
    const messages = streamedFlow(scope, 1_000_000);
    for (const { seq, message } of [...messages].reverse()) {
      await storeEvent(db, message, { seq, traceparent: undefined });
    }
    const row = await routingLogOf(scope.requestId);
    expect(row?.write_tool_results.map((w) => w.validation_status)).toEqual(['blocked', 'passed']);
    expect(row?.write_tool_results[1]?.mcp_result).toEqual({ success: true });
    expect(row?.status).toBe('answered');
    expect(row?.latency_ms).toBe((messages.length - 1) * 1000);
  });

  test('moves an event to its earlier copy in the stream and refolds, when a later copy was stored first', async () => {
    const scope = newScope();
    const messages = streamedFlow(scope, 2_000_000);
    const blocked = messages.findIndex((m) => m.message.data.type === 'write_validation');
    // Every event but the block goes in at its place; the block's republished copy (far later in
    // the stream) is stored before its original copy, which then arrives as a duplicate id.
    await storeBatch(
      db,
      messages.filter((_, i) => i !== blocked).map((m) => ({ ...m, traceparent: undefined })),
    );
    const original = messages[blocked]!;
    await storeEvent(db, original.message, { seq: 2_000_100, traceparent: undefined });
    const early = await routingLogOf(scope.requestId);
    expect(early?.write_tool_results.map((w) => w.validation_status)).toEqual(['passed', 'blocked']);

    const result = await storeBatch(db, [{ ...original, traceparent: undefined }]);
    expect(result.inserted).toBe(0);
    const row = await routingLogOf(scope.requestId);
    expect(row?.write_tool_results.map((w) => w.validation_status)).toEqual(['blocked', 'passed']);
    const stored = await db
      .selectFrom('request_events')
      .select(['seq'])
      .where('id', '=', original.message.id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.seq)).toBe(original.seq);
    const { n } = await db
      .selectFrom('request_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('request_id', '=', scope.requestId)
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(messages.length);
  });

  test('does not store a malformed event and keeps going', async () => {
    const s = newScope();
    const badId = `bad-${randomUUID()}`;
    const gateway = as('gateway');
    await gateway.js.publish(
      gateway.subject('requestEvents', { requestId: s.requestId }),
      JSON.stringify({
        id: badId,
        ...s,
        service: 'agent',
        ts: new Date().toISOString(),
        data: { type: 'tool_result', payload: { tool: 42, success: 'yes' } },
      }),
    );
    const { message: good } = await as('agent').emit(s, {
      type: 'response_chunk',
      payload: { text: 'still here' },
    });

    await expect
      .poll(async () => (await eventsOf(s.requestId)).map((e) => e.type), { timeout: 10_000 })
      .toEqual(expect.arrayContaining(['response_chunk', 'error']));
    // No caughtUp() here: nats-server 2.9 ignores a TERM that carries a reason (the bus sends
    // one), so the malformed message stays pending until its ack wait; this test runs last.
    const stored = await eventsOf(s.requestId);
    expect(stored.map((e) => e.id)).not.toContain(badId);
    expect(stored.map((e) => e.id)).toContain(good.id);
    // The bus ends the request with a MALFORMED_MESSAGE error event, which is stored like any other.
    const error = stored.find((e) => e.type === 'error');
    expect(error?.payload).toMatchObject({ code: 'MALFORMED_MESSAGE' });
    expect(String(error?.payload.message)).toContain('data.payload.tool');
    expect(await routingLogOf(s.requestId)).toMatchObject({
      status: 'error',
      error_code: 'MALFORMED_MESSAGE',
    });
  });
});
