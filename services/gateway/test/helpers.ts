import type { Bus } from '@munim/bus';
import type { TestNats } from '@munim/bus/testing';
import type { AgentEvent, EventPayload, Message, QuerySubmitted } from '@munim/contracts';
import type { ConversationMessage, Database } from '@munim/db';
import { test as kit } from '@munim/testkit';
import { createParser } from 'eventsource-parser';
import type { Kysely } from 'kysely';
import { type Logger, pino } from 'pino';
import { buildGateway, type Gateway } from '../src/app.ts';
import { loadEnv } from '../src/env.ts';

/**
 * The test kit's `test` with `gateway`: a gateway with default settings on the file's NATS slice
 * (`nats`), listening on a free port; made once per file, stopped after its last test.
 */
export const test = kit.extend('gateway', { scope: 'file' }, async ({ nats }, { onCleanup }) => {
  const started = await startGateway(nats);
  onCleanup(() => started.gateway.stop());
  return started;
});

/**
 * Builds a gateway on the test prefix from environment-style settings, listening on a free port;
 * silent unless given a logger.
 */
export async function startGateway(
  testBus: TestNats,
  env: Record<string, string> = {},
  db?: Kysely<Database>,
  log: Logger = pino({ level: 'silent' }),
): Promise<{ gateway: Gateway; url: string; bus: Bus }> {
  const bus = await testBus.bus('gateway');
  const config = loadEnv({ NATS_PREFIX: testBus.prefix, ...env });
  const gateway = await buildGateway({ bus, log, config, db });
  await gateway.start();
  const url = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
  return { gateway, url, bus };
}

export interface Received {
  message: Message<QuerySubmitted>;
  traceparent: string | undefined;
}

/** What the fake router/agent does for one submitted query: the events to emit, in order. */
export type Script = (message: Message<QuerySubmitted>) => Promise<AgentEvent[]> | AgentEvent[];

/**
 * Plays router and agent: consumes `querySubmitted` as the router's durable consumer and emits
 * the scripted events for the request (routing events as the router, the rest as the agent).
 */
export async function fakeBackend(testBus: TestNats, script: Script) {
  const router = await testBus.bus('router');
  const agent = await testBus.bus('agent');
  const received: Received[] = [];
  const consumer = await router.consume(
    'querySubmitted',
    async (message, ctx) => {
      received.push({ message, traceparent: ctx.traceparent });
      // As the router does: a request is opened by whichever of gateway and router comes first.
      await router.open(message, ctx.traceparent);
      for (const event of await script(message)) {
        const emitter = event.type.startsWith('route_') ? router : agent;
        await emitter.emit(message, event, ctx.traceparent);
      }
    },
    { durable: 'router', maxDeliver: 1 },
  );
  return { received, stop: () => consumer.stop(), router, agent };
}

/** A `complete` event as the agent would send it. */
export function completeEvent(
  query: string,
  response: string,
  status: EventPayload<'complete'>['status'] = 'answered',
): AgentEvent {
  return {
    type: 'complete',
    payload: {
      query,
      path: 'llm',
      category: 'unified',
      matchedIntent: null,
      extractedEntities: {},
      reasoning: 'test',
      pipelineSteps: [],
      enrichments: [],
      responseFormat: 'markdown',
      response,
      mcpToolResults: [],
      dataSources: [],
      llmModel: 'test-model',
      iterationCount: 1,
      usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
      status,
    },
  };
}

export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: unknown;
}

/**
 * Reads an SSE response with eventsource-parser until the server ends it, or until `stopWhen`
 * says enough (then the connection is dropped). Comments (heartbeats) are collected too.
 */
export async function readSse(
  response: Response,
  opts: { stopWhen?: (events: SseEvent[], comments: string[]) => boolean; abort?: AbortController } = {},
): Promise<{ events: SseEvent[]; comments: string[] }> {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const parser = createParser({
    onEvent: (event) => events.push({ id: event.id, event: event.event, data: JSON.parse(event.data) }),
    onComment: (comment) => comments.push(comment.trim()),
  });
  if (!response.body) throw new Error('response has no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      if (opts.stopWhen?.(events, comments)) {
        opts.abort?.abort();
        await reader.cancel().catch(() => undefined);
        break;
      }
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    reader.releaseLock();
  }
  return { events, comments };
}

/** The `connected` payload that opens every stream; throws when the stream did not start with it. */
export function connectedOf(events: SseEvent[]): { requestId: string; conversationId: string } {
  const first = events[0];
  if (first?.event !== 'connected')
    throw new Error(`stream did not start with connected: ${JSON.stringify(first)}`);
  return first.data as { requestId: string; conversationId: string };
}

/** Posts a query and returns the response (the caller reads the stream). */
export function postQuery(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
) {
  return fetch(`${url}/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** A promise and its resolver, for a fake backend that waits on the test. */
export function gate(): { promise: Promise<void>; open: () => void } {
  const { promise, resolve } = Promise.withResolvers<void>();
  return { promise, open: () => resolve() };
}

export interface GatewayTestbed {
  testBus: TestNats;
  db: Kysely<Database>;
  /** Answers every query with a `complete` event whose response is `answer(message)`. */
  backend: Awaited<ReturnType<typeof fakeBackend>>;
  /** Starts a gateway on this testbed's NATS slice and database; `close` stops it. */
  startGateway(env?: Record<string, string>): Promise<{ gateway: Gateway; url: string; bus: Bus }>;
  /** Stops the backend and every gateway started (the fixtures drop the streams and the database). */
  close(): Promise<void>;
}

/**
 * One test file's gateways on its `nats` and `db` fixtures, and a fake router and agent that answer
 * every query with `complete` and `answer(message)`.
 */
export async function gatewayTestbed(
  { nats, db }: { nats: TestNats; db: Kysely<Database> },
  answer: (message: Message<QuerySubmitted>) => string,
): Promise<GatewayTestbed> {
  const gateways: Gateway[] = [];
  const backend = await fakeBackend(nats, (message) => [completeEvent(message.data.query, answer(message))]);
  return {
    testBus: nats,
    db,
    backend,
    async startGateway(env = {}) {
      const started = await startGateway(nats, env, db);
      gateways.push(started.gateway);
      return started;
    },
    async close() {
      await backend.stop();
      for (const gateway of gateways) await gateway.stop();
    },
  };
}

/** Inserts a conversation row as the agent would write it. */
export async function insertConversation(
  db: Kysely<Database>,
  row: {
    id: string;
    entityId: string;
    orgId: string;
    chatNumber: number;
    name?: string;
    messages?: ConversationMessage[];
    updatedAt?: Date;
    deleted?: boolean;
  },
): Promise<void> {
  const messages = row.messages ?? [];
  await db
    .insertInto('unified_conversations')
    .values({
      id: row.id,
      entity_id: row.entityId,
      org_id: row.orgId,
      chat_number: row.chatNumber,
      chat_name: row.name ?? null,
      messages: JSON.stringify(messages),
      message_count: messages.length,
      last_message_preview: messages.at(-1)?.content.slice(0, 100) ?? null,
      is_deleted: row.deleted ?? false,
      ...(row.updatedAt ? { updated_at: row.updatedAt, created_at: row.updatedAt } : {}),
    })
    .execute();
}
