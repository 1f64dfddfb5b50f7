// A gateway killed at any point of submitting a query leaves no request that
// never ends. Router, agent, validator and executor run as processes on the real NATS and a fresh
// PostgreSQL; the dying gateway is the gateway's own submit code on a bus that stops at a chosen call.
import type { RequestScope } from '@munim/contracts';
import { natsUrl, test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { type Bus, connectBus, type FollowedEvent } from '../../packages/bus/src/index.ts';
import { submitQuery } from '../../packages/kit/src/submit.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
let bus: Bus;

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats });
  sys.llm?.script({
    match: 'show all invoices',
    repeat: true,
    turns: [{ content: 'Here are your invoices.' }],
  });
  bus = await connectBus({
    servers: natsUrl(),
    prefix: sys.prefix,
    service: 'gateway',
  });
}, 120_000);

afterAll(async () => {
  await bus?.nc.drain();
  await sys?.stop();
});

/** The calls a gateway makes on the bus to submit a query. */
const BUS_CALLS = new Set(['follow', 'publish', 'emit', 'emitAll', 'open']);

interface Cut {
  /** The gateway dies at its n-th bus call (1-based): just before it is made, or just after it returned. */
  call: number;
  when: 'before' | 'after';
}

/**
 * The gateway's bus, up to its death at `cut`: from then on no call returns and none is made, as
 * for a process killed there. Reports the request's scope and whether `querySubmitted` went out.
 */
function dyingBus(cut: Cut) {
  const seen: { scope?: RequestScope; submitted: boolean; died: boolean } = { submitted: false, died: false };
  let calls = 0;
  const dead = () => {
    seen.died = true;
    return new Promise<never>(() => {});
  };
  const proxy = new Proxy(bus, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !BUS_CALLS.has(prop) || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (seen.died) return dead();
        calls += 1;
        const scope = (prop === 'publish' ? args[1] : args[0]) as RequestScope | string;
        if (typeof scope === 'object') seen.scope = scope;
        if (calls === cut.call && cut.when === 'before') return dead();
        const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (prop === 'publish') seen.submitted = true;
        if (calls === cut.call && cut.when === 'after') return dead();
        return result;
      };
    },
  });
  return { bus: proxy, seen };
}

/** The request's events from the first, until its end or `ms`. */
async function eventsOf(requestId: string, ms: number): Promise<FollowedEvent[]> {
  const events: FollowedEvent[] = [];
  const following = await bus.follow(requestId);
  const timer = setTimeout(() => void following.stop(), ms);
  for await (const event of following) {
    events.push(event);
    if (['complete', 'error'].includes(event.message.data.type)) break;
  }
  clearTimeout(timer);
  await following.stop();
  return events;
}

describe('a gateway killed while it submits a query', () => {
  test('leaves every request it opened or submitted to end with complete or error, opened once', async () => {
    // Every point of the submit (a cut past its last call is a gateway that lives).
    const cuts: Cut[] = [1, 2, 3, 4, 5].flatMap((call) =>
      (['before', 'after'] as const).map((when) => ({ call, when })),
    );
    const runs = cuts.map((cut, i) => {
      const dying = dyingBus(cut);
      // Not awaited: a dead gateway's submit never returns.
      const submitted = submitQuery(dying.bus, {
        query: 'show all invoices',
        entityId: 'ent-opened',
        orgId: 'org-opened',
        conversationId: `opened-${i}-${cut.when}-${cut.call}`,
        actor: { userId: null, roles: ['owner'], via: 'api' },
      });
      return { cut, seen: dying.seen, submitted };
    });
    const outcomes = await Promise.all(
      runs.map(async ({ cut, seen, submitted }) => {
        const lived = await Promise.race([
          submitted.then(async (s) => {
            await s.following.stop();
            return true;
          }),
          new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000)),
        ]);
        const requestId = seen.scope?.requestId;
        const events = requestId ? await eventsOf(requestId, 12_000) : [];
        const types = events.map((e) => e.message.data.type);
        return { cut: `${cut.when} call ${cut.call}`, lived, submitted: seen.submitted, types };
      }),
    );
    for (const o of outcomes) {
      const label = `gateway dead ${o.cut}: ${o.types.join(',') || 'no events'}`;
      // Opened (it has events) or submitted: it ends, and it was opened first, once.
      if (o.types.length > 0 || o.submitted) {
        expect(o.types[0], label).toBe('connected');
        expect(['complete', 'error'], label).toContain(o.types.at(-1));
        expect(
          o.types.filter((t) => t === 'connected'),
          label,
        ).toHaveLength(1);
      }
    }
    // Not vacuous: a gateway that lived, and one that died after submitting, both answered.
    const all = JSON.stringify(outcomes);
    expect(
      outcomes.some((o) => o.lived && o.types.at(-1) === 'complete'),
      all,
    ).toBe(true);
    expect(
      outcomes.some((o) => !o.lived && o.submitted && o.types.at(-1) === 'complete'),
      all,
    ).toBe(true);
  }, 90_000);
});
