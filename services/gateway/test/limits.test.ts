import { HttpErrorSchema, MAX_QUERY_LENGTH } from '@munim/contracts';
import { type FixtureNats, test } from '@munim/testkit';
import { afterAll, describe, expect, vi } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { completeEvent, fakeBackend, postQuery, readSse, startGateway } from './helpers.ts';

const KEY_A = 'key-a-limits-5e1d-0123456789';
const KEY_B = 'key-b-limits-9c3a-0123456789';
const KEYS = `${KEY_A}:ent-a:org-a,${KEY_B}:ent-b:org-b`;
let testBus: FixtureNats;
let capped: { gateway: Gateway; url: string };
let limited: { gateway: Gateway; url: string };
let backend: Awaited<ReturnType<typeof fakeBackend>>;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const ask = (key: string, query: string) =>
  key === KEY_A ? { query, entityId: 'ent-a', orgId: 'org-a' } : { query, entityId: 'ent-b', orgId: 'org-b' };

test.beforeAll(async ({ nats }) => {
  testBus = nats;
  capped = await startGateway(testBus, {
    GATEWAY_API_KEYS: KEYS,
    MAX_STREAMS_PER_KEY: '2',
    MAX_STREAMS_TOTAL: '3',
    BODY_LIMIT_BYTES: '2048',
    CORS_ORIGINS: 'https://books.example',
  });
  limited = await startGateway(testBus, {
    GATEWAY_API_KEYS: KEYS,
    RATE_LIMIT_MAX: '3',
    RATE_LIMIT_WINDOW_MS: '60000',
    STREAM_IDLE_TIMEOUT_MS: '300',
  });
  // Queries starting with "hang" get no answer: their streams stay open until dropped or timed out.
  backend = await fakeBackend(testBus, (message) =>
    message.data.query.startsWith('hang') ? [] : [completeEvent(message.data.query, 'done')],
  );
});

afterAll(async () => {
  await backend?.stop();
  await capped?.gateway.stop();
  await limited?.gateway.stop();
});

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = HttpErrorSchema.parse(await response.json());
  expect(body.error.code).toBe(code);
  return body.error;
}

/** Opens a stream that gets no answer and waits for its `connected` event; abort() drops it. */
async function openHangingStream(url: string, key: string) {
  const abort = new AbortController();
  const response = await postQuery(url, ask(key, 'hang on'), bearer(key), abort.signal);
  expect(response.status).toBe(200);
  const reader = response.body?.getReader();
  if (!reader) throw new Error('no body');
  const first = await reader.read();
  expect(new TextDecoder().decode(first.value)).toContain('event: connected');
  return { abort: () => abort.abort() };
}

describe('request size', () => {
  test('refuses a body over BODY_LIMIT_BYTES with 400 naming the body', async () => {
    const response = await postQuery(capped.url, ask(KEY_A, 'x'.repeat(3000)), bearer(KEY_A));
    const error = await expectError(response, 400, 'BAD_REQUEST');
    expect(error.message).toMatch(/at most 2048 bytes/);
  });

  test('refuses a query over the maximum length with 400 naming the query', async () => {
    const response = await postQuery(
      limited.url,
      ask(KEY_B, 'y'.repeat(MAX_QUERY_LENGTH + 1)),
      bearer(KEY_B),
    );
    expect((await expectError(response, 400, 'BAD_REQUEST')).field).toBe('query');
  });

  test('refuses a URL over MAX_URL_LENGTH with 414 before anything else', async () => {
    const response = await fetch(`${capped.url}/v1/conversations?entityId=${'e'.repeat(5000)}`, {
      headers: bearer(KEY_A),
    });
    expect((await expectError(response, 414, 'BAD_REQUEST')).field).toBe('url');
  });
});

describe('concurrent streams', () => {
  test('caps streams per key and in total with 429 and Retry-After, and frees slots on disconnect', async () => {
    const a1 = await openHangingStream(capped.url, KEY_A);
    const a2 = await openHangingStream(capped.url, KEY_A);
    const third = await postQuery(capped.url, ask(KEY_A, 'hang on'), bearer(KEY_A));
    expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await expectError(third, 429, 'RATE_LIMITED')).message).toMatch(/per key/);
    const b1 = await openHangingStream(capped.url, KEY_B);
    const overTotal = await postQuery(capped.url, ask(KEY_B, 'hang on'), bearer(KEY_B));
    expect(overTotal.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await expectError(overTotal, 429, 'RATE_LIMITED')).message).toMatch(/too many open streams/);
    expect(capped.gateway.openStreamCount()).toBe(3);
    a1.abort();
    a2.abort();
    b1.abort();
    await vi.waitFor(() => expect(capped.gateway.openStreamCount()).toBe(0), { timeout: 5000 });
    const again = await postQuery(capped.url, ask(KEY_A, 'hello'), bearer(KEY_A));
    expect((await readSse(again)).events.at(-1)?.event).toBe('complete');
  });
});

describe('stream timeouts', () => {
  test('ends a stream without progress for STREAM_IDLE_TIMEOUT_MS with an error TIMEOUT', async () => {
    const response = await postQuery(limited.url, ask(KEY_A, 'hang on'), bearer(KEY_A));
    const { events } = await readSse(response);
    expect(events.map((e) => e.event)).toEqual(['connected', 'error']);
    expect(events[1]?.data).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/No progress/) });
    expect(limited.gateway.openStreamCount()).toBe(0);
  });
});

describe('rate limit', () => {
  test('answers 429 with Retry-After once a key used up its window, and counts keys apart', async () => {
    // Other tests may have spent some of KEY_A's 3 requests already; the 4th in the window is refused.
    const statuses: number[] = [];
    let last = await fetch(`${limited.url}/v1/conversations`, { headers: bearer(KEY_A) });
    statuses.push(last.status);
    while (last.status !== 429 && statuses.length < 10) {
      await last.body?.cancel();
      last = await fetch(`${limited.url}/v1/conversations`, { headers: bearer(KEY_A) });
      statuses.push(last.status);
    }
    expect(statuses.length).toBeLessThanOrEqual(4);
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await expectError(last, 429, 'RATE_LIMITED')).message).toMatch(/at most 3 per 60 s/);
    const again = await fetch(`${limited.url}/v1/conversations`, { headers: bearer(KEY_A) });
    expect(again.status).toBe(429);
    await again.body?.cancel();
    const other = await fetch(`${limited.url}/v1/conversations`, { headers: bearer(KEY_B) });
    expect(other.status).not.toBe(429);
  });
});

describe('CORS', () => {
  test('answers a preflight from a configured origin and not from another', async () => {
    const preflight = (origin: string) =>
      fetch(`${capped.url}/v1/query`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
    const allowed = await preflight('https://books.example');
    expect(allowed.status).toBeLessThan(300);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://books.example');
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    const other = await preflight('https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
