import { createParser } from 'eventsource-parser';

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: Record<string, unknown>;
}

export interface SseResult {
  status: number;
  contentType: string | null;
  events: SseEvent[];
  body?: unknown;
}

/** Reads an SSE response to its end with a real SSE parser. */
export async function readSse(res: Response): Promise<SseResult> {
  const contentType = res.headers.get('content-type');
  if (!contentType?.startsWith('text/event-stream')) {
    return { status: res.status, contentType, events: [], body: await res.json().catch(() => undefined) };
  }
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (e) => events.push({ id: e.id, event: e.event ?? 'message', data: JSON.parse(e.data) }),
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as AsyncIterable<Uint8Array>)
    parser.feed(decoder.decode(chunk, { stream: true }));
  return { status: res.status, contentType, events };
}

/** POSTs a query to the gateway and reads the whole stream. */
export async function ask(
  gatewayUrl: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<SseResult> {
  const res = await fetch(`${gatewayUrl}/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return readSse(res);
}
