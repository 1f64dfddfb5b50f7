import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentEvent, RequestScope } from '@munim/contracts';
import type { Database } from '@munim/db';
import { test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, beforeEach, describe, expect } from 'vitest';
import { z } from 'zod';
import { PgApprovals } from '../src/approvals.ts';
import { ToolCaller } from '../src/call.ts';
import { McpConnection } from '../src/connection.ts';
import { hashArgs, IdempotencyStore, idempotencyKey } from '../src/idempotency.ts';
import { IDEMPOTENCY_META_KEY, WriteProtocol } from '../src/write-protocol.ts';
import { approve, log, newScope, waitFor } from './helpers.ts';

const WRITE_TIMEOUT_MS = 600;

/**
 * The accounting system, in this process: every call that reaches it is recorded before it acts,
 * so a test sees a write that was sent twice even when the second send got no answer.
 */
class Books {
  /** Every `tools/call` that reached a tool, with the idempotency key it carried. */
  readonly received: { tool: string; key: unknown }[] = [];
  #notes = 0;
  #live: InMemoryTransport | undefined;

  /** Calls of `tool` that reached the server. */
  count(tool: string): number {
    return this.received.filter((call) => call.tool === tool).length;
  }

  /** A new session: its own server on one end of an in-memory pair, the client's end returned. */
  transport(): InMemoryTransport {
    const server = new McpServer({ name: 'books', version: '1.0.0' });
    const note = { text: z.string(), delayMs: z.number().optional() };
    const tool = (name: string, run: (args: { text: string; delayMs?: number | undefined }) => unknown) =>
      server.registerTool(name, { inputSchema: note }, async (args, extra) => {
        this.received.push({ tool: name, key: extra._meta?.[IDEMPOTENCY_META_KEY] });
        return (await run(args)) as CallToolResult;
      });
    tool('create_note', async ({ text, delayMs }) => {
      this.#notes += 1;
      const id = `N-${this.#notes}`;
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { content: [{ type: 'text', text: JSON.stringify({ id, text }) }] };
    });
    // Answers a failure as plain text with `isError` unset, as many accounting servers do.
    tool('reject_note', () => ({
      content: [{ type: 'text', text: 'Error creating note: contact C-9 not found' }],
    }));
    // Applies the write, then never answers.
    tool('stall_note', () => new Promise(() => {}));
    // Applies the write, then the server dies before answering.
    tool('crash_note', () => {
      setImmediate(() => void this.#live?.close());
      return new Promise(() => {});
    });
    const [client, side] = InMemoryTransport.createLinkedPair();
    this.#live = side;
    void server.connect(side);
    return client;
  }
}

let db: Kysely<Database>;
let books: Books;
let connection: McpConnection;
let caller: ToolCaller;

test.beforeAll(async ({ db: fileDb }) => {
  db = fileDb;
  books = new Books();
  connection = new McpConnection({
    transport: () => books.transport(),
    label: 'books (in memory)',
    log,
    backoff: { initialMs: 20, maxMs: 100 },
    pingIntervalMs: 0,
  });
  connection.start();
  await waitFor(() => connection.connected);
  caller = new ToolCaller({
    // One server, every tool under its own name: the pool's routing is not what is tested here.
    router: { route: (tool) => ({ session: connection, name: tool }), refresh: async () => {} },
    log,
    secrets: [],
    readTimeoutMs: 5_000,
    resultMaxChars: 10_000,
  });
});

beforeEach(() => {
  books.received.length = 0;
});

afterAll(async () => {
  await connection?.stop();
});

/** One executor instance's write protocol; several share the database as instances do. */
const instance = (owner: string) =>
  new WriteProtocol({
    caller,
    idempotency: new IdempotencyStore({ db, owner, pollMs: 20 }),
    approvals: new PgApprovals(db),
    log,
    writeTimeoutMs: WRITE_TIMEOUT_MS,
    graceMs: 200,
    stopping: new AbortController().signal,
  });

interface Ask {
  scope: RequestScope;
  tool: string;
  args: Record<string, unknown>;
  /** Default: exempt from approval by the operator (tier 0). */
  exempt?: boolean;
  approvalId?: string;
}

const callIdOf = (scope: RequestScope) => `${scope.requestId}:1`;

async function write(protocol: WriteProtocol, ask: Ask) {
  const events: AgentEvent[] = [];
  let approved = false;
  const outcome = await protocol.run(
    {
      tool: ask.tool,
      args: ask.args,
      callId: callIdOf(ask.scope),
      approvalId: ask.approvalId,
      scope: ask.scope,
      exempt: ask.exempt ?? true,
      service: 'agent',
    },
    {
      onApproved: () => {
        approved = true;
      },
      emit: async (event) => void events.push(event),
    },
  );
  return { outcome, events, approved };
}

const stateOf = (ask: Ask) =>
  new IdempotencyStore({ db, owner: 'reader' }).state(
    idempotencyKey(ask.scope.requestId, callIdOf(ask.scope), hashArgs(ask.args)),
  );

describe('write protocol', () => {
  test('sends a write once with its idempotency key and answers a repeat with the first outcome', async () => {
    const ask: Ask = { scope: newScope(), tool: 'create_note', args: { text: 'paid' } };
    const protocol = instance('a');

    const first = await write(protocol, ask);
    expect(first.outcome).toMatchObject({ success: true, outcome: 'succeeded', result: { text: 'paid' } });
    expect(first.outcome.replayed).toBeUndefined();
    const again = await write(protocol, ask);
    expect(again.outcome).toEqual({ ...first.outcome, replayed: true });

    expect(books.received).toEqual([
      {
        tool: 'create_note',
        key: idempotencyKey(ask.scope.requestId, callIdOf(ask.scope), hashArgs(ask.args)),
      },
    ]);
    expect(await stateOf(ask)).toBe('succeeded');
  });

  test('sends a write once when two instances are asked for it at the same time', async () => {
    const ask: Ask = { scope: newScope(), tool: 'create_note', args: { text: 'twice', delayMs: 200 } };

    const [a, b] = await Promise.all([write(instance('a'), ask), write(instance('b'), ask)]);

    expect(books.count('create_note')).toBe(1);
    expect(a.outcome.success).toBe(true);
    expect(b.outcome.result).toEqual(a.outcome.result);
    expect([a.outcome.replayed, b.outcome.replayed].filter(Boolean)).toHaveLength(1);
    expect(await stateOf(ask)).toBe('succeeded');
  });

  test('refuses a write without the approval of exactly that call before anything reaches the server', async () => {
    const scope = newScope();
    const ask: Ask = { scope, tool: 'create_note', args: { text: 'unasked' }, exempt: false };
    const protocol = instance('a');
    const otherArgs = await approve(db, { scope, tool: ask.tool, args: { text: 'other' }, callId: 'x' });

    for (const approvalId of [undefined, otherArgs]) {
      const refused = await write(protocol, { ...ask, ...(approvalId ? { approvalId } : {}) });
      expect(refused.outcome).toMatchObject({ success: false, error: { code: 'WRITE_NOT_APPROVED' } });
      expect(refused.approved).toBe(false);
    }
    expect(books.received).toEqual([]);
    expect(await stateOf(ask)).toBeUndefined();

    // The same call, once approved, does run: the refusals were the approval check's doing.
    const approvalId = await approve(db, { scope, tool: ask.tool, args: ask.args, callId: callIdOf(scope) });
    const approved = await write(protocol, { ...ask, approvalId });
    expect(approved.approved).toBe(true);
    expect(approved.outcome).toMatchObject({ success: true, outcome: 'succeeded' });
    expect(books.count('create_note')).toBe(1);
  });

  test('settles as failed a write answered with a plain-text failure, and does not send it again', async () => {
    const ask: Ask = { scope: newScope(), tool: 'reject_note', args: { text: 'bad' } };
    const protocol = instance('a');

    const first = await write(protocol, ask);
    expect(first.outcome).toMatchObject({
      success: false,
      outcome: 'failed',
      error: { code: 'TOOL_FAILED', message: expect.stringContaining('contact C-9 not found') },
    });
    expect(await stateOf(ask)).toBe('failed');

    const again = await write(protocol, ask);
    expect(again.outcome).toEqual({ ...first.outcome, replayed: true });
    expect(books.count('reject_note')).toBe(1);
  });

  test('does not send again a write whose server died before answering', async () => {
    const ask: Ask = { scope: newScope(), tool: 'crash_note', args: { text: 'lost' } };
    const protocol = instance('a');

    const first = await write(protocol, ask);
    expect(first.outcome).toMatchObject({
      success: false,
      outcome: 'unknown',
      error: { code: 'TOOL_OUTCOME_UNKNOWN', message: expect.stringContaining('will not be sent again') },
    });
    expect(first.events).toEqual([]);
    expect(await stateOf(ask)).toBe('unknown');

    // A new session is up, so a retry would have somewhere to go.
    await waitFor(() => connection.connected);
    const again = await write(instance('b'), ask);
    expect(again.outcome).toMatchObject({ outcome: 'unknown', replayed: true });
    expect(again.outcome.error?.code).toBe('TOOL_OUTCOME_UNKNOWN');
    expect(books.count('crash_note')).toBe(1);
  });

  test('does not send again a write that timed out, nor one asked for while it was in flight', async () => {
    const ask: Ask = { scope: newScope(), tool: 'stall_note', args: { text: 'slow' } };

    const first = write(instance('a'), ask);
    await waitFor(() => books.count('stall_note') === 1);
    const meanwhile = await write(instance('b'), ask);
    const { outcome, events } = await first;

    expect(outcome).toMatchObject({
      success: false,
      outcome: 'unknown',
      error: { code: 'TOOL_OUTCOME_UNKNOWN' },
    });
    expect(outcome.replayed).toBeUndefined();
    expect(events).toEqual([]);
    expect(meanwhile.outcome).toMatchObject({
      outcome: 'unknown',
      replayed: true,
      error: { code: 'TOOL_OUTCOME_UNKNOWN' },
    });
    expect(await stateOf(ask)).toBe('unknown');
    expect(books.count('stall_note')).toBe(1);
  });
});
