/** The gateway fixture of the test kit: one gateway per file, on the file's own NATS slice. */
import { describe, expect } from 'vitest';
import { completeEvent, connectedOf, fakeBackend, postQuery, readSse, test } from './helpers.ts';

let firstUrl: string | undefined;

describe('the gateway fixture', () => {
  test('serves a query end to end on the file’s NATS prefix', async ({ gateway, nats }) => {
    firstUrl = gateway.url;
    expect(gateway.bus.prefix).toBe(nats.prefix);
    const backend = await fakeBackend(nats, (message) => [completeEvent(message.data.query, 'All paid.')]);
    try {
      const { events } = await readSse(
        await postQuery(gateway.url, { query: 'unpaid bills', entityId: 'e1', orgId: 'o1' }),
      );
      expect(connectedOf(events).requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(events.at(-1)).toMatchObject({ event: 'complete', data: { response: 'All paid.' } });
    } finally {
      await backend.stop();
    }
  });

  test('is the same gateway for every test of the file', async ({ gateway }) => {
    expect(gateway.url).toBe(firstUrl);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  });
});
