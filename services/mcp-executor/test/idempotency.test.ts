import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Bus } from '@munim/bus';
import { natsUrl } from '@munim/bus/testing';
import type { ExecuteRequest, Message, RequestScope } from '@munim/contracts';
import type { Database } from '@munim/db';
import { serviceLoginUrl } from '@munim/db/testing';
import { createDemoBooks, type DemoBooks } from '@munim/demo-books';
import { type FixtureNats, type TestDatabase, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect } from 'vitest';
import { buildMcpExecutor, type McpExecutor, type McpExecutorConfig } from '../src/app.ts';
import { hashArgs, IdempotencyStore, idempotencyKey } from '../src/idempotency.ts';
import {
  approve,
  freePort,
  log,
  newScope,
  readTool,
  recordEvents,
  startSdkServer,
  WRITES_EXEMPT,
  waitFor,
} from './helpers.ts';

let newNats: () => FixtureNats;
test.beforeAll(({ newNats: fixture }) => {
  newNats = fixture;
});

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

let database: TestDatabase;
let db: Kysely<Database>;
let books: DemoBooks;
let booksUrl: string;
let closeBooks: () => Promise<void>;
let nats: FixtureNats;
let bus: Bus;
const cleanups: (() => Promise<void>)[] = [];

test.beforeAll(async ({ nats: fileNats, database: fileDatabase, db: fileDb }) => {
  nats = fileNats;
  database = fileDatabase;
  db = fileDb;
  books = createDemoBooks({ asOf: new Date('2025-06-30T00:00:00Z') });
  const listening = await books.listen();
  booksUrl = listening.url;
  closeBooks = listening.close;
  bus = await nats.bus('agent');
});

beforeEach(() => {
  books.resetCalls();
  books.setFaults({});
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await closeBooks();
});

async function startExecutor(
  overrides: Partial<McpExecutorConfig> = {},
  opts: { instanceId?: string; serverUrl?: string; on?: FixtureNats } = {},
): Promise<McpExecutor> {
  const executorBus = await (opts.on ?? nats).bus('mcp-executor');
  const app = await buildMcpExecutor({
    bus: executorBus,
    log,
    db,
    ...(opts.instanceId ? { instanceId: opts.instanceId } : {}),
    config: {
      policy: WRITES_EXEMPT,
      serverUrl: opts.serverUrl ?? booksUrl,
      readTimeoutMs: 5_000,
      writeTimeoutMs: 5_000,
      resultMaxChars: 50_000,
      idempotencyGraceMs: 500,
      reconnectBackoff: { initialMs: 50, maxMs: 200 },
      ...overrides,
    },
  });
  await app.start();
  await waitFor(() => app.registry.loaded);
  cleanups.push(() => app.stop());
  return app;
}

const call = (
  scope: RequestScope,
  tool: string,
  args: Record<string, unknown>,
  callId = `${scope.requestId}:1`,
) => ({ tool, args, callId, isWrite: true, argsHash: hashArgs(args) }) satisfies ExecuteRequest;

const request = (scope: RequestScope, data: ExecuteRequest, timeoutMs = 15_000, via = bus) =>
  via.request('toolExecute', scope, data, { timeoutMs });

const asMessage = (scope: RequestScope, data: ExecuteRequest): Message<ExecuteRequest> => ({
  id: randomUUID(),
  ...scope,
  service: 'agent',
  ts: new Date().toISOString(),
  data,
});

const writesOf = (tool: string) => books.calls().filter((c) => c.tool === tool);
const customersNamed = (name: string) => books.store.contacts.filter((c) => c.Name === name);

describe('idempotency store', () => {
  const store = () => new IdempotencyStore({ db, owner: 'test', pollMs: 20 });
  const identity = (argsHash = 'a1') => ({
    requestId: randomUUID(),
    callId: 'c1',
    tool: 'create_x',
    argsHash,
  });

  test('gives a call to one claimer and its stored outcome to every later one', async () => {
    const id = identity();
    const first = await store().claim(id, 5_000);
    expect(first).toEqual({ kind: 'claimed', key: idempotencyKey(id.requestId, id.callId, id.argsHash) });
    await store().complete(first.key, 'succeeded', { success: true, result: { Id: 7 }, truncated: false });
    expect(await store().claim(id, 5_000)).toEqual({
      kind: 'done',
      key: first.key,
      state: 'succeeded',
      outcome: { success: true, result: { Id: 7 }, truncated: false },
    });
    expect(await store().claim({ ...id, argsHash: 'other' }, 5_000)).toMatchObject({ kind: 'conflict' });
  });

  test('waits for a call in flight, and turns an abandoned one into unknown', async () => {
    const id = identity();
    const { key } = await store().claim(id, 5_000);
    let settled = false;
    const waiter = store()
      .claim(id, 5_000)
      .finally(() => {
        settled = true;
      });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).toBe(false);
    await store().complete(key, 'failed', {
      success: false,
      error: { code: 'TOOL_FAILED', message: 'no' },
      truncated: false,
    });
    expect(await waiter).toMatchObject({ kind: 'done', state: 'failed' });

    const abandoned = identity();
    const claimed = await store().claim(abandoned, 100);
    expect(await store().claim(abandoned, 100)).toEqual({
      kind: 'done',
      key: claimed.key,
      state: 'unknown',
      outcome: null,
    });
    expect(await store().state(claimed.key)).toBe('unknown');
  });

  test('lets a released call be claimed again and purges expired keys', async () => {
    const id = identity();
    const { key } = await store().claim(id, 5_000);
    await store().release(key);
    expect(await store().state(key)).toBeUndefined();
    expect(await store().claim(id, 5_000)).toEqual({ kind: 'claimed', key });

    const shortLived = new IdempotencyStore({ db, owner: 'test', ttlMs: 1 });
    const expired = await shortLived.claim(identity(), 5_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store().purge()).toBeGreaterThanOrEqual(1);
    expect(await store().state(expired.key)).toBeUndefined();
    expect(await store().state(key)).toBe('pending');
  });
});

