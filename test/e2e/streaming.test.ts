import { randomUUID } from 'node:crypto';
import { test } from '@munim/testkit';
import { createParser } from 'eventsource-parser';
import { afterAll, describe, expect } from 'vitest';
import type { SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
const tenant = { entityId: 'ent-stream', orgId: 'org-stream' };

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats });
});

afterAll(async () => {
  await sys?.stop();
});

/** POSTs a query and reads its SSE stream, handing each event to `onEvent` as it arrives. */
async function askLive(query: string, onEvent: (event: SseEvent) => void = () => {}): Promise<SseEvent[]> {
  const res = await fetch(`${sys.gatewayUrl}/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, ...tenant }),
  });
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (e) => {
      const event = { id: e.id, event: e.event ?? 'message', data: JSON.parse(e.data) };
      events.push(event);
      onEvent(event);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as AsyncIterable<Uint8Array>)
    parser.feed(decoder.decode(chunk, { stream: true }));
  return events;
}

const only = (events: SseEvent[], type: string) => events.filter((e) => e.event === type);
const texts = (events: SseEvent[]) => only(events, 'response_chunk').map((e) => String(e.data.text));

/** The answer as a client that applies `response_replace` shows it when the stream ends. */
function shown(events: SseEvent[]): string {
  let text = '';
  for (const e of events) {
    if (e.event === 'response_chunk') text += String(e.data.text);
    if (e.event === 'response_replace') text = String(e.data.text);
  }
  return text;
}

function final(events: SseEvent[]): string {
  const last = events.at(-1);
  expect(last).toMatchObject({ event: 'complete', data: { status: 'answered' } });
  return String(last?.data.response);
}

const tag = () => randomUUID().slice(0, 8);

describe('token streaming on the LLM path', () => {
  test('sends the first chunk before the model has written its last token', async () => {
    const query = `how is my business doing this week ${tag()}`;
    const words = Array.from({ length: 30 }, (_, i) => `point${i + 1}`);
    const { promise: seen, resolve: open } = Promise.withResolvers<void>();
    // If nothing streams, the model is let go after a while and the order below shows it.
    const fallback = setTimeout(open, 20_000);
    sys.llm?.script({
      match: query,
      turns: [{ content: `Cash is fine: ${words.join(' ')}.`, chunkDelayMs: 5, lastDeltaAfter: seen }],
    });
    let atFirstChunk: { sent: number; deltas: number } | undefined;
    const events = await askLive(query, (event) => {
      if (event.event !== 'response_chunk' || atFirstChunk) return;
      const streamed = sys.llm?.requestsFor(query).at(-1)?.streamed;
      atFirstChunk = { sent: streamed?.sent ?? -1, deltas: streamed?.deltas ?? -1 };
      open();
    });
    clearTimeout(fallback);
    expect(only(events, 'route_classified')[0]?.data).toMatchObject({ path: 'llm', category: 'unified' });
    expect(atFirstChunk?.deltas).toBe(words.length + 3);
    expect(atFirstChunk?.sent).toBeGreaterThan(0);
    expect(atFirstChunk?.sent).toBeLessThan(atFirstChunk?.deltas ?? 0);
    const types = events.map((e) => e.event);
    expect(types.indexOf('response_generating')).toBeLessThan(types.indexOf('response_chunk'));
    // Paced (a chunk per 50 ms at most): the 150 ms of the model's writing is a few chunks, not 33.
    expect(texts(events).length).toBeGreaterThanOrEqual(2);
    expect(only(events, 'response_replace')).toEqual([]);
    expect(texts(events).join('')).toBe(final(events));
  });

  test('never sends an id split across two deltas', async () => {
    const query = `who is my biggest customer ${tag()}`;
    const id = sys.books.store.contacts.find((c) => c.Name === 'Acme Corp')?.ContactId ?? '';
    expect(id).toMatch(/^[0-9a-f]{8}-/);
    const deltas = ['Acme Corp (', id.slice(0, 13), id.slice(13), ') is your biggest customer.'];
    sys.llm?.script({ match: query, turns: [{ content: deltas.join(''), deltas }] });
    const events = await askLive(query);
    for (const text of texts(events)) for (const part of id.split('-')) expect(text).not.toContain(part);
    expect(final(events)).toContain('Acme Corp');
    expect(final(events)).not.toContain(id);
    expect(shown(events)).toBe(final(events));
  });

  test('streams general chat through the same guard', async () => {
    const query = `tell me a joke about cats ${tag()}`;
    const id = randomUUID();
    const deltas = ['Here is one (ref ', id.slice(0, 13), id.slice(13), '): cats own the keyboard.'];
    sys.llm?.script({ match: query, turns: [{ content: deltas.join(''), deltas }] });
    const events = await askLive(query);
    expect(only(events, 'route_classified')[0]?.data).toMatchObject({ category: 'general_chat' });
    expect(texts(events).length).toBeGreaterThan(0);
    for (const text of texts(events)) for (const part of id.split('-')) expect(text).not.toContain(part);
    expect(final(events)).not.toContain(id);
    expect(shown(events)).toBe(final(events));
  });

  test('never sends a card block', async () => {
    const query = `summarise my receivables ${tag()}`;
    const deltas = [
      'Receivables are mostly current.\n``',
      '`ca',
      'rd\n{"type":"summary","title":"Receivables secret"}\n``',
      '`\nMost is from Acme Corp.',
    ];
    sys.llm?.script({ match: query, turns: [{ content: deltas.join(''), deltas }] });
    const events = await askLive(query);
    for (const text of texts(events)) expect(text).not.toMatch(/card|secret|`/);
    expect(final(events)).toBe('Receivables are mostly current.\n\nMost is from Acme Corp.');
    expect(texts(events).join('')).toBe(final(events));
  });

  test('replaces an answer the final check changed with one event, and complete carries it', async () => {
    const query = `record the rent payment ${tag()}`;
    sys.llm?.script({
      match: query,
      turns: [{ content: 'Here is what I did. ✅ Payment of ₹20,000 recorded successfully.' }],
    });
    const events = await askLive(query);
    const replaces = only(events, 'response_replace');
    expect(replaces).toHaveLength(1);
    expect(replaces[0]?.data.text).toBe(final(events));
    expect(final(events)).not.toMatch(/recorded successfully/);
    expect(texts(events).join('')).not.toMatch(/recorded/);
    expect(events.at(-1)?.data.guardrails).toEqual(['hallucinated_success_stripped']);
  });

  test('takes back the text of a turn that goes on to call tools', async () => {
    const query = `list my bills please ${tag()}`;
    sys.llm?.script({
      match: query,
      turns: [
        { content: 'Let me look those up for you.', toolCalls: [{ name: 'get_bills', arguments: {} }] },
        { content: 'Here are your bills.' },
      ],
    });
    const events = await askLive(query);
    const types = events.map((e) => e.event);
    const retracted = types.indexOf('response_replace');
    expect(shown(events.slice(0, retracted))).toMatch(/^Let me look/);
    expect(only(events, 'response_replace').map((e) => e.data.text)).toEqual(['']);
    expect(types.indexOf('executing_tool')).toBeGreaterThan(retracted);
    expect(final(events)).toBe('Here are your bills.');
    expect(shown(events)).toBe(final(events));
  });
});
