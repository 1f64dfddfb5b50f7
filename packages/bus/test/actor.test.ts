// Who asked travels with every message of a request: the bus copies the scope's actor into each
// envelope it publishes (stream, events, request/reply), receivers parse it, and a message sent
// before actors were carried (none in its envelope) still parses.
import { randomUUID } from 'node:crypto';
import {
  type Actor,
  type AgentEvent,
  EnvelopeSchema,
  type Message,
  PERSON_ROLES,
  type RequestScope,
} from '@munim/contracts';
import { test } from '@munim/testkit';
import { describe, expect } from 'vitest';

const maker: Actor = { userId: 'user-maker-1', roles: ['maker', 'approver'], via: 'api' };
const scopeOf = (actor?: Actor): RequestScope => ({
  requestId: randomUUID(),
  conversationId: 'c1',
  entityId: 'e1',
  orgId: 'o1',
  ...(actor ? { actor } : {}),
});

describe('the actor of a request', () => {
  test('is in every envelope published for its scope, and parsed where it is received', async ({ nats }) => {
    const gateway = await nats.bus('gateway');
    const router = await nats.bus('router');
    const executor = await nats.bus('mcp-executor');
    const scope = scopeOf(maker);

    const got: Message<unknown>[] = [];
    const consumer = await router.consume('querySubmitted', async (m) => void got.push(m), {
      durable: 'router',
    });
    await gateway.publish('querySubmitted', scope, { query: 'record a payment' });
    await expect.poll(() => got.length).toBe(1);
    expect(got[0]?.actor).toEqual(maker);
    await consumer.stop();

    const events: unknown[] = [];
    const sub = gateway.nc.subscribe(gateway.subject('requestEvents', { requestId: scope.requestId }), {
      callback: (_err, msg) => {
        const body = msg.json() as unknown;
        events.push(...(Array.isArray(body) ? body : [body]));
      },
    });
    // The subscription is the server's before the router's events are published on its own connection.
    await gateway.nc.flush();
    const answer: AgentEvent = { type: 'response_chunk', payload: { text: 'ok' } };
    await router.emit(scope, answer);
    await router.emitAll(scope, [answer, answer]);
    await expect.poll(() => events.length).toBe(3);
    sub.unsubscribe();
    for (const event of events) expect(EnvelopeSchema.parse(event).actor).toEqual(maker);

    let served: Actor | undefined;
    const serving = executor.serve('toolsList', async (m) => {
      served = m.actor;
      return { tools: [] };
    });
    await executor.flush();
    await router.request('toolsList', scope, {}, { timeoutMs: 2000 });
    expect(served).toEqual(maker);
    await serving.stop();
  });

  test('is absent from messages of a scope without one, which still parse', async ({ nats }) => {
    const gateway = await nats.bus('gateway');
    const router = await nats.bus('router');
    const got: Message<unknown>[] = [];
    const consumer = await router.consume('querySubmitted', async (m) => void got.push(m), {
      durable: 'router',
    });
    const { message } = await gateway.publish('querySubmitted', scopeOf(), { query: 'show invoices' });
    expect('actor' in message).toBe(false);
    await expect.poll(() => got.length).toBe(1);
    expect(got[0]?.actor).toBeUndefined();
    await consumer.stop();
  });

  test('of any shape parses only with person roles and an id or null for its user', () => {
    const base = {
      id: 'm1',
      requestId: 'r1',
      conversationId: 'c1',
      entityId: 'e1',
      orgId: 'o1',
      service: 'agent',
      ts: new Date().toISOString(),
    };
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const names = [...PERSON_ROLES, 'root', 'cfo', ''];
    for (let i = 0; i < 300; i++) {
      const roles = names.filter(() => random() < 0.3);
      const userId = [null, 'user-1', 'a b', '', 'x'.repeat(200)][Math.floor(random() * 5)] as string | null;
      const via = ['api', 'mcp', 'messaging', 'fax'][Math.floor(random() * 4)] as string;
      const valid =
        roles.every((r) => (PERSON_ROLES as readonly string[]).includes(r)) &&
        (userId === null || userId === 'user-1') &&
        via !== 'fax';
      expect(
        EnvelopeSchema.safeParse({ ...base, actor: { userId, roles, via } }).success,
        JSON.stringify({ userId, roles, via }),
      ).toBe(valid);
    }
  });
});