describe('exactly-once writes', () => {
  let app: McpExecutor;
  beforeAll(async () => {
    app = await startExecutor({}, { instanceId: 'first' });
  });

  test('answers a repeated call from the store, refuses other arguments, and sends the key in _meta', async () => {
    const scope = newScope();
    const data = call(scope, 'create_customer', { Name: 'Repeat Ltd' });
    const first = await request(scope, data);
    expect(first).toMatchObject({ success: true, outcome: 'succeeded', result: { Name: 'Repeat Ltd' } });
    expect(first.replayed).toBeUndefined();
    const again = await request(scope, data);
    expect(again).toMatchObject({ success: true, outcome: 'succeeded', replayed: true });
    expect(again.result).toEqual(first.result);

    const changed = await request(scope, call(scope, 'create_customer', { Name: 'Other Ltd' }));
    expect(changed).toMatchObject({ success: false, error: { code: 'CONFLICT' } });
    expect(writesOf('create_customer')).toHaveLength(1);
    expect(customersNamed('Repeat Ltd')).toHaveLength(1);
    expect(customersNamed('Other Ltd')).toHaveLength(0);

    // Reads are not deduplicated: the same read call runs again.
    const read = {
      tool: 'get_all_vendors',
      args: {},
      callId: `${scope.requestId}:9`,
      isWrite: false,
      argsHash: 'h',
    };
    await request(scope, read);
    await request(scope, read);
    expect(writesOf('get_all_vendors')).toHaveLength(2);

    const sdk = await startSdkServer([
      {
        tool: readTool('create_note', { annotations: { readOnlyHint: false } }),
        run: () => ({ content: [{ type: 'text', text: '{"ok":true}' }] }),
      },
    ]);
    cleanups.push(sdk.close);
    // On its own prefix, so it does not join the queue group of the demo books executors.
    const elsewhere = newNats();
    const other = await startExecutor({}, { serverUrl: sdk.url, on: elsewhere });
    const noteScope = newScope();
    const note = call(noteScope, 'create_note', { text: 'hi' });
    expect(await other.execute(asMessage(noteScope, note))).toMatchObject({ success: true });
    expect(sdk.metas).toEqual([
      { 'munim/idempotency-key': idempotencyKey(noteScope.requestId, note.callId, hashArgs({ text: 'hi' })) },
    ]);
  });

  test('reports a write whose response was lost after commit as unknown and never sends it again', async () => {
    books.setFaults({ dropResponseFor: 'create_customer', dropTimes: 1 });
    const scope = newScope();
    const data = call(scope, 'create_customer', { Name: 'Lost Answer Ltd' });
    const first = await request(scope, data);
    expect(first).toMatchObject({
      success: false,
      outcome: 'unknown',
      error: { code: 'TOOL_OUTCOME_UNKNOWN' },
    });
    expect(first.error?.message).toMatch(/read tool/);
    await expect.poll(() => app.connection.connected, { timeout: 5_000 }).toBe(true);
    const retry = await request(scope, data);
    expect(retry).toMatchObject({ success: false, replayed: true, error: { code: 'TOOL_OUTCOME_UNKNOWN' } });
    expect(writesOf('create_customer')).toHaveLength(1);
    expect(customersNamed('Lost Answer Ltd')).toHaveLength(1);
  });

  test('runs a call raced by two executor instances once', async () => {
    const second = await startExecutor({}, { instanceId: 'second' });
    books.setFaults({ delayMs: { create_customer: 300 } });
    const scope = newScope();
    const data = call(scope, 'create_customer', { Name: 'Race Ltd' });
    const [a, b] = await Promise.all([
      app.execute(asMessage(scope, data)),
      second.execute(asMessage(scope, data)),
    ]);
    expect(a).toMatchObject({ success: true, outcome: 'succeeded' });
    expect(b).toMatchObject({ success: true, outcome: 'succeeded' });
    expect([a.replayed, b.replayed].filter(Boolean)).toHaveLength(1);
    expect(a.result).toEqual(b.result);

    // And over NATS: duplicates spread over both instances of the queue group.
    const busScope = newScope();
    const busData = call(busScope, 'create_customer', { Name: 'Queue Race Ltd' });
    const replies = await Promise.all(Array.from({ length: 6 }, () => request(busScope, busData)));
    for (const reply of replies) expect(reply).toMatchObject({ success: true, outcome: 'succeeded' });
    expect(new Set(replies.map((r) => JSON.stringify(r.result))).size).toBe(1);
    expect(replies.filter((r) => !r.replayed)).toHaveLength(1);
    expect(writesOf('create_customer')).toHaveLength(2);
    expect(customersNamed('Race Ltd')).toHaveLength(1);
    expect(customersNamed('Queue Race Ltd')).toHaveLength(1);
  });
});

