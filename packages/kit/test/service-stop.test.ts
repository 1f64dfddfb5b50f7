import { newScope, recordEvents } from '@munim/bus/testing';
import { type TestNats, test } from '@munim/testkit';
import { describe, expect } from 'vitest';
import { endRequestOnGiveUp, stopService } from '../src/index.ts';

let nats: TestNats;

test.beforeAll(({ nats: fileNats }) => {
  nats = fileNats;
});

describe("a service main's stop", () => {
  test('stops its parts in the order given, then drains the bus, then closes the database pool', async () => {
    const done: string[] = [];
    const part = (name: string) => ({
      stop: async () => {
        done.push(name);
      },
    });
    const bus = { close: async () => void done.push('bus') };
    const db = { destroy: async () => void done.push('db') };
    await stopService([part('models'), part('app')], bus, db)();
    expect(done).toEqual(['models', 'app', 'bus', 'db']);
  });

  test('stops a service without a database, and a failed part fails the stop before the bus closes', async () => {
    const done: string[] = [];
    const bus = { close: async () => void done.push('bus') };
    await stopService([{ stop: async () => void done.push('app') }], bus)();
    expect(done).toEqual(['app', 'bus']);

    const failing = { stop: () => Promise.reject(new Error('consumer did not stop')) };
    await expect(stopService([failing], bus)()).rejects.toThrow('consumer did not stop');
    expect(done).toEqual(['app', 'bus']);
  });
});

describe('a consumer that gives up on a request', () => {
  test('ends the request with an INTERNAL error saying the text given', async () => {
    const gateway = await nats.bus('gateway');
    const router = await nats.bus('router');
    const scope = newScope();
    const recorded = recordEvents(gateway, scope.requestId);
    const consumer = await router.consume(
      'querySubmitted',
      async () => {
        throw new Error('the handler always fails');
      },
      {
        durable: 'router',
        maxDeliver: 1,
        onGiveUp: endRequestOnGiveUp(router, 'Sorry, that question could not be handled.'),
      },
    );
    try {
      await gateway.publish('querySubmitted', scope, { query: 'show all bills' });
      await expect
        .poll(() => recorded.events)
        .toContainEqual({
          type: 'error',
          payload: { code: 'INTERNAL', message: 'Sorry, that question could not be handled.' },
        });
    } finally {
      recorded.stop();
      await consumer.stop();
    }
  });
});
