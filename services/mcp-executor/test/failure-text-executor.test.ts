import type { Bus } from '@munim/bus';
import type { ExecuteRequest, RequestScope } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type TestNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { buildMcpExecutor, type McpExecutor } from '../src/app.ts';
import { hashArgs } from '../src/idempotency.ts';
import {
  log,
  newScope,
  recordEvents,
  type SdkTool,
  startSdkServer,
  WRITES_EXEMPT,
  waitFor,
} from './helpers.ts';

// Answers with `isError` unset, as accounting MCP servers we did not write give them.
const textAnswer = (text: string) => ({ content: [{ type: 'text' as const, text }] });
const bare = (name: string) => ({ name, inputSchema: { type: 'object' as const, properties: {} } });
const tools: SdkTool[] = [
  { tool: bare('create-invoice'), run: () => textAnswer('Error creating invoice: contact C-9 not found') },
  { tool: bare('create-journal'), run: () => textAnswer('{"Invoice":{"Reference":"Error correction"}}') },
  { tool: bare('get-job-status'), run: () => textAnswer('{"status":"failed"}') },
];

let db: Kysely<Database>;
let sdk: Awaited<ReturnType<typeof startSdkServer>>;
let app: McpExecutor;
let bus: Bus;
let nats: TestNats;

test.beforeAll(async ({ nats: fileNats, db: fileDb }) => {
  nats = fileNats;
  db = fileDb;
  sdk = await startSdkServer(tools);
  bus = await nats.bus('agent');
  app = await buildMcpExecutor({
    bus: await nats.bus('mcp-executor'),
    log,
    db,
    config: {
      policy: WRITES_EXEMPT,
      serverUrl: sdk.url,
      readTimeoutMs: 5_000,
      writeTimeoutMs: 5_000,
      resultMaxChars: 50_000,
      idempotencyGraceMs: 500,
      reconnectBackoff: { initialMs: 50, maxMs: 200 },
    },
  });
  await app.start();
  await waitFor(() => app.registry.loaded);
});

afterAll(async () => {
  await app?.stop();
  await sdk?.close();
});

const call = (scope: RequestScope, tool: string, isWrite: boolean): ExecuteRequest => ({
  tool,
  args: { contactId: 'C-9' },
  callId: `${scope.requestId}:1`,
  isWrite,
  argsHash: hashArgs({ contactId: 'C-9' }),
});
const execute = (scope: RequestScope, data: ExecuteRequest) =>
  bus.request('toolExecute', scope, data, { timeoutMs: 15_000 });
const sentTo = (tool: string) => sdk.calls.filter((name) => name === tool).length;

describe('a write answered with an error text but no isError', () => {
  test('fails with TOOL_FAILED, is settled failed, and is not sent again', async () => {
    expect(app.registry.get('create-invoice')?.isWrite).toBe(true);
    const scope = newScope();
    const recorder = recordEvents(bus, scope.requestId);
    const data = call(scope, 'create-invoice', true);
    const first = await execute(scope, data);
    expect(first).toMatchObject({
      success: false,
      outcome: 'failed',
      error: { code: 'TOOL_FAILED', message: 'Error creating invoice: contact C-9 not found' },
    });
    expect(first.result).toBeUndefined();

    await expect.poll(() => recorder.events.find((e) => e.type === 'tool_result')).toBeDefined();
    recorder.stop();
    expect(recorder.events.find((e) => e.type === 'tool_result')?.payload).toMatchObject({
      tool: 'create-invoice',
      success: false,
      error: 'Error creating invoice: contact C-9 not found',
    });

    const row = await db
      .selectFrom('tool_idempotency')
      .select(['state'])
      .where('request_id', '=', scope.requestId)
      .where('call_id', '=', data.callId)
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('failed');

    const again = await execute(scope, data);
    expect(again).toMatchObject({
      success: false,
      outcome: 'failed',
      replayed: true,
      error: { code: 'TOOL_FAILED', message: 'Error creating invoice: contact C-9 not found' },
    });
    expect(sentTo('create-invoice')).toBe(1);
  });

  test('leaves a write whose record merely says "Error" a success', async () => {
    const scope = newScope();
    const reply = await execute(scope, call(scope, 'create-journal', true));
    expect(reply).toMatchObject({
      success: true,
      outcome: 'succeeded',
      result: { Invoice: { Reference: 'Error correction' } },
    });
  });
});

describe('a read answered with failure-like data', () => {
  test('stays a success: a job status of "failed" is data, not an error', async () => {
    expect(app.registry.get('get-job-status')?.isWrite).toBe(false);
    const scope = newScope();
    const reply = await execute(scope, call(scope, 'get-job-status', false));
    expect(reply).toMatchObject({ success: true, result: { status: 'failed' } });
    expect(reply.outcome).toBeUndefined();
  });
});