describe('write retry', () => {
  test('retries a write once when the failure proves it never reached the server (restarted server)', async () => {
    const restartable = createDemoBooks({ asOf: new Date('2025-06-30T00:00:00Z') });
    const port = await freePort();
    let listening = await restartable.listen(port);
    cleanups.push(() => listening.close());
    const own = newNats();
    const app = await startExecutor({}, { serverUrl: listening.url, on: own });
    const ownBus = await own.bus('agent');
    // Opens the tenant's session, which the restart below invalidates.
    const warm = newScope();
    expect(
      await request(
        warm,
        { tool: 'get_all_vendors', args: {}, callId: 'w', isWrite: false, argsHash: 'h' },
        5_000,
        ownBus,
      ),
    ).toMatchObject({ success: true });

    // The restarted server no longer knows the executor's session: it answers 404 without running anything.
    await listening.close();
    listening = await restartable.listen(port);
    const scope = newScope();
    const recorder = recordEvents(ownBus, scope.requestId);
    const reply = await request(
      scope,
      call(scope, 'create_customer', { Name: 'Retried Ltd' }),
      15_000,
      ownBus,
    );
    expect(reply).toMatchObject({ success: true, outcome: 'succeeded', result: { Name: 'Retried Ltd' } });
    await expect.poll(() => recorder.events.map((e) => e.type)).toContain('tool_result');
    recorder.stop();
    expect(recorder.events.map((e) => e.type)).toEqual(['executing_tool', 'tool_retry', 'tool_result']);
    expect(restartable.calls().filter((c) => c.tool === 'create_customer')).toHaveLength(1);
    expect(app.connection.connected).toBe(true);
  });
});

describe('an executor process killed after sending a write', () => {
  let child: ChildProcess | undefined;
  // Its own prefix, so no executor of the tests above answers in the child's place.
  let own: FixtureNats;
  test.beforeAll(() => {
    own = newNats();
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  test('leaves the write run once; the next executor reports it as unknown instead of re-sending', async () => {
    const ownBus = await own.bus('agent');
    const output: string[] = [];
    child = spawn(process.execPath, [MAIN], {
      env: {
        ...process.env,
        NATS_URL: natsUrl(),
        NATS_PREFIX: own.prefix,
        // As deployed: the executor's own role (it refuses a superuser login).
        DATABASE_URL: await serviceLoginUrl(database, 'mcp-executor'),
        MCP_SERVER_URL: booksUrl,
        MCP_WRITE_TIMEOUT_MS: '1500',
        IDEMPOTENCY_GRACE_MS: '500',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const exited = once(child, 'exit');
    await waitFor(async () => {
      const health = await ownBus
        .request('healthPing', newScope(), {}, { timeoutMs: 500, params: { service: 'mcp-executor' } })
        .catch(() => undefined);
      return health?.ok === true;
    }, 15_000).catch((error: unknown) => {
      throw new Error(`executor process did not get ready: ${output.join('')}`, { cause: error });
    });

    books.setFaults({ delayMs: { create_customer: 2_500 } });
    const scope = newScope();
    const bare = call(scope, 'create_customer', { Name: 'Killed Sender Ltd' });
    // A process started as in production: the write runs on the user's approval of this call.
    const approvalId = await approve(db, { scope, ...bare });
    const data = { ...bare, approvalId };
    const lost = request(scope, data, 3_000, ownBus).catch((error: unknown) => error);
    await waitFor(() => writesOf('create_customer').length === 1, 5_000);
    child.kill('SIGKILL');
    await exited;
    expect(await lost).toMatchObject({ code: 'TIMEOUT' });

    await startExecutor({}, { instanceId: 'after-kill', on: own });
    const retry = await request(scope, data, 15_000, ownBus);
    expect(retry).toMatchObject({
      success: false,
      outcome: 'unknown',
      error: { code: 'TOOL_OUTCOME_UNKNOWN' },
    });
    // The demo books finished the write it had received; nobody sent it again.
    await waitFor(() => customersNamed('Killed Sender Ltd').length === 1, 5_000);
    expect(writesOf('create_customer')).toHaveLength(1);
    expect(customersNamed('Killed Sender Ltd')).toHaveLength(1);
  });
});
