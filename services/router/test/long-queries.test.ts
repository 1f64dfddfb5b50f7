import { randomUUID } from 'node:crypto';
import type { Bus } from '@munim/bus';
import { recordEvents } from '@munim/bus/testing';
import { type AgentEvent, MAX_QUERY_LENGTH, type RequestScope } from '@munim/contracts';
import type { Database } from '@munim/db';
import type { ToolCatalog } from '@munim/kit';
import { type TestNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect, vi } from 'vitest';
import { demoRegistry } from '../eval/evaluate.ts';
import type { buildRouter } from '../src/app.ts';
import { RouterStore } from '../src/store.ts';
import { buildTestRouter } from './test-router.ts';

/** Characters the router's text normalisation reads: its work, counted instead of timed. */
const work = vi.hoisted(() => ({ chars: 0 }));
vi.mock('../src/text.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/text.ts')>();
  return {
    ...actual,
    normalize: (text: string) => {
      work.chars += text.length;
      return actual.normalize(text);
    },
  };
});

let nats: TestNats;
const registry = demoRegistry();
const tools: ToolCatalog = {
  list: async () => registry,
  find: async (name) => registry.find((t) => t.name === name),
  invalidate: () => {},
};

let db: Kysely<Database>;
let gateway: Bus;
let app: Awaited<ReturnType<typeof buildRouter>>;

test.beforeAll(async ({ nats: fileNats, db: fileDb }) => {
  nats = fileNats;
  db = fileDb;
  gateway = await nats.bus('gateway');
  const agent = await nats.bus('agent');
  // A stand-in agent that ends every routed request at once, so what is measured is the router.
  await agent.consume(
    'queryRouted',
    async (message) => {
      await agent.emit(message, {
        type: 'error',
        payload: { code: 'INTERNAL', message: 'stand-in agent' },
      });
    },
    { durable: 'agent' },
  );
  app = await buildTestRouter({ bus: await nats.bus('router'), tools, store: new RouterStore(db) });
  await app.start();
});

afterAll(async () => {
  await app?.stop();
});

const scopeOf = (entityId: string): RequestScope => ({
  requestId: randomUUID(),
  conversationId: `conv-${randomUUID()}`,
  entityId,
  orgId: 'org-1',
});

/** Submits a query as the gateway does; resolves with its events once it ends. */
async function ask(scope: RequestScope, query: string): Promise<AgentEvent[]> {
  const recorder = recordEvents(gateway, scope.requestId);
  await gateway.publish('querySubmitted', scope, { query });
  await expect
    .poll(() => recorder.events.some((e) => e.type === 'complete' || e.type === 'error'), {
      timeout: 10_000,
      interval: 50,
    })
    .toBe(true);
  recorder.stop();
  return recorder.events;
}

/** Devanagari digits between spaces up to the gateway's limit: before the fix, seconds of router CPU each. */
const LONG = (() => {
  const digits = '०१२३४५६७८९';
  let out = '';
  for (let i = 0; out.length + 2 <= MAX_QUERY_LENGTH; i++) out += `${digits[i % 10]} `;
  return `₹ ${out}`.slice(0, MAX_QUERY_LENGTH);
})();

describe('long queries over NATS', () => {
  test('routes ten queries of digits at the length limit in linear work, and another tenant is answered meanwhile', async () => {
    expect(LONG.length).toBeLessThanOrEqual(MAX_QUERY_LENGTH);
    await ask(scopeOf('warm-up'), 'show overdue invoices');
    work.chars = 0;
    const flood = Array.from({ length: 10 }, () => ask(scopeOf('flooding-tenant'), LONG));
    const other = await ask(scopeOf('other-tenant'), 'show overdue invoices');
    const floods = await Promise.all(flood);
    expect(other.some((e) => e.type === 'route_classified')).toBe(true);
    for (const events of floods) {
      const extracted = events.find((e) => e.type === 'entities_extracted');
      const amounts = extracted?.type === 'entities_extracted' ? extracted.payload.entities.amounts : [];
      expect((amounts as number[]).length).toBeGreaterThan(1000);
    }
    // Twenty passes over each query at most: one pass per number in it is the quadratic route.
    expect(work.chars).toBeLessThanOrEqual(20 * (10 * LONG.length + 100));
  }, 60_000);
});
